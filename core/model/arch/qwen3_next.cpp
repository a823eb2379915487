// core/model/arch/qwen3_next.cpp — the hybrids of linear and full attention: Qwen3-Next
// (Qwen3NextForCausalLM, modeling_qwen3_next.py) and Qwen3.5's dense text model (Qwen3_5ForCausalLM,
// model_type qwen3_5_text, modeling_qwen3_5.py, which transformers derives from Qwen3-Next's):
//   - linear attention layers, the Gated DeltaNet (arch/gated_delta_net.h), where layer_types says
//     "linear_attention" (without layer_types: every layer but each full_attention_interval-th);
//   - full attention layers: q_proj gives each head's q and an output gate (the context times
//     sigmoid(gate) before o_proj), q and k RMS-normed per head, rotary on the first
//     partial_rotary_factor · head_dim dims of each head (rope_parameters, or the top-level keys).
// Every RMSNorm of the model (the layers' two, q_norm, k_norm, model.norm) scales by 1 + weight, in
// float32; the linear layers' gated norm by weight itself. Qwen3.5's MLP is the Llama family's.
// Qwen3-Next differs in two ways: its linear layers fuse their projections (in_proj_qkvz, in_proj_ba,
// grouped per key head), and its MLP is, on the layers decoder_sparse_step and mlp_only_layers pick, a
// mixture of experts (softmax top-k, renormalised with norm_topk_prob) plus a shared expert whose
// output is times sigmoid(a · shared_expert_gateᵀ).
#include "core/model/arch/decoder.h"
#include "core/model/arch/table.h"

#include <map>

