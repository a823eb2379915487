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
// output is times sigmoid(a · shared_expert_gateᵀ). Its experts, each its own tensors on the Hub, read
// fused too, as transformers 5 holds them (arch/feed_forward.h).
//
// Qwen3.5 MoE (Qwen3_5MoeForCausalLM, model_type qwen3_5_moe_text, modeling_qwen3_5_moe.py) is
// Qwen3.5's layers with Qwen3-Next's mixture on every layer, its top k always renormalised; its Hub
// checkpoints fuse each layer's experts: mlp.experts.gate_up_proj (E, 2F, D), gate | up, and
// mlp.experts.down_proj (E, D, F), read in place (arch/feed_forward.h).
//
// Qwen3.5's multimodal directories (Qwen3_5ForConditionalGeneration, Qwen3_5MoeForConditionalGeneration)
// hold the text model's config in text_config and its tensors under "model.language_model."; the
// vision tower ("model.visual.") and the MTP block ("mtp.") are not read.
//
// llama.cpp's files (qwen35, qwen35moe, qwen3next; models/qwen35.cpp, qwen3next.cpp and the
// converter's Qwen3NextModel) differ from the Hub's as its converter wrote them: every RMSNorm but the
// linear layers' gated one holds 1 + w; ssm_a holds −exp(A_log); the conv kernel is (C, kernel);
// Qwen3-Next's in_proj_qkvz is split into attn_qkv and attn_gate (q | k | v) and in_proj_ba kept as
// ssm_ba; Qwen3.5's value heads are reordered (where there are more than key heads) so that value head
// h reads key head h mod Hk; the L2 norm of q and k is ggml's x / max(‖x‖, eps); every layer of the
// MoE files is a mixture with a shared expert, the chosen weights always renormalised; an MTP block
// after the trunk (nextn_predict_layers) is not run.
#include "core/model/arch/decoder.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/model/format/gguf_model.h"

#include <map>

