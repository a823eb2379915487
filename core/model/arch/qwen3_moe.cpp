// core/model/arch/qwen3_moe.cpp — Qwen3MoeForCausalLM, as transformers' modeling_qwen3_moe.py runs it:
// Qwen3's attention (arch/decoder.h, q/k RMS-normed per head before RoPE), and in place of the MLP,
// on layer l when l is not in mlp_only_layers and (l + 1) is a multiple of decoder_sparse_step, a
// mixture of num_experts experts (arch/feed_forward.h): the router mlp.gate's softmax over every
// expert in float32, its num_experts_per_tok largest, divided by their sum only with norm_topk_prob;
// each expert a SwiGLU MLP of width moe_intermediate_size. The other layers have the dense MLP of
// width intermediate_size. A sliding window on every layer only with use_sliding_window. The Hub's
// checkpoints hold each expert's own tensors; one saved with its experts fused (transformers 5's
// gate_up_proj and down_proj, which its loading makes of them) reads as well (arch/feed_forward.h).
//
// llama.cpp's "qwen3moe" files (src/models/qwen3moe.cpp, build_moe_ffn) make every layer a mixture,
// hold each layer's experts in three (experts, out, in) tensors and always divide the chosen weights
// by their sum, whatever norm_topk_prob was: a GGUF file runs so.
#include "core/model/arch/decoder.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/model/format/gguf_model.h"

namespace core::model {

// Qwen3MoeConfig's names and defaults.
void read_qwen3_moe(const ConfigReader& r, ModelConfig& c) {
    decoder::read_common(r, c, {{{"vocab_size", 151936}, {"hidden_size", 2048}, {"num_hidden_layers", 24}, {"num_attention_heads", 32}},
                                6144, 4, 0, 32768, 1e-6, false, false});
    if (c.activation != "silu") r.fail("hidden_act", "is " + c.activation + "; attnviz runs the experts of Qwen3 MoE with silu");
    c.attention_bias = c.o_bias = r.flag("attention_bias", false);
    const bool window = r.flag("use_sliding_window", false) && !(r.has("sliding_window") && r.j.at("sliding_window").is_null());
    c.sliding_window.assign(static_cast<std::size_t>(c.layers), window ? r.whole("sliding_window", 1, 1LL << 30, 4096) : 0);
    decoder::read_mixture(r, c, {128, 8, 768, 0, false});
}

// llama.cpp's "qwen3moe" files: every layer a mixture, the chosen weights always renormalised.
void read_gguf_qwen3_moe(const GgufKeys& k, ModelConfig& c) {
    read_gguf_qwen3(k, c); // its attention is Qwen3's
    c.experts = k.whole("expert_count", 1, 1 << 16);
    c.experts_per_token = k.whole("expert_used_count", 1, c.experts);
    c.d_expert = k.whole("expert_feed_forward_length", 1, max_config_size);
    c.renormalise_chosen = true;
    c.sparse_layers.assign(static_cast<std::size_t>(c.layers), true);
    c.stacked_experts = true;
}

const GgufLayout& qwen3_moe_gguf() {
    static const GgufLayout layout{"qwen3moe", read_gguf_qwen3_moe, "model.layers.", gguf_names::decoder_globals(),
                                   gguf_names::with_experts(gguf_names::decoder_layer(), "mlp.gate"), false};
    return layout;
}

std::unique_ptr<Model> build_qwen3_moe(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    const feed_forward::RoutingRule& rule = feed_forward::routing_rule(config.renormalise_chosen ? "softmax_top_k_renormalised" : "softmax_top_k");
    const feed_forward::MixtureShape shape{config.d_model, config.d_expert, config.experts, config.experts_per_token, config.stacked_experts};
    std::vector<decoder::Block> blocks;
    for (int l = 0; l < config.layers; ++l) {
        blocks.push_back(decoder::common_names(*weights, config, l));
        decoder::separate_names(*weights, config, l, blocks.back());
        blocks.back().ffn = config.sparse_layers[static_cast<std::size_t>(l)]
                                ? feed_forward::mixture(*weights, layers::layer_name("model.layers.", l, "mlp."), shape, rule,
                                                        feed_forward::expert_activation(config.activation))
                                : decoder::dense_mlp(*weights, config, l);
    }
    decoder::qk_norm_names(*weights, config, blocks);
    decoder::Parts parts = decoder::around(*weights, config, std::move(blocks));
    return decoder::build(config, std::move(weights), std::move(parts));
}

} // namespace core::model
