// core/model/arch/gemma3.cpp — Gemma3ForCausalLM and the text tower of
// Gemma3ForConditionalGeneration (modeling_gemma3.py): the decoder of gemma.h with q_norm / k_norm,
// local layers on rope_local_base_freq and no attention soft-cap.
#include "core/model/arch/gemma.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/table.h"
#include "core/model/format/config_reader.h"
#include "core/model/format/weights.h"

namespace core::model {

void read_gemma3(const ConfigReader& r, ModelConfig& c) { gemma::read_text_config(r, c, gemma::Version::gemma3); }

// Gemma3Config: the text model's fields are its text_config's (the vision tower's are not read).
void read_gemma3_multimodal(const ConfigReader& r, ModelConfig& c) {
    gemma::read_text_config(r.object("text_config"), c, gemma::Version::gemma3);
}

std::unique_ptr<Model> build_gemma3(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    return gemma::build(config, std::move(weights), {"model.", true});
}

// The Hub's files keep the text tower under "language_model.model."; transformers 4.52 on saves it
// as "model.language_model.". The vision tower and the projector beside it are not read.
std::unique_ptr<Model> build_gemma3_multimodal(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    const bool newer = weights->has("model.language_model.embed_tokens.weight");
    return gemma::build(config, std::move(weights), {newer ? "model.language_model." : "language_model.model.", true});
}

const GgufLayout& gemma3_gguf() {
    static const GgufLayout layout{"gemma3", [](const GgufKeys& k, ModelConfig& c) { gemma::read_gguf(k, c, gemma::Version::gemma3); },
                                   "model.layers.", gguf_names::decoder_globals(), gemma::gguf_layer_names(), false};
    return layout;
}

} // namespace core::model
