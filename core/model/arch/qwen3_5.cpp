// core/model/arch/qwen3_5.cpp — Qwen3.5's dense text model (Qwen3_5ForCausalLM, model_type
// qwen3_5_text), as transformers' modeling_qwen3_5.py runs it: a hybrid of
//   - linear attention layers, the Gated DeltaNet (arch/gated_delta_net.h), where layer_types says
//     "linear_attention" (without layer_types: every layer but each full_attention_interval-th);
//   - full attention layers: q_proj gives each head's q and an output gate (the context times
//     sigmoid(gate) before o_proj), q and k RMS-normed per head, rotary on the first
//     partial_rotary_factor · head_dim dims of each head (rope_parameters, or the top-level keys).
// Every RMSNorm of the model (the layers' two, q_norm, k_norm, model.norm) scales by 1 + weight, in
// float32; the linear layers' gated norm by weight itself. The MLP is the Llama family's.
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

} // namespace

// Qwen3_5TextConfig's names and defaults.
void read_qwen3_5(const ConfigReader& r, ModelConfig& c) {
    decoder::read_common(r, c, {{{"vocab_size", 248320}, {"hidden_size", 4096}, {"num_hidden_layers", 32}, {"num_attention_heads", 16}},
                                12288, 4, 256, 32768, 1e-6, false, true});
    if (!r.has("partial_rotary_factor")) c.rotary_dim = c.d_head / 4; // the class's 0.25
    read_rope_parameters(r, c);
    c.attention_bias = c.o_bias = r.flag("attention_bias", false);
    c.sliding_window.assign(static_cast<std::size_t>(c.layers), 0);
    read_linear(r, c);
}

std::unique_ptr<Model> build_qwen3_5(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    const std::shared_ptr<const Weights> derived = norms_plus_one(*weights, c);
    const delta_rule::Shape shape{c.linear_k_heads, c.linear_v_heads, c.linear_d_k, c.linear_d_v};
    std::vector<decoder::Block> blocks;
    for (int l = 0; l < c.layers; ++l) {
        decoder::Block b;
        if (c.linear_layers[static_cast<std::size_t>(l)])
            b.linear = std::make_shared<gated_delta_net::Layer>(
                gated_delta_net::read(*weights, l, c.d_model, shape, c.linear_kernel, static_cast<float>(c.norm_eps), false));
        else b = full_block(*weights, *derived, c, l);
        b.ln1 = &derived->require(layers::layer_name("model.layers.", l, "input_layernorm.weight"), {c.d_model});
        b.ln2 = &derived->require(layers::layer_name("model.layers.", l, "post_attention_layernorm.weight"), {c.d_model});
        b.ffn = decoder::dense_mlp(*weights, c, l);
        blocks.push_back(std::move(b));
    }
    decoder::Parts parts = decoder::around(*weights, c, std::move(blocks));
    parts.norm = &derived->require("model.norm.weight", {c.d_model});
    parts.derived = derived;
    return decoder::build(c, std::move(weights), std::move(parts));
}

} // namespace core::model
