#include "core/model/arch/table.h"

#include <cmath>
#include <type_traits>

namespace core::model {

// Each architecture's functions, defined in its file core/model/arch/NAME.cpp (read_NAME, NAME_gguf,
// build_NAME, NAME_score_scale), declared here by the signature of their column: a new architecture
// adds its names to these lists. The build functions check every tensor they need (present, shape,
// dtype) and throw core::io::FileError naming the file and the tensor.
using ReadConfigFn = std::remove_pointer_t<ReadConfig>;
using ScoreScaleFn = std::remove_pointer_t<ScoreScale>;
using BuildModelFn = std::remove_pointer_t<BuildModel>;
using GgufLayoutFn = std::remove_pointer_t<GgufLayoutOf>;

ReadConfigFn read_gpt2, read_llama, read_gemma2, read_gemma3, read_gemma3_multimodal, read_qwen3, read_qwen3_moe, read_qwen2_moe, read_gpt_oss,
    read_qwen3_5, read_qwen3_5_multimodal, read_qwen3_5_moe, read_qwen3_5_moe_multimodal,
    read_qwen3_next, read_phi3, read_smollm3, read_olmo2, read_olmo3, read_bert;
ScoreScaleFn gpt2_score_scale, gemma_score_scale;
BuildModelFn build_gpt2, build_llama, build_gemma2, build_gemma3, build_gemma3_multimodal, build_qwen3, build_qwen3_moe, build_qwen2_moe,
    build_gpt_oss, build_qwen3_5, build_qwen3_5_multimodal, build_qwen3_5_moe, build_qwen3_5_moe_multimodal,
    build_qwen3_next, build_phi3, build_olmo2, build_bert;
GgufLayoutFn gpt2_gguf, llama_gguf, qwen2_gguf, gemma2_gguf, gemma3_gguf, qwen3_gguf, qwen3_moe_gguf, gpt_oss_gguf, qwen35_gguf, qwen35moe_gguf,
    qwen3next_gguf, phi3_gguf, smollm3_gguf, olmo2_gguf;

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
        {"Qwen2MoeForCausalLM", true, read_qwen2_moe, inverse_sqrt_head, build_qwen2_moe, nullptr},
        {"GptOssForCausalLM", true, read_gpt_oss, inverse_sqrt_head, build_gpt_oss, gpt_oss_gguf},
        {"Qwen3_5ForCausalLM", true, read_qwen3_5, inverse_sqrt_head, build_qwen3_5, qwen35_gguf},
        {"Qwen3_5ForConditionalGeneration", true, read_qwen3_5_multimodal, inverse_sqrt_head, build_qwen3_5_multimodal, nullptr},
        {"Qwen3_5MoeForCausalLM", true, read_qwen3_5_moe, inverse_sqrt_head, build_qwen3_5_moe, qwen35moe_gguf},
        {"Qwen3_5MoeForConditionalGeneration", true, read_qwen3_5_moe_multimodal, inverse_sqrt_head, build_qwen3_5_moe_multimodal, nullptr},
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
