#include "core/model/arch/table.h"

#include <cmath>

namespace core::model {

const std::vector<Architecture>& architectures() {
    static const std::vector<Architecture> table = {
        {"GPT2LMHeadModel", true, read_gpt2, gpt2_score_scale, build_gpt2, gpt2_gguf},
        {"LlamaForCausalLM", true, read_llama, inverse_sqrt_head, build_llama, llama_gguf},
        {"MistralForCausalLM", true, read_llama, inverse_sqrt_head, build_llama, nullptr},
        {"Qwen2ForCausalLM", true, read_llama, inverse_sqrt_head, build_llama, qwen2_gguf},
        {"Gemma2ForCausalLM", true, read_gemma2, gemma_score_scale, build_gemma2, gemma2_gguf},
        {"Gemma3ForCausalLM", true, read_gemma3, gemma_score_scale, build_gemma3, gemma3_gguf},
        {"Gemma3ForConditionalGeneration", true, read_gemma3_multimodal, gemma_score_scale, build_gemma3_multimodal, nullptr},
        {"Qwen3ForCausalLM", true, read_qwen3, inverse_sqrt_head, build_qwen3, qwen3_gguf},
        {"Qwen3MoeForCausalLM", true, read_qwen3_moe, inverse_sqrt_head, build_qwen3_moe, qwen3_moe_gguf},
        {"GptOssForCausalLM", true, read_gpt_oss, inverse_sqrt_head, build_gpt_oss, gpt_oss_gguf},
        {"Qwen3_5ForCausalLM", true, read_qwen3_5, inverse_sqrt_head, build_qwen3_5, qwen35_gguf},
        {"Qwen3_5ForConditionalGeneration", true, read_qwen3_5_multimodal, inverse_sqrt_head, build_qwen3_5_multimodal, nullptr},
        {"Qwen3_5MoeForCausalLM", true, read_qwen3_5_moe, inverse_sqrt_head, build_qwen3_5_moe, qwen35moe_gguf},
        {"Qwen3NextForCausalLM", true, read_qwen3_next, inverse_sqrt_head, build_qwen3_next, qwen3next_gguf},
        {"Phi3ForCausalLM", true, read_phi3, inverse_sqrt_head, build_phi3, phi3_gguf},
        {"SmolLM3ForCausalLM", true, read_smollm3, inverse_sqrt_head, build_llama, smollm3_gguf},
        {"Olmo2ForCausalLM", true, read_olmo2, inverse_sqrt_head, build_olmo2, olmo2_gguf},
        {"Olmo3ForCausalLM", true, read_olmo3, inverse_sqrt_head, build_olmo2, nullptr},
        {"BertForMaskedLM", true, read_bert, inverse_sqrt_head, build_bert, nullptr},
        {"BertModel", false, read_bert, inverse_sqrt_head, build_bert, nullptr},
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

const Architecture* find_gguf_architecture(const std::string& gguf_name) {
    for (const Architecture& a : architectures())
        if (a.gguf && gguf_name == a.gguf().name) return &a;
    return nullptr;
}

std::string supported_gguf_architectures() {
    std::string names;
    for (const Architecture& a : architectures())
        if (a.gguf) names += (names.empty() ? "" : ", ") + std::string(a.gguf().name);
    return names;
}

double score_scale(const ModelConfig& c, int layer) {
    const Architecture* a = find_architecture(c.architecture);
    if (!a) throw InputError("architecture " + c.architecture + " is not supported; attnviz runs " + supported_architectures());
    return a->score_scale(c, layer);
}

double inverse_sqrt_head(const ModelConfig& c, int) { return 1.0 / std::sqrt(static_cast<double>(c.d_head)); }

} // namespace core::model
