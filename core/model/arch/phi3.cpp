// core/model/arch/phi3.cpp — Phi3ForCausalLM, as transformers' modeling_phi3.py runs it: the Llama
// layer (arch/decoder.h) with q | k | v in one fused self_attn.qkv_proj ((H + 2·Hkv)·dh, D) and
// gate | up in one fused mlp.gate_up_proj (2F, D); RoPE on each head's first
// head_dim · partial_rotary_factor dims only; longrope positions (Phi-3-mini-128k, Phi-4-mini) up
// to original_max_position_embeddings; one sliding_window on every layer where it is set; no biases;
// an untied lm_head unless tie_word_embeddings.
#include "core/model/arch/decoder.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/model/format/gguf_model.h"

namespace core::model {

// Phi3Config's names and defaults.
void read_phi3(const ConfigReader& r, ModelConfig& c) {
    decoder::read_common(r, c, {{{"vocab_size", 32064}, {"hidden_size", 3072}, {"num_hidden_layers", 32}, {"num_attention_heads", 32}},
                                8192, 0, 0, 4096, 1e-5, false, true});
    const int w = r.whole("sliding_window", 1, 1LL << 30, 0);
    c.sliding_window.assign(static_cast<std::size_t>(c.layers), w);
}

// llama.cpp's "phi3" files: fused attn_qkv and ffn_up (gate | up), RoPE on rope.dimension_count dims,
// one window where attention.sliding_window is set.
void read_gguf_phi3(const GgufKeys& k, ModelConfig& c) {
    c.norm_eps = k.real("attention.layer_norm_rms_epsilon", 1e-30, 1.0, 1e-5);
    c.activation = "silu";
    if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) k.fail("rope.dimension_count", "is not an even number of at least 2");
    rotary::read_gguf_scaling(k, c);
    c.sliding_window.assign(static_cast<std::size_t>(c.layers), k.whole("attention.sliding_window", 0, 1LL << 30, 0));
}

const GgufLayout& phi3_gguf() {
    static const GgufLayout layout{"phi3", read_gguf_phi3, "model.layers.", gguf_names::decoder_globals(),
                                   gguf_names::with(gguf_names::decoder_layer(), {{"attn_qkv", "self_attn.qkv_proj"}, {"ffn_up", "mlp.gate_up_proj"}}),
                                   false};
    return layout;
}

std::unique_ptr<Model> build_phi3(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    const std::int64_t D = config.d_model, F = config.d_ff, QKV = static_cast<std::int64_t>(config.heads + 2 * config.kv_heads) * config.d_head;
    std::vector<decoder::Block> blocks;
    for (int l = 0; l < config.layers; ++l) {
        decoder::Block b = decoder::common_names(*weights, config, l);
        b.qkv_w = &weights->require(layers::layer_name("model.layers.", l, "self_attn.qkv_proj.weight"), {QKV, D});
        feed_forward::DenseTensors mlp;
        mlp.gate_up_w = &weights->require(layers::layer_name("model.layers.", l, "mlp.gate_up_proj.weight"), {2 * F, D});
        mlp.down_w = &weights->require(layers::layer_name("model.layers.", l, "mlp.down_proj.weight"), {D, F});
        b.ffn = std::make_shared<feed_forward::Dense>(mlp, config.d_ff, layers::activation_of(config.activation));
        blocks.push_back(b);
    }
    decoder::Parts parts = decoder::around(*weights, config, std::move(blocks));
    return decoder::build(config, std::move(weights), std::move(parts));
}

} // namespace core::model