namespace core::model {

namespace {

// Which layers are linear: layer_types (one entry per layer, each "linear_attention" or
// "full_attention"), else every layer l with (l + 1) not a multiple of full_attention_interval.
std::vector<bool> linear_layers(const ConfigReader& r, int layers) {
    std::vector<bool> linear(static_cast<std::size_t>(layers));
    if (!r.has("layer_types")) {
        const int every = r.whole("full_attention_interval", 1, 1 << 20, 4);
        for (int l = 0; l < layers; ++l) linear[static_cast<std::size_t>(l)] = (l + 1) % every != 0;
        return linear;
    }
    const nlohmann::json& types = r.j.at("layer_types");
    if (!types.is_array() || static_cast<int>(types.size()) != layers)
        r.fail("layer_types", "has " + (types.is_array() ? std::to_string(types.size()) : std::string("no list of")) + " entries; num_hidden_layers is " +
                                  std::to_string(layers));
    for (int l = 0; l < layers; ++l) {
        const nlohmann::json& type = types[static_cast<std::size_t>(l)];
        if (type != "linear_attention" && type != "full_attention")
            r.fail("layer_types", "holds " + type.dump() + " at layer " + std::to_string(l + 1) + ", not \"linear_attention\" or \"full_attention\"");
        linear[static_cast<std::size_t>(l)] = type == "linear_attention";
    }
    return linear;
}

// rope_parameters' rope_theta and partial_rotary_factor, where the config keeps them there.
void read_rope_parameters(const ConfigReader& r, ModelConfig& c) {
    if (!r.has("rope_parameters") || !r.j.at("rope_parameters").is_object()) return;
    const ConfigReader rope{r.j.at("rope_parameters"), r.path};
    c.rope_theta = rope.real("rope_theta", 1e-6, 1e15, c.rope_theta);
    c.rotary_dim = static_cast<int>(c.d_head * rope.real("partial_rotary_factor", 1e-6, 1.0, 0.25));
    if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) r.fail("rope_parameters", "gives " + std::to_string(c.rotary_dim) + " rotated dims; rotary positions rotate pairs");
}

// The linear layers' heads and widths; the value heads a multiple of the key heads.
void read_linear(const ConfigReader& r, ModelConfig& c) {
    c.linear_layers = linear_layers(r, c.layers);
    c.linear_k_heads = r.whole("linear_num_key_heads", 1, 4096, 16);
    c.linear_v_heads = r.whole("linear_num_value_heads", 1, 4096, 32);
    if (c.linear_v_heads % c.linear_k_heads != 0)
        r.fail("linear_num_key_heads", "(" + std::to_string(c.linear_k_heads) + ") does not divide linear_num_value_heads (" +
                                           std::to_string(c.linear_v_heads) + ")");
    c.linear_d_k = r.whole("linear_key_head_dim", 1, 65536, 128);
    c.linear_d_v = r.whole("linear_value_head_dim", 1, 65536, 128);
    c.linear_kernel = r.whole("linear_conv_kernel_dim", 1, 64, 4);
}

// Layer l's full attention: q_proj (2·H·dh, D) with the gate, k_proj, v_proj, q_norm and k_norm (from
// the 1 + w copies), o_proj.
decoder::Block full_block(const Weights& w, const Weights& derived, const ModelConfig& c, int l) {
    const std::int64_t D = c.d_model, Q = static_cast<std::int64_t>(c.heads) * c.d_head, KV = static_cast<std::int64_t>(c.kv_heads) * c.d_head;
    auto name = [&](const std::string& rest) { return layers::layer_name("model.layers.", l, rest); };
    decoder::Block b;
    b.q_gate = true;
    b.q_w = &w.require(name("self_attn.q_proj.weight"), {2 * Q, D});
    b.k_w = &w.require(name("self_attn.k_proj.weight"), {KV, D});
    b.v_w = &w.require(name("self_attn.v_proj.weight"), {KV, D});
    b.o_w = &w.require(name("self_attn.o_proj.weight"), {D, Q});
    b.q_norm = &derived.require(name("self_attn.q_norm.weight"), {c.d_head});
    b.k_norm = &derived.require(name("self_attn.k_norm.weight"), {c.d_head});
    return b;
}

// 1 + w of every RMSNorm that scales so, in float32, under the tensors' own names.
std::shared_ptr<Weights> norms_plus_one(const Weights& w, const ModelConfig& c) {
    std::map<std::string, std::pair<Shape, std::vector<float>>> shifted;
    auto add = [&](const std::string& name, std::int64_t d) {
        const float* values = w.require(name, {d}).data();
        std::vector<float> plus(values, values + d);
        for (float& v : plus) v += 1.0f;
        shifted[name] = {{d}, std::move(plus)};
    };
    add("model.norm.weight", c.d_model);
    for (int l = 0; l < c.layers; ++l) {
        auto name = [&](const std::string& rest) { return layers::layer_name("model.layers.", l, rest); };
        add(name("input_layernorm.weight"), c.d_model);
        add(name("post_attention_layernorm.weight"), c.d_model);
        if (c.linear_layers[static_cast<std::size_t>(l)]) continue;
        add(name("self_attn.q_norm.weight"), c.d_head);
        add(name("self_attn.k_norm.weight"), c.d_head);
    }
    return Weights::from_memory(std::move(shifted), w.path());
}

// The sizes both configs share, with the class's defaults; rotary on a quarter of each head unless
// partial_rotary_factor (top level or in rope_parameters) says otherwise.
void read_hybrid(const ConfigReader& r, ModelConfig& c, const decoder::Defaults& d) {
    decoder::read_common(r, c, d);
    if (!r.has("partial_rotary_factor")) c.rotary_dim = c.d_head / 4; // the classes' 0.25
    read_rope_parameters(r, c);
    c.attention_bias = c.o_bias = r.flag("attention_bias", false);
    c.sliding_window.assign(static_cast<std::size_t>(c.layers), 0);
    read_linear(r, c);
}

using FeedForwardOf = std::shared_ptr<const feed_forward::FeedForward> (*)(const Weights& w, const ModelConfig& c, int l);

std::unique_ptr<Model> build_hybrid(const ModelConfig& c, std::shared_ptr<const Weights> weights, bool fused, FeedForwardOf ffn) {
    const std::shared_ptr<const Weights> derived = norms_plus_one(*weights, c);
    const delta_rule::Shape shape{c.linear_k_heads, c.linear_v_heads, c.linear_d_k, c.linear_d_v};
    std::vector<decoder::Block> blocks;
    for (int l = 0; l < c.layers; ++l) {
        decoder::Block b;
        if (c.linear_layers[static_cast<std::size_t>(l)])
            b.linear = std::make_shared<gated_delta_net::Layer>(
                gated_delta_net::read(*weights, l, c.d_model, shape, c.linear_kernel, static_cast<float>(c.norm_eps), fused));
        else b = full_block(*weights, *derived, c, l);
        b.ln1 = &derived->require(layers::layer_name("model.layers.", l, "input_layernorm.weight"), {c.d_model});
        b.ln2 = &derived->require(layers::layer_name("model.layers.", l, "post_attention_layernorm.weight"), {c.d_model});
        b.ffn = ffn(*weights, c, l);
        blocks.push_back(std::move(b));
    }
    decoder::Parts parts = decoder::around(*weights, c, std::move(blocks));
    parts.norm = &derived->require("model.norm.weight", {c.d_model});
    parts.derived = derived;
    return decoder::build(c, std::move(weights), std::move(parts));
}

// Qwen3-Next's layer l: the mixture with its gated shared expert where the layer is sparse, else the
// dense MLP.
std::shared_ptr<const feed_forward::FeedForward> next_feed_forward(const Weights& w, const ModelConfig& c, int l) {
    if (!c.sparse_layers[static_cast<std::size_t>(l)]) return decoder::dense_mlp(w, c, l);
    const std::string prefix = layers::layer_name("model.layers.", l, "mlp.");
    const feed_forward::RoutingRule& rule = feed_forward::routing_rule(c.renormalise_chosen ? "softmax_top_k_renormalised" : "softmax_top_k");
    const feed_forward::MixtureShape shape{c.d_model, c.d_expert, c.experts, c.experts_per_token, false};
    return feed_forward::with_shared_expert(
        feed_forward::mixture(w, prefix, shape, rule, feed_forward::expert_activation("silu")),
        feed_forward::dense(w, prefix + "shared_expert.", c.d_model, c.d_shared_expert, false, ops::Activation::silu),
        w.require(prefix + "shared_expert_gate.weight", {1, c.d_model}));
}

} // namespace

