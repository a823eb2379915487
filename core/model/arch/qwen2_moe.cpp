// core/model/arch/qwen2_moe.cpp — Qwen2MoeForCausalLM (Qwen1.5-MoE, Qwen2-57B-A14B), as transformers'
// modeling_qwen2_moe.py runs it: Qwen2's attention (arch/decoder.h: q/k/v biases unless qkv_bias is
// false, no o_proj bias, head_dim = hidden / heads unless given), and in place of the MLP, on layer l
// when l is not in mlp_only_layers and (l + 1) is a multiple of decoder_sparse_step, Qwen2MoeSparseMoeBlock
// (arch/feed_forward.h):
//   the router mlp.gate's softmax over num_experts experts in float32, its num_experts_per_tok
//   largest, divided by their sum only with norm_topk_prob; each expert a gated MLP of width
//   moe_intermediate_size; plus the shared expert mlp.shared_expert (width
//   shared_expert_intermediate_size) times sigmoid(a · mlp.shared_expert_gateᵀ) at each position.
// The other layers have the dense MLP of width intermediate_size. A sliding window only with
// use_sliding_window, from max_window_layers on (as Qwen2). No GGUF column yet.
#include "core/model/arch/decoder.h"
#include "core/model/arch/table.h"

namespace core::model {

namespace {

std::vector<int> qwen2_moe_windows(const ConfigReader& r, const ModelConfig& c) {
    std::vector<int> window(static_cast<std::size_t>(c.layers), 0);
    if (!r.flag("use_sliding_window", false)) return window;
    const int w = r.whole("sliding_window", 1, 1LL << 30, 4096);
    for (int l = r.whole("max_window_layers", 0, 1 << 20, 28); l < c.layers; ++l) window[static_cast<std::size_t>(l)] = w;
    return window;
}

// Layer l's feed-forward: the routed experts with the gated shared expert where the layer is sparse,
// else the dense MLP.
std::shared_ptr<const feed_forward::FeedForward> qwen2_moe_feed_forward(const Weights& w, const ModelConfig& c, int l) {
    const feed_forward::MixtureFields& m = c.own_as<feed_forward::MixtureFields>();
    if (!m.sparse(l)) return decoder::dense_mlp(w, c, l);
    const std::string prefix = layers::layer_name("model.layers.", l, "mlp.");
    const feed_forward::RoutingRule& rule = feed_forward::routing_rule(m.renormalise_chosen ? "softmax_top_k_renormalised" : "softmax_top_k");
    const feed_forward::MixtureShape shape{c.d_model, m.d_expert, m.experts, m.experts_per_token, false};
    return feed_forward::with_shared_expert(
        feed_forward::mixture(w, prefix, shape, rule, feed_forward::expert_activation(c.activation)),
        feed_forward::dense(w, prefix + "shared_expert.", c.d_model, m.d_shared_expert, false, layers::activation_of(c.activation)),
        w.require(prefix + "shared_expert_gate.weight", {1, c.d_model}));
}

} // namespace

// Qwen2MoeConfig's names and defaults.
void read_qwen2_moe(const ConfigReader& r, ModelConfig& c) {
    decoder::read_common(r, c, {{{"vocab_size", 151936}, {"hidden_size", 2048}, {"num_hidden_layers", 24}, {"num_attention_heads", 16}},
                                5632, 16, 0, 32768, 1e-6, false, false});
    if (c.activation != "silu") r.fail("hidden_act", "is " + c.activation + "; attnviz runs the experts of Qwen2 MoE with silu");
    c.attention_bias = r.flag("qkv_bias", true);
    c.sliding_window = qwen2_moe_windows(r, c);
    decoder::read_mixture(r, c, c.make_own<feed_forward::MixtureFields>(), {60, 4, 1408, 5632, false});
}

std::unique_ptr<Model> build_qwen2_moe(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    std::vector<decoder::Block> blocks;
    for (int l = 0; l < c.layers; ++l) {
        blocks.push_back(decoder::common_names(*weights, c, l));
        decoder::separate_names(*weights, c, l, blocks.back());
        blocks.back().ffn = qwen2_moe_feed_forward(*weights, c, l);
    }
    decoder::Parts parts = decoder::around(*weights, c, std::move(blocks));
    return decoder::build(c, std::move(weights), std::move(parts));
}

} // namespace core::model