namespace core::model {

namespace {

// What the hybrids read beyond every architecture: their linear layers' (the linear attention kind's)
// and their mixtures' (Qwen3-Next's, Qwen3.5 MoE's; none in Qwen3.5's dense model).
struct HybridFields : feed_forward::MixtureFields, LinearAttentionFields {};

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
void read_linear(const ConfigReader& r, const ModelConfig& c, HybridFields& h) {
    h.layers = linear_layers(r, c.layers);
    h.k_heads = r.whole("linear_num_key_heads", 1, 4096, 16);
    h.v_heads = r.whole("linear_num_value_heads", 1, 4096, 32);
    if (h.v_heads % h.k_heads != 0)
        r.fail("linear_num_key_heads", "(" + std::to_string(h.k_heads) + ") does not divide linear_num_value_heads (" +
                                           std::to_string(h.v_heads) + ")");
    h.d_k = r.whole("linear_key_head_dim", 1, 65536, 128);
    h.d_v = r.whole("linear_value_head_dim", 1, 65536, 128);
    h.kernel = r.whole("linear_conv_kernel_dim", 1, 64, 4);
}

// Where a file keeps the text model's tensors: "model." (layers under "model.layers."), or a
// multimodal directory's "model.language_model.".
struct Names {
    std::string model = "model.";
    std::string layers() const { return model + "layers."; }
};

// Layer l's full attention: q_proj (2·H·dh, D) with the gate, k_proj, v_proj, q_norm and k_norm (from
// the derived copies), o_proj.
decoder::Block full_block(const Weights& w, const Weights& derived, const ModelConfig& c, const Names& n, int l) {
    const std::int64_t D = c.d_model, Q = static_cast<std::int64_t>(c.heads) * c.d_head, KV = static_cast<std::int64_t>(c.kv_heads) * c.d_head;
    auto name = [&](const std::string& rest) { return layers::layer_name(n.layers(), l, rest); };
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

// The tensors made at load, in float32 under their own names: every RMSNorm's scale (1 + w from the
// Hub's w; a llama.cpp file holds 1 + w already) and, where a llama.cpp file keeps a mixture's
// shared-expert gate as a vector (D), that gate as the (1, D) row it is.
std::shared_ptr<Weights> derived_tensors(const Weights& w, const ModelConfig& c, const Names& n) {
    const HybridFields& h = c.own_as<HybridFields>();
    std::map<std::string, std::pair<Shape, std::vector<float>>> made;
    const float one = h.llama_cpp ? 0.0f : 1.0f;
    auto add = [&](const std::string& name, std::int64_t d) {
        const float* values = w.require(name, {d}).data();
        std::vector<float> scale(values, values + d);
        for (float& v : scale) v += one;
        made[name] = {{d}, std::move(scale)};
    };
    add(n.model + "norm.weight", c.d_model);
    for (int l = 0; l < c.layers; ++l) {
        auto name = [&](const std::string& rest) { return layers::layer_name(n.layers(), l, rest); };
        add(name("input_layernorm.weight"), c.d_model);
        add(name("post_attention_layernorm.weight"), c.d_model);
        const std::string gate = name("mlp.shared_expert_gate.weight");
        if (h.llama_cpp && h.sparse(l) && w.has(gate) && w.shape(gate).size() == 1) {
            const float* values = w.require(gate, {c.d_model}).data();
            made[gate] = {{1, c.d_model}, std::vector<float>(values, values + c.d_model)};
        }
        if (h.linear(l)) continue;
        add(name("self_attn.q_norm.weight"), c.d_head);
        add(name("self_attn.k_norm.weight"), c.d_head);
    }
    return Weights::from_memory(std::move(made), w.path());
}

// The sizes both configs share, with the class's defaults; rotary on a quarter of each head unless
// partial_rotary_factor (top level or in rope_parameters) says otherwise.
HybridFields& read_hybrid(const ConfigReader& r, ModelConfig& c, const decoder::Defaults& d) {
    decoder::read_common(r, c, d);
    if (!r.has("partial_rotary_factor")) c.rotary_dim = c.d_head / 4; // the classes' 0.25
    read_rope_parameters(r, c);
    c.attention_bias = c.o_bias = r.flag("attention_bias", false);
    c.sliding_window.assign(static_cast<std::size_t>(c.layers), 0);
    HybridFields& h = c.make_own<HybridFields>();
    read_linear(r, c, h);
    return h;
}

using FeedForwardOf = std::shared_ptr<const feed_forward::FeedForward> (*)(const Weights& w, const Weights& derived, const ModelConfig& c,
                                                                          const Names& n, int l);

// How the linear layers' tensors lie: the Hub's (Qwen3-Next's fused), or llama.cpp's.
gated_delta_net::Source linear_source(const Weights& w, const ModelConfig& c, const Names& n, bool next) {
    const HybridFields& h = c.own_as<HybridFields>();
    if (!h.llama_cpp) return {next, next, false, false};
    bool legacy = false; // llama.cpp's first qwen3next files kept Qwen3-Next's in_proj_qkvz whole (ssm_in)
    for (int l = 0; l < c.layers && !legacy; ++l) legacy = w.has(layers::layer_name(n.layers(), l, "linear_attn.in_proj_qkvz.weight"));
    return {legacy, next, true, !next};
}

std::unique_ptr<Model> build_hybrid(const ModelConfig& c, std::shared_ptr<const Weights> weights, const Names& n, bool next, FeedForwardOf ffn) {
    const HybridFields& h = c.own_as<HybridFields>();
    const std::shared_ptr<const Weights> derived = derived_tensors(*weights, c, n);
    const delta_rule::Shape shape{h.k_heads, h.v_heads, h.d_k, h.d_v};
    const gated_delta_net::Source source = linear_source(*weights, c, n, next);
    std::vector<decoder::Block> blocks;
    for (int l = 0; l < c.layers; ++l) {
        decoder::Block b;
        if (h.linear(l))
            b.linear = std::make_shared<gated_delta_net::Layer>(
                gated_delta_net::read(*weights, n.layers(), l, c.d_model, shape, h.kernel, static_cast<float>(c.norm_eps), source));
        else b = full_block(*weights, *derived, c, n, l);
        b.ln1 = &derived->require(layers::layer_name(n.layers(), l, "input_layernorm.weight"), {c.d_model});
        b.ln2 = &derived->require(layers::layer_name(n.layers(), l, "post_attention_layernorm.weight"), {c.d_model});
        b.ffn = ffn(*weights, *derived, c, n, l);
        blocks.push_back(std::move(b));
    }
    decoder::Parts parts;
    parts.embed = &weights->require(n.model + "embed_tokens.weight", {c.vocab, c.d_model});
    parts.blocks = std::move(blocks);
    parts.norm = &derived->require(n.model + "norm.weight", {c.d_model});
    parts.head = c.tie_word_embeddings ? parts.embed : &weights->require("lm_head.weight", {c.vocab, c.d_model});
    parts.derived = derived;
    return decoder::build(c, std::move(weights), std::move(parts));
}

// Qwen3.5's dense MLP of layer l.
std::shared_ptr<const feed_forward::FeedForward> dense_feed_forward(const Weights& w, const Weights&, const ModelConfig& c, const Names& n, int l) {
    return feed_forward::dense(w, layers::layer_name(n.layers(), l, "mlp."), c.d_model, c.d_ff, c.mlp_bias, layers::activation_of(c.activation));
}

// Qwen3-Next's (and Qwen3.5 MoE's) layer l: the mixture with its gated shared expert where the layer is
// sparse, else the dense MLP.
std::shared_ptr<const feed_forward::FeedForward> next_feed_forward(const Weights& w, const Weights& derived, const ModelConfig& c, const Names& n,
                                                                   int l) {
    const HybridFields& h = c.own_as<HybridFields>();
    if (!h.sparse(l)) return dense_feed_forward(w, derived, c, n, l);
    const std::string prefix = layers::layer_name(n.layers(), l, "mlp.");
    const feed_forward::RoutingRule& rule = feed_forward::routing_rule(h.renormalise_chosen ? "softmax_top_k_renormalised" : "softmax_top_k");
    const feed_forward::MixtureShape shape{c.d_model, h.d_expert, h.experts, h.experts_per_token, h.stacked_experts};
    const std::string gate = prefix + "shared_expert_gate.weight";
    return feed_forward::with_shared_expert(
        feed_forward::mixture(w, prefix, shape, rule, feed_forward::expert_activation("silu")),
        feed_forward::dense(w, prefix + "shared_expert.", c.d_model, h.d_shared_expert, false, ops::Activation::silu),
        (derived.has(gate) ? derived : w).require(gate, {1, c.d_model}));
}

// Which layers of a llama.cpp file are linear: attention.recurrent_layers (one bool per block, the MTP
// block's after the trunk's), else every layer but each full_attention_interval-th (4).
std::vector<bool> gguf_linear_layers(const GgufKeys& k, int layers, int blocks) {
    std::vector<bool> linear(static_cast<std::size_t>(layers));
    const gguf::Value* listed = gguf::find(k.file, k.key("attention.recurrent_layers"));
    if (listed && (listed->type != gguf::ValueType::array || listed->element != gguf::ValueType::boolean ||
                   static_cast<int>(listed->size()) != blocks))
        k.fail("attention.recurrent_layers", "is not a list of " + std::to_string(blocks) + " bools");
    const int every = k.whole("full_attention_interval", 1, 1 << 20, 4);
    for (int l = 0; l < layers; ++l) linear[static_cast<std::size_t>(l)] = listed ? listed->ints[static_cast<std::size_t>(l)] != 0 : (l + 1) % every != 0;
    return linear;
}

// The keys of llama.cpp's qwen35, qwen35moe and qwen3next files (models/qwen35.cpp, qwen3next.cpp):
// the linear layers' sizes under ssm.*, their value heads' width ssm.inner_size / ssm.time_step_rank.
HybridFields& read_gguf_hybrid_fields(const GgufKeys& k, ModelConfig& c) {
    HybridFields& h = c.make_own<HybridFields>();
    c.norm_eps = k.real("attention.layer_norm_rms_epsilon", 1e-30, 1.0, 1e-6);
    c.activation = "silu";
    h.llama_cpp = true;
    rotary::read_gguf_scaling(k, c);
    if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0) k.fail("rope.dimension_count", "is " + std::to_string(c.rotary_dim) + "; rotary positions rotate pairs");
    const int blocks = c.layers;
    c.layers -= k.whole("nextn_predict_layers", 0, blocks - 1, 0); // the MTP block after the trunk
    c.sliding_window.assign(static_cast<std::size_t>(c.layers), 0);
    h.kernel = k.whole("ssm.conv_kernel", 1, 64);
    h.d_k = k.whole("ssm.state_size", 1, 65536);
    h.k_heads = k.whole("ssm.group_count", 1, 4096);
    h.v_heads = k.whole("ssm.time_step_rank", 1, 4096);
    if (h.v_heads % h.k_heads != 0)
        k.fail("ssm.group_count", "(" + std::to_string(h.k_heads) + ") does not divide ssm.time_step_rank (" + std::to_string(h.v_heads) + ")");
    const int inner = k.whole("ssm.inner_size", 1, max_config_size);
    if (inner % h.v_heads != 0 || inner / h.v_heads != h.d_k)
        k.fail("ssm.inner_size", "is " + std::to_string(inner) + "; llama.cpp's linear layers have ssm.time_step_rank value heads of ssm.state_size (" +
                                     std::to_string(h.d_k) + ") each");
    h.d_v = h.d_k;
    h.layers = gguf_linear_layers(k, c.layers, blocks);
    return h;
}

void read_gguf_hybrid(const GgufKeys& k, ModelConfig& c) { read_gguf_hybrid_fields(k, c); }

// qwen35moe's and qwen3next's mixtures: every layer, the chosen weights renormalised, a shared expert.
void read_gguf_hybrid_mixture(const GgufKeys& k, ModelConfig& c) {
    HybridFields& h = read_gguf_hybrid_fields(k, c);
    h.experts = k.whole("expert_count", 1, 1 << 16);
    h.experts_per_token = k.whole("expert_used_count", 1, h.experts);
    h.d_expert = k.whole("expert_feed_forward_length", 1, max_config_size, c.d_ff / h.experts_per_token);
    h.d_shared_expert = k.whole("expert_shared_feed_forward_length", 1, max_config_size, c.d_ff);
    if (h.d_expert < 1 || h.d_shared_expert < 1) k.fail("expert_feed_forward_length", "is missing, and so is feed_forward_length");
    h.renormalise_chosen = true;
    h.sparse_layers.assign(static_cast<std::size_t>(c.layers), true);
    h.stacked_experts = true;
}

// The hybrids' tensor names in llama.cpp's files (llama-arch.cpp), as the Hub's names.
std::vector<GgufName> gguf_layer_names() {
    return gguf_names::with(gguf_names::with_experts(gguf_names::decoder_layer(), "mlp.gate"),
                            {{"post_attention_norm", "post_attention_layernorm"},
                             {"attn_qkv", "linear_attn.in_proj_qkv"},
                             {"attn_gate", "linear_attn.in_proj_z"},
                             {"ssm_in", "linear_attn.in_proj_qkvz"},
                             {"ssm_beta", "linear_attn.in_proj_b"},
                             {"ssm_alpha", "linear_attn.in_proj_a"},
                             {"ssm_ba", "linear_attn.in_proj_ba"},
                             {"ssm_beta_alpha", "linear_attn.in_proj_ba"},
                             {"ssm_conv1d", "linear_attn.conv1d"},
                             {"ssm_dt.bias", "linear_attn.dt_bias"},
                             {"ssm_a", "linear_attn.A"},
                             {"ssm_norm", "linear_attn.norm"},
                             {"ssm_out", "linear_attn.out_proj"},
                             {"ffn_gate_shexp", "mlp.shared_expert.gate_proj"},
                             {"ffn_up_shexp", "mlp.shared_expert.up_proj"},
                             {"ffn_down_shexp", "mlp.shared_expert.down_proj"},
                             {"ffn_gate_inp_shexp", "mlp.shared_expert_gate"}});
}

} // namespace

// Qwen3_5TextConfig's names and defaults.
void read_qwen3_5(const ConfigReader& r, ModelConfig& c) {
    read_hybrid(r, c, {{{"vocab_size", 248320}, {"hidden_size", 4096}, {"num_hidden_layers", 32}, {"num_attention_heads", 16}},
                       12288, 4, 256, 32768, 1e-6, false, true});
}

std::unique_ptr<Model> build_qwen3_5(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    return build_hybrid(c, std::move(weights), Names{}, false, dense_feed_forward);
}

namespace {

// A multimodal directory (Qwen3_5Config, Qwen3_5MoeConfig): its text model's fields are its
// text_config's, read by `read_text` (the vision tower's are not read); tie_word_embeddings may sit on
// either level.
void read_text_config(const ConfigReader& r, ModelConfig& c, void (*read_text)(const ConfigReader&, ModelConfig&)) {
    read_text(r.object("text_config"), c);
    if (!r.object("text_config").has("tie_word_embeddings")) c.tie_word_embeddings = r.flag("tie_word_embeddings", false);
    c.vision_tower_skipped = true;
}

// Its text model, under "model.language_model.".
std::unique_ptr<Model> build_text_model(const ModelConfig& c, std::shared_ptr<const Weights> weights, FeedForwardOf ffn) {
    return build_hybrid(c, std::move(weights), Names{"model.language_model."}, false, ffn);
}

} // namespace

void read_qwen3_5_multimodal(const ConfigReader& r, ModelConfig& c) { read_text_config(r, c, read_qwen3_5); }

std::unique_ptr<Model> build_qwen3_5_multimodal(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    return build_text_model(c, std::move(weights), dense_feed_forward);
}

const GgufLayout& qwen35_gguf() {
    static const GgufLayout layout{"qwen35", read_gguf_hybrid, "model.layers.", gguf_names::decoder_globals(), gguf_layer_names(), false};
    return layout;
}

// Qwen3_5MoeTextConfig's names and defaults: Qwen3NextConfig's, less intermediate_size,
// decoder_sparse_step, mlp_only_layers and norm_topk_prob, which it deletes. Every layer is a mixture
// with a gated shared expert, and Qwen3_5MoeTopKRouter always divides the top k by their sum.
void read_qwen3_5_moe(const ConfigReader& r, ModelConfig& c) {
    HybridFields& h = read_hybrid(r, c, {{{"vocab_size", 248320}, {"hidden_size", 2048}, {"num_hidden_layers", 40}, {"num_attention_heads", 16}},
                                         512, 2, 256, 32768, 1e-6, false, true});
    if (c.activation != "silu") r.fail("hidden_act", "is " + c.activation + "; attnviz runs the experts of Qwen3.5 MoE with silu");
    decoder::read_mixture(r, c, h, {256, 8, 512, 512, true});
    if (h.experts < 1) r.fail("num_experts", "is 0; every layer of Qwen3.5 MoE is a mixture");
    h.renormalise_chosen = true;
    h.sparse_layers.assign(static_cast<std::size_t>(c.layers), true);
}

std::unique_ptr<Model> build_qwen3_5_moe(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    return build_hybrid(c, std::move(weights), Names{}, false, next_feed_forward);
}

void read_qwen3_5_moe_multimodal(const ConfigReader& r, ModelConfig& c) { read_text_config(r, c, read_qwen3_5_moe); }

std::unique_ptr<Model> build_qwen3_5_moe_multimodal(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    return build_text_model(c, std::move(weights), next_feed_forward);
}

const GgufLayout& qwen35moe_gguf() {
    static const GgufLayout layout{"qwen35moe", read_gguf_hybrid_mixture, "model.layers.", gguf_names::decoder_globals(), gguf_layer_names(), false};
    return layout;
}

// Qwen3NextConfig's names and defaults.
void read_qwen3_next(const ConfigReader& r, ModelConfig& c) {
    HybridFields& h = read_hybrid(r, c, {{{"vocab_size", 151936}, {"hidden_size", 2048}, {"num_hidden_layers", 48}, {"num_attention_heads", 16}},
                                         5632, 2, 256, 32768, 1e-6, false, true});
    if (c.activation != "silu") r.fail("hidden_act", "is " + c.activation + "; attnviz runs the experts of Qwen3-Next with silu");
    decoder::read_mixture(r, c, h, {512, 10, 512, 512, true});
}

std::unique_ptr<Model> build_qwen3_next(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    return build_hybrid(c, std::move(weights), Names{}, true, next_feed_forward);
}

const GgufLayout& qwen3next_gguf() {
    static const GgufLayout layout{"qwen3next", read_gguf_hybrid_mixture, "model.layers.", gguf_names::decoder_globals(), gguf_layer_names(), false};
    return layout;
}

} // namespace core::model
