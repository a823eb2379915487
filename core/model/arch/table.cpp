#include "core/model/arch/table.h"

#include <cmath>

namespace core::model {

// Each architecture's functions, defined in its file core/model/arch/NAME.cpp. The build functions
// check every tensor they need (present, shape, dtype) and throw core::io::FileError naming the file
// and the tensor.
// arch/gpt2.cpp
void read_gpt2(const ConfigReader& r, ModelConfig& c);
double gpt2_score_scale(const ModelConfig& c, int layer);
std::unique_ptr<Model> build_gpt2(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& gpt2_gguf();
// arch/llama.cpp
void read_llama(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_llama(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& llama_gguf();
const GgufLayout& qwen2_gguf();
// arch/gemma2.cpp, arch/gemma3.cpp, arch/gemma.cpp
void read_gemma2(const ConfigReader& r, ModelConfig& c);
void read_gemma3(const ConfigReader& r, ModelConfig& c);
void read_gemma3_multimodal(const ConfigReader& r, ModelConfig& c);
double gemma_score_scale(const ModelConfig& c, int layer);
std::unique_ptr<Model> build_gemma2(const ModelConfig& config, std::shared_ptr<const Weights> weights);
std::unique_ptr<Model> build_gemma3(const ModelConfig& config, std::shared_ptr<const Weights> weights);
std::unique_ptr<Model> build_gemma3_multimodal(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& gemma2_gguf();
const GgufLayout& gemma3_gguf();
// arch/qwen3.cpp
void read_qwen3(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_qwen3(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& qwen3_gguf();
// arch/qwen3_moe.cpp
void read_qwen3_moe(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_qwen3_moe(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& qwen3_moe_gguf();
// arch/qwen2_moe.cpp
void read_qwen2_moe(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_qwen2_moe(const ModelConfig& config, std::shared_ptr<const Weights> weights);
// arch/gpt_oss.cpp
void read_gpt_oss(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_gpt_oss(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& gpt_oss_gguf();
// arch/qwen3_next.cpp
void read_qwen3_5(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_qwen3_5(const ModelConfig& config, std::shared_ptr<const Weights> weights);
void read_qwen3_5_multimodal(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_qwen3_5_multimodal(const ModelConfig& config, std::shared_ptr<const Weights> weights);
void read_qwen3_5_moe(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_qwen3_5_moe(const ModelConfig& config, std::shared_ptr<const Weights> weights);
void read_qwen3_5_moe_multimodal(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_qwen3_5_moe_multimodal(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& qwen35_gguf();
const GgufLayout& qwen35moe_gguf();
void read_qwen3_next(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_qwen3_next(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& qwen3next_gguf();
// arch/phi3.cpp
void read_phi3(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_phi3(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& phi3_gguf();
// arch/smollm3.cpp
void read_smollm3(const ConfigReader& r, ModelConfig& c);
const GgufLayout& smollm3_gguf();
// arch/olmo2.cpp
void read_olmo2(const ConfigReader& r, ModelConfig& c);
void read_olmo3(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_olmo2(const ModelConfig& config, std::shared_ptr<const Weights> weights);
const GgufLayout& olmo2_gguf();
// arch/bert.cpp
void read_bert(const ConfigReader& r, ModelConfig& c);
std::unique_ptr<Model> build_bert(const ModelConfig& config, std::shared_ptr<const Weights> weights);

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