// Qwen3_5TextConfig's names and defaults.
void read_qwen3_5(const ConfigReader& r, ModelConfig& c) {
    read_hybrid(r, c, {{{"vocab_size", 248320}, {"hidden_size", 4096}, {"num_hidden_layers", 32}, {"num_attention_heads", 16}},
                       12288, 4, 256, 32768, 1e-6, false, true});
}

std::unique_ptr<Model> build_qwen3_5(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    return build_hybrid(c, std::move(weights), false, decoder::dense_mlp);
}

// Qwen3NextConfig's names and defaults.
void read_qwen3_next(const ConfigReader& r, ModelConfig& c) {
    read_hybrid(r, c, {{{"vocab_size", 151936}, {"hidden_size", 2048}, {"num_hidden_layers", 48}, {"num_attention_heads", 16}},
                       5632, 2, 256, 32768, 1e-6, false, true});
    if (c.activation != "silu") r.fail("hidden_act", "is " + c.activation + "; attnviz runs the experts of Qwen3-Next with silu");
    c.experts = r.whole("num_experts", 0, 1 << 16, 512);
    c.experts_per_token = r.whole("num_experts_per_tok", 1, 1 << 16, 10);
    if (c.experts > 0 && c.experts_per_token > c.experts)
        r.fail("num_experts_per_tok", "(" + std::to_string(c.experts_per_token) + ") is more than num_experts (" + std::to_string(c.experts) + ")");
    c.d_expert = r.whole("moe_intermediate_size", 1, max_config_size, 512);
    c.d_shared_expert = r.whole("shared_expert_intermediate_size", 1, max_config_size, 512);
    c.renormalise_chosen = r.flag("norm_topk_prob", true);
    c.sparse_layers = decoder::sparse_layers(r, c);
}

std::unique_ptr<Model> build_qwen3_next(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    return build_hybrid(c, std::move(weights), true, next_feed_forward);
}

} // namespace core::model
