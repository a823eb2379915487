// core/model/arch/gemma.cpp — the Gemma 2 / Gemma 3 decoder (gemma.h).
#include "core/model/arch/gemma.h"

#include "core/model/arch/gguf_names.h"
#include "core/model/arch/head_slices.h"
#include "core/model/arch/layers.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/model/format/config_reader.h"
#include "core/model/format/gguf_model.h"

#include <cmath>

namespace core::model {
namespace gemma {

namespace {

using layers::Layout;
using Tensor = Weights::Tensor;

// Gemma's RMSNorm multiplies by (1 + weight), added in float32 as the modeling file does (a GGUF
// file holds 1 + weight already: c.norms_plus_one).
struct Norm {
    std::vector<float> scale; // (d)
    Norm() = default;
    Norm(const Tensor& w, const ModelConfig& c) : scale(static_cast<std::size_t>(w.count())) {
        const float one = c.norms_plus_one ? 0.0f : 1.0f;
        for (std::size_t i = 0; i < scale.size(); ++i) scale[i] = one + w.data()[i];
    }
    // y (rows, d) = x / √(mean(x²) + eps) · (1 + w); x and y may be the same.
    void apply(const float* x, float* y, int rows, float eps) const {
        ops::active().rms_norm(x, y, rows, static_cast<int>(scale.size()), scale.data(), eps);
    }
};

struct Block {
    Norm input, post_attention, pre_feedforward, post_feedforward;
    const Tensor *q_w, *k_w, *v_w, *o_w, *gate_w, *up_w, *down_w;
    const Tensor *q_b = nullptr, *k_b = nullptr, *v_b = nullptr, *o_b = nullptr; // with attention_bias
    std::vector<Norm> qk = {};                                                     // q_norm, k_norm (Gemma 3)
};

class Gemma final : public layers::LayerStack {
public:
    Gemma(const ModelConfig& c, std::shared_ptr<const Weights> w, const Options& o);

private:
    void embed(const std::vector<int>& ids, int past, MatrixF& x) const override;
    void layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const override;
    FinalNorm final_norm() const override;
    Block block(int l, const Options& o) const;
    const Fields& own() const { return config().own_as<Fields>(); }
    void attention(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const;
    void mlp(const Block& b, int l, MatrixF& x, const ForwardOptions& o) const;
    LayerAttention attention_weights(int l) const override;
    AttentionKind attention_kind(int l) const override;

    std::shared_ptr<const Weights> w_;
    std::string prefix_;
    std::vector<float> global_freq_, local_freq_; // (d_head / 2) the rotary inv_freq of full and sliding layers
    float normalizer_; // √hidden_size in float32
    const Tensor* embed_;
    std::vector<Block> blocks_;
    Norm final_norm_;
};

Gemma::Gemma(const ModelConfig& c, std::shared_ptr<const Weights> w, const Options& o)
    : LayerStack(c), w_(std::move(w)), prefix_(o.prefix), global_freq_(rotary::inverse_frequencies(c.rope_theta, c.d_head, c.rope_scaling)),
      local_freq_(c.own_as<Fields>().rope_local_base_freq > 0
                      ? rotary::inverse_frequencies(c.own_as<Fields>().rope_local_base_freq, c.d_head, RopeScaling{})
                      : global_freq_),
      normalizer_(static_cast<float>(std::sqrt(static_cast<double>(c.d_model)))) {
    embed_ = &w_->require(prefix_ + "embed_tokens.weight", {c.vocab, c.d_model});
    for (int l = 0; l < c.layers; ++l) blocks_.push_back(block(l, o));
    final_norm_ = Norm(w_->require(prefix_ + "norm.weight", {c.d_model}), c);
    head_ = c.tie_word_embeddings ? embed_ : &w_->require("lm_head.weight", {c.vocab, c.d_model});
    head_softcap_ = static_cast<float>(own().final_logit_softcapping);
}

// The layer's window and rotary positions as every model's, with Gemma 2's soft-cap of the scores.
AttentionKind Gemma::attention_kind(int l) const {
    AttentionKind kind = LayerStack::attention_kind(l);
    kind.softcap = static_cast<float>(own().attn_logit_softcapping);
    return kind;
}

Block Gemma::block(int l, const Options& o) const {
    const ModelConfig& c = config();
    const std::int64_t D = c.d_model, F = c.d_ff, Q = static_cast<std::int64_t>(c.heads) * c.d_head,
                       KV = static_cast<std::int64_t>(c.kv_heads) * c.d_head;
    auto get = [&](const std::string& rest, const Shape& shape) -> const Tensor& {
        return w_->require(layers::layer_name(prefix_ + "layers.", l, rest), shape);
    };
    auto norm = [&](const std::string& rest, std::int64_t d) { return Norm(get(rest, {d}), c); };
    Block b{norm("input_layernorm.weight", D), norm("post_attention_layernorm.weight", D),
            norm("pre_feedforward_layernorm.weight", D), norm("post_feedforward_layernorm.weight", D),
            &get("self_attn.q_proj.weight", {Q, D}), &get("self_attn.k_proj.weight", {KV, D}),
            &get("self_attn.v_proj.weight", {KV, D}), &get("self_attn.o_proj.weight", {D, Q}),
            &get("mlp.gate_proj.weight", {F, D}), &get("mlp.up_proj.weight", {F, D}), &get("mlp.down_proj.weight", {D, F})};
    if (c.attention_bias) {
        b.q_b = &get("self_attn.q_proj.bias", {Q});
        b.k_b = &get("self_attn.k_proj.bias", {KV});
        b.v_b = &get("self_attn.v_proj.bias", {KV});
        b.o_b = &get("self_attn.o_proj.bias", {D});
    }
    if (o.qk_norm) {
        b.qk.push_back(norm("self_attn.q_norm.weight", c.d_head));
        b.qk.push_back(norm("self_attn.k_norm.weight", c.d_head));
    }
    return b;
}

// Gemma's norms scale by 1 + w: a NormWeights of kind rms with that scale.
NormWeights rms(const Norm& n, float eps) { return {NormWeights::Kind::rms, n.scale, {}, eps}; }

LayerAttention Gemma::attention_weights(int l) const {
    const ModelConfig& c = config();
    const Block& b = blocks_[static_cast<std::size_t>(l)];
    const float eps = static_cast<float>(c.norm_eps);
    LayerAttention a = head_slices::heads_of(c, {b.q_w, b.k_w, b.v_w, b.o_w, b.q_b, b.k_b, b.v_b, Layout::out_in});
    a.norm = rms(b.input, eps);
    a.gamma = a.norm.scale;
    if (!b.qk.empty()) {
        a.q_norm = rms(b.qk[0], eps);
        a.k_norm = rms(b.qk[1], eps);
    }
    a.window = c.sliding_window[static_cast<std::size_t>(l)];
    a.rotation = head_slices::rotation(a.window > 0 ? local_freq_ : global_freq_, c.d_head);
    a.score_scale = static_cast<float>(score_scale(c, l));
    a.softcap = attention_kind(l).softcap;
    return a;
}

void Gemma::attention(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model, Q = c.heads * c.d_head, KV = c.kv_heads * c.d_head;
    const float eps = static_cast<float>(c.norm_eps);
    MatrixF a(t, D);                                                                   // (t, D)
    b.input.apply(x.data(), a.data(), t, eps);
    MatrixF q(t, Q), k(t, KV), v(t, KV);                                               // (t, H·dh), (t, Hkv·dh)
    layers::project(a.data(), t, D, Q, *b.q_w, Layout::out_in, b.q_b, q.data());
    layers::project(a.data(), t, D, KV, *b.k_w, Layout::out_in, b.k_b, k.data());
    layers::project(a.data(), t, D, KV, *b.v_w, Layout::out_in, b.v_b, v.data());
    if (!b.qk.empty()) { // each head's row of d_head values
        b.qk[0].apply(q.data(), q.data(), t * c.heads, eps);
        b.qk[1].apply(k.data(), k.data(), t * c.kv_heads, eps);
    }
    const int window = c.sliding_window[static_cast<std::size_t>(l)];
    const std::vector<float>& freq = window > 0 ? local_freq_ : global_freq_;
    for (int c0 = 0; c0 < t; c0 += r.t_new) { // each copy's positions
        rotary::rotate(q.data() + static_cast<std::ptrdiff_t>(c0) * Q, Q, r.t_new, c.heads, c.d_head, cache.length, freq);
        rotary::rotate(k.data() + static_cast<std::ptrdiff_t>(c0) * KV, KV, r.t_new, c.kv_heads, c.d_head, cache.length, freq);
    }
    layers::append_kv(cache, l, k.data(), KV, v.data(), KV, t);
    const float scale = static_cast<float>(score_scale(c, l));
    MatrixF out = MatrixF::Zero(t, D);                                                 // (t, D) the heads' output
    const std::size_t first = o.record ? o.record->parts.size() : 0;
    layers::heads_into_stream({q.data(), Q, l, c.heads, c.kv_heads, c.d_head, true, window, scale, attention_kind(l).softcap},
                              cache, o, r, *b.o_w, Layout::out_in, b.o_b, out);
    if (layers::recording(o, l)) layers::freeze_norm(o, first, out, b.post_attention.scale.data(), nullptr, eps, false);
    b.post_attention.apply(out.data(), out.data(), t, eps);
    x += out;
}

void Gemma::mlp(const Block& b, int l, MatrixF& x, const ForwardOptions& o) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model, F = c.d_ff;
    const float eps = static_cast<float>(c.norm_eps);
    MatrixF a(t, D);                                                                   // (t, D)
    b.pre_feedforward.apply(x.data(), a.data(), t, eps);
    MatrixF gate(t, F), up(t, F);                                                      // (t, F)
    layers::project(a.data(), t, D, F, *b.gate_w, Layout::out_in, nullptr, gate.data());
    layers::project(a.data(), t, D, F, *b.up_w, Layout::out_in, nullptr, up.data());
    layers::gated_rows(gate, up, layers::activation_of(c.activation));
    layers::project(gate.data(), t, F, D, *b.down_w, Layout::out_in, nullptr, a.data());
    b.post_feedforward.apply(a.data(), a.data(), t, eps);
    x += a;
    if (layers::recording(o, l)) layers::record(o, mlp_part(l), std::move(a));
}

void Gemma::embed(const std::vector<int>& ids, int, MatrixF& x) const {
    const int D = config().d_model;
    for (int i = 0; i < static_cast<int>(ids.size()); ++i) {
        embed_->rows(ids[static_cast<std::size_t>(i)], 1, x.data() + static_cast<std::ptrdiff_t>(i) * D);
        x.row(i) *= normalizer_;
    }
}

void Gemma::layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const Block& b = blocks_[static_cast<std::size_t>(l)];
    attention(b, l, x, cache, o, r);
    layers::position_wise(o, l, config().layers, r.t_new, x, [&](MatrixF& rows) { mlp(b, l, rows, o); });
}

Model::FinalNorm Gemma::final_norm() const { return {false, final_norm_.scale.data(), nullptr, static_cast<float>(config().norm_eps)}; }

// Which layers slide: `layer_types` where given, else Gemma 2's every other layer from the first,
// or Gemma 3's all but every sliding_window_pattern-th.
std::vector<int> read_windows(const ConfigReader& r, int layers, Version v) {
    const int w = r.whole("sliding_window", 1, 1LL << 30, 4096);
    const int pattern = v == Version::gemma2 ? 2 : r.whole("sliding_window_pattern", 1, 1 << 20, 6);
    std::vector<int> window(static_cast<std::size_t>(layers), 0);
    const nlohmann::json* types = r.has("layer_types") ? &r.j.at("layer_types") : nullptr;
    if (types && (!types->is_array() || types->size() != window.size()))
        r.fail("layer_types", "is not a list of " + std::to_string(layers) + " layer types");
    for (int l = 0; l < layers; ++l) {
        bool sliding = (l + 1) % pattern != 0;
        if (types) {
            const nlohmann::json& t = types->at(static_cast<std::size_t>(l));
            if (t != "sliding_attention" && t != "full_attention")
                r.fail("layer_types", "names " + t.dump() + "; attnviz runs \"sliding_attention\" and \"full_attention\"");
            sliding = t == "sliding_attention";
        }
        window[static_cast<std::size_t>(l)] = sliding ? w : 0;
    }
    return window;
}

// A soft-cap: absent gives the class's default, null gives none (0).
double read_softcap(const ConfigReader& r, const char* key, double fallback) {
    if (r.j.contains(key) && r.j.at(key).is_null()) return 0.0;
    return r.real(key, 1e-6, 1e9, fallback);
}

} // namespace

void read_text_config(const ConfigReader& r, ModelConfig& c, Version v) {
    const bool two = v == Version::gemma2;
    read_sizes(r, c, {{"vocab_size", two ? 256000 : 262208}, {"hidden_size", 2304}, {"num_hidden_layers", 26}, {"num_attention_heads", 8}});
    c.d_ff = r.whole("intermediate_size", 1, max_config_size, 9216);
    c.kv_heads = r.whole("num_key_value_heads", 1, 4096, 4);
    if (c.heads % c.kv_heads != 0)
        r.fail("num_key_value_heads", "(" + std::to_string(c.kv_heads) + ") does not divide num_attention_heads (" + std::to_string(c.heads) + ")");
    c.d_head = c.rotary_dim = r.whole("head_dim", 2, 65536, 256);
    if (c.d_head % 2 != 0) r.fail("head_dim", "is odd (" + std::to_string(c.d_head) + "); rotary positions rotate pairs");
    c.context = r.whole("max_position_embeddings", 1, 1 << 30, two ? 8192 : 131072);
    c.norm_eps = r.real("rms_norm_eps", 1e-30, 1.0, 1e-6);
    c.activation = r.activation("hidden_activation", "gelu_pytorch_tanh");
    c.rope_theta = r.real("rope_theta", 1e-6, 1e15, two ? 10000.0 : 1000000.0);
    c.rope_scaling = rotary::read_scaling(r, c.rotary_dim);
    if (c.rope_scaling.type == "longrope") // its attention factor and reach are the Phi-3 decoder's
        r.fail("rope_scaling", "has type \"longrope\"; Gemma runs the default rotary positions, \"linear\" and \"llama3\"");
    auto own = std::make_shared<Fields>();
    own->rope_local_base_freq = two ? 0.0 : r.real("rope_local_base_freq", 1e-6, 1e15, 10000.0);
    own->query_pre_attn_scalar = r.real("query_pre_attn_scalar", 1e-6, 1e12, 256.0);
    own->attn_logit_softcapping = two ? read_softcap(r, "attn_logit_softcapping", 50.0) : 0.0; // Gemma 3 applies none
    own->final_logit_softcapping = read_softcap(r, "final_logit_softcapping", two ? 30.0 : 0.0);
    c.own = own;
    c.tie_word_embeddings = r.flag("tie_word_embeddings", true);
    c.attention_bias = c.o_bias = r.flag("attention_bias", false);
    if (r.flag("use_bidirectional_attention", false)) r.fail("use_bidirectional_attention", "is true; attnviz runs Gemma's causal decoder");
    c.sliding_window = read_windows(r, c.layers, v);
}

std::unique_ptr<Model> build(const ModelConfig& config, std::shared_ptr<const Weights> weights, const Options& options) {
    return std::make_unique<Gemma>(config, std::move(weights), options);
}

namespace {

// Which layers slide: attention.sliding_window_pattern's list where the file has one, else
// llama.cpp's pattern (Gemma 2 every other layer from the first, Gemma 3 all but every sixth).
std::vector<int> gguf_windows(const GgufKeys& k, const ModelConfig& c, Version v) {
    const int w = k.whole("attention.sliding_window", 1, 1LL << 30);
    std::vector<int> window(static_cast<std::size_t>(c.layers), 0);
    const gguf::Value* pattern = gguf::find(k.file, k.key("attention.sliding_window_pattern"));
    if (pattern && (pattern->type != gguf::ValueType::array || pattern->element != gguf::ValueType::boolean ||
                    pattern->size() != window.size()))
        k.fail("attention.sliding_window_pattern", "is not a list of " + std::to_string(c.layers) + " bools");
    const int every = v == Version::gemma2 ? 2 : 6;
    for (int l = 0; l < c.layers; ++l) {
        const bool sliding = pattern ? pattern->ints[static_cast<std::size_t>(l)] != 0 : (l + 1) % every != 0;
        window[static_cast<std::size_t>(l)] = sliding ? w : 0;
    }
    return window;
}

} // namespace

void read_gguf(const GgufKeys& k, ModelConfig& c, Version v) {
    const bool two = v == Version::gemma2;
    c.norm_eps = k.real("attention.layer_norm_rms_epsilon", 1e-30, 1.0, 1e-6);
    c.activation = "gelu_pytorch_tanh";
    c.rotary_dim = c.d_head;
    c.rope_theta = k.real("rope.freq_base", 1e-6, 1e15, two ? 10000.0 : 1000000.0);
    rotary::read_gguf_scaling(k, c);
    if (c.rope_scaling.type == "longrope") k.fail("rope.scaling.type", "gives longrope factors; Gemma runs none and linear");
    auto own = std::make_shared<Fields>();
    own->rope_local_base_freq = two ? 0.0 : k.real("rope.freq_base_swa", 1e-6, 1e15, 10000.0);
    // llama.cpp's score scale: 1/√(hidden / heads) for the 27B models (46 and 62 layers), else 1/√head_dim.
    const bool large = c.layers == (two ? 46 : 62);
    own->query_pre_attn_scalar = large ? static_cast<double>(c.d_model) / c.heads : c.d_head;
    own->attn_logit_softcapping = two ? k.real("attn_logit_softcapping", 0.0, 1e9, 50.0) : 0.0;
    own->final_logit_softcapping = k.real("final_logit_softcapping", 0.0, 1e9, two ? 30.0 : 0.0);
    c.own = own;
    c.attention_bias = c.o_bias = k.has_tensor("blk.0.attn_q.bias");
    c.norms_plus_one = true;
    c.sliding_window = gguf_windows(k, c, v);
}

std::vector<GgufName> gguf_layer_names() {
    return gguf_names::with(gguf_names::decoder_layer(), {{"ffn_norm", "pre_feedforward_layernorm"},
                                                           {"post_attention_norm", "post_attention_layernorm"},
                                                           {"post_ffw_norm", "post_feedforward_layernorm"}});
}

} // namespace gemma

double gemma_score_scale(const ModelConfig& c, int) { return 1.0 / std::sqrt(c.own_as<gemma::Fields>().query_pre_attn_scalar); }

} // namespace core::model
