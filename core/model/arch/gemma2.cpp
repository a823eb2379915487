// core/model/arch/gemma2.cpp — Gemma2ForCausalLM (modeling_gemma2.py): the decoder of gemma.h with
// the attention soft-cap, one RoPE for every layer and no q/k norms.
#include "core/model/arch/gemma.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/table.h"

namespace core::model {

void read_gemma2(const ConfigReader& r, ModelConfig& c) { gemma::read_text_config(r, c, gemma::Version::gemma2); }

std::unique_ptr<Model> build_gemma2(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    return gemma::build(config, std::move(weights), {"model.", false});
}

const GgufLayout& gemma2_gguf() {
    static const GgufLayout layout{"gemma2", [](const GgufKeys& k, ModelConfig& c) { gemma::read_gguf(k, c, gemma::Version::gemma2); },
                                   "model.layers.", gguf_names::decoder_globals(), gemma::gguf_layer_names(), false};
    return layout;
}

} // namespace core::model
