#include "core/model/arch/table.h"

namespace core::model {

const std::vector<Architecture>& architectures() {
    static const std::vector<Architecture> table = {
        {"GPT2LMHeadModel", Family::gpt2, true, build_gpt2},
        {"LlamaForCausalLM", Family::llama, true, build_llama},
        {"MistralForCausalLM", Family::llama, true, build_llama},
        {"Qwen2ForCausalLM", Family::llama, true, build_llama},
        {"BertForMaskedLM", Family::bert, true, build_bert},
        {"BertModel", Family::bert, false, build_bert},
    };
    return table;
}

const Architecture* find_architecture(const std::string& name) {
    for (const Architecture& a : architectures())
        if (name == a.name) return &a;
    return nullptr;
}

std::string supported_architectures() {
    std::string names;
    for (const Architecture& a : architectures()) names += (names.empty() ? "" : ", ") + std::string(a.name);
    return names;
}

} // namespace core::model
