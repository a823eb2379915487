// core/model/arch/decoder.cpp — the shared decoder layer (decoder.h).
#include "core/model/arch/decoder.h"

#include "core/model/arch/head_slices.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/parallel.h"

#include <optional>

namespace core::model::decoder {

namespace {

using layers::Layout;

// x (t, D) += RMSNorm(out) · w, out (t, D) being what `write` adds to zeros: OLMo 2's norms of the
// attention's and the MLP's outputs. A recorded layer's parts that `write` records are frozen at
// out's scale, so that they still sum to what reaches the stream.
void post_normed(const ForwardOptions& o, int l, float eps, MatrixF& x, const Weights::Tensor& w, const std::function<void(MatrixF&)>& write) {
    const std::size_t first = layers::recording(o, l) ? o.record->parts.size() : 0;
    MatrixF out = MatrixF::Zero(x.rows(), x.cols()); // (t, D)
    write(out);
    if (layers::recording(o, l)) layers::freeze_norm(o, first, out, w.data(), nullptr, eps, false);
    ops::active().rms_norm(out.data(), out.data(), static_cast<int>(out.rows()), static_cast<int>(out.cols()), w.data(), eps);
    x += out;
}

// From this many new positions on, a linear layer's maps keep its input rather than its q and k
// where the input is the smaller (Decoder::linear_source); shorter runs keep q and k, which a view
// reads without projecting again.
constexpr int compact_linear_from = 1024;

// A linear layer's head scores and thumbnails (where the forward asks for them), from each head's M
// streamed in blocks of AttentionMaps::block rows, the heads shared between the cores; entropy has no
// meaning for signed rows and is left out.
struct LinearViews {
    const gated_delta_net::Projected* p;
    const delta_rule::Shape* shape;
    const ForwardOptions* o;
    ForwardResult* r;
    int layer;
    static void head(void* context, std::ptrdiff_t task) {
        const LinearViews& v = *static_cast<const LinearViews*>(context);
        const int h = static_cast<int>(task), side = v.r->thumbnail_side;
        const std::size_t at = static_cast<std::size_t>(v.layer) * static_cast<std::size_t>(v.r->heads) + static_cast<std::size_t>(h);
        std::optional<core::heads::ScoreRows> score;
        if (v.o->scores) score.emplace(*v.o->scores);
        float* thumbnail = side ? v.r->thumbnails.data() + at * static_cast<std::size_t>(side) * static_cast<std::size_t>(side) : nullptr;
        const int t = v.r->t_new;
        delta_rule::matrix_blocks(v.p->inputs(), *v.shape, h, [&](int i0, int i1, const float* rows) {
            if (score) score->add(rows, i0, i1, t);
            if (thumbnail) thumbnail_rows(rows, i0, i1, t, side, thumbnail);
        });
        if (score) v.r->scores[at] = score->finish(nullptr);
        if (thumbnail) thumbnail_finish(thumbnail, side);
    }
};

class Decoder final : public layers::LayerStack {
public:
    Decoder(const ModelConfig& c, std::shared_ptr<const Weights> w, Parts parts)
        : LayerStack(c), w_(std::move(w)), parts_(std::move(parts)),
          inv_freq_(rotary::inverse_frequencies(c.rope_theta, c.rotary_dim, c.rope_scaling)),
          rope_scale_(static_cast<float>(c.rope_scaling.attention_factor)) {
        if (parts_.unscaled_rope_on_windows) window_inv_freq_ = rotary::inverse_frequencies(c.rope_theta, c.rotary_dim, RopeScaling{});
        head_ = parts_.head;
        for (int l = 0; l < c.layers; ++l) scales_.push_back(static_cast<float>(score_scale(c, l)));
    }

private:
    void embed(const std::vector<int>& ids, int past, MatrixF& x) const override;
    void layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const override;
    FinalNorm final_norm() const override;
    void project_qkv(const Block& b, const MatrixF& a, MatrixF& q, MatrixF& k, MatrixF& v, MatrixF& gate) const;
    void linear_attention(const Block& b, int l, const MatrixF& a, KvCache& cache, const ForwardOptions& o, ForwardResult& r, MatrixF& x) const;
    std::shared_ptr<const AttentionMaps::LinearSource> linear_source(const Block& b, const MatrixF& a, const ForwardOptions& o) const;
    void attention(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const;
    // x (t, D) += the layer's feed-forward of RMSNorm(x); a mixture's routing appended to `routing` (or null).
    void mlp(const Block& b, int l, MatrixF& x, const ForwardOptions& o, LayerRouting* routing) const;
    LayerRouting* routing_of(const Block& b, int l, const ForwardOptions& o, ForwardResult& r) const;
    LayerAttention attention_weights(int l) const override;
    AttentionKind attention_kind(int l) const override;
    int experts(int l) const override {
        const feed_forward::Mixture* m = l >= 0 && l < config().layers ? parts_.blocks[static_cast<std::size_t>(l)].ffn->mixture() : nullptr;
        return m ? m->experts() : 0;
    }
    void norm_qk(const Block& b, MatrixF& q, MatrixF& k) const;
    const std::vector<float>& frequencies(const AttentionKind& kind) const;
    float rotation_scale(const AttentionKind& kind) const;

    std::shared_ptr<const Weights> w_;
    Parts parts_;
    std::vector<float> inv_freq_; // (rotary_dim / 2)
    std::vector<float> window_inv_freq_; // (rotary_dim / 2) the windowed layers' where unscaled (OLMo 3)
    float rope_scale_;            // cos and sin times this (longrope's and YaRN's attention factor)
    std::vector<float> scales_;   // per layer, the factor of q·k
};

// q (t, H·dh), k and v (t, Hkv·dh) from a (t, D): three products, or one fused product split;
// with b.q_gate, q_proj's rows per head [q dh | gate dh] split into q and gate (t, H·dh).
void Decoder::project_qkv(const Block& b, const MatrixF& a, MatrixF& q, MatrixF& k, MatrixF& v, MatrixF& gate) const {
    const int t = static_cast<int>(a.rows()), D = static_cast<int>(a.cols());
    const int Q = static_cast<int>(q.cols()), KV = static_cast<int>(k.cols()), dh = config().d_head;
    if (b.q_gate) {
        MatrixF both(t, 2 * Q); // (t, H·2dh)
        layers::project(a.data(), t, D, 2 * Q, *b.q_w, Layout::out_in, b.q_b, both.data());
        gate.resize(t, Q);
        for (int h = 0; h < Q / dh; ++h) {
            q.middleCols(h * dh, dh) = both.middleCols(2 * h * dh, dh);
            gate.middleCols(h * dh, dh) = both.middleCols(2 * h * dh + dh, dh);
        }
    }
    if (!b.qkv_w) {
        if (!b.q_gate) layers::project(a.data(), t, D, Q, *b.q_w, Layout::out_in, b.q_b, q.data());
        layers::project(a.data(), t, D, KV, *b.k_w, Layout::out_in, b.k_b, k.data());
        layers::project(a.data(), t, D, KV, *b.v_w, Layout::out_in, b.v_b, v.data());
        return;
    }
    MatrixF qkv(t, Q + 2 * KV); // (t, (H + 2·Hkv)·dh)
    layers::project(a.data(), t, D, Q + 2 * KV, *b.qkv_w, Layout::out_in, nullptr, qkv.data());
    q = qkv.leftCols(Q);
    k = qkv.middleCols(Q, KV);
    v = qkv.rightCols(KV);
}

// Phi-3's fused qkv_proj has q, k and v at outputs 0, H·dh and (H + Hkv)·dh.
LayerAttention Decoder::attention_weights(int l) const {
    const ModelConfig& c = config();
    const Block& b = parts_.blocks[static_cast<std::size_t>(l)];
    if (b.linear || b.q_gate) throw InputError("the circuits do not read the weights of " + c.architecture + "'s gated and linear layers yet");
    const std::int64_t Q = static_cast<std::int64_t>(c.heads) * c.d_head, KV = static_cast<std::int64_t>(c.kv_heads) * c.d_head;
    const head_slices::Projections fused{b.qkv_w, b.qkv_w, b.qkv_w, b.o_w, nullptr, nullptr, nullptr, Layout::out_in, 0, Q, Q + KV};
    LayerAttention a = head_slices::heads_of(c, b.qkv_w ? fused : head_slices::Projections{b.q_w, b.k_w, b.v_w, b.o_w, b.q_b, b.k_b, b.v_b, Layout::out_in});
    if (b.ln1) a.norm = head_slices::norm(NormWeights::Kind::rms, *b.ln1, nullptr, c.norm_eps);
    a.gamma = b.ln1 ? a.norm.scale : std::vector<float>(static_cast<std::size_t>(c.d_model), 1.0f);
    if (b.q_norm) {
        a.q_norm = head_slices::norm(NormWeights::Kind::rms, *b.q_norm, nullptr, c.norm_eps);
        a.k_norm = head_slices::norm(NormWeights::Kind::rms, *b.k_norm, nullptr, c.norm_eps);
        a.q_norm.whole = a.k_norm.whole = b.qk_norm_whole;
    }
    AttentionKind kind = attention_kind(l);
    if (kind.rope) a.rotation = head_slices::rotation(frequencies(kind), c.d_head, rotation_scale(kind));
    a.score_scale = scales_[static_cast<std::size_t>(l)];
    a.window = kind.window;
    a.sinks = std::move(kind.sinks);
    return a;
}

// Qwen3 norms each head's dh values on their own, rows of (t·H, dh) and (t·Hkv, dh); OLMo 2 each
// position's whole row, (t, H·dh) and (t, Hkv·dh).
void Decoder::norm_qk(const Block& b, MatrixF& q, MatrixF& k) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(q.rows());
    const float eps = static_cast<float>(c.norm_eps);
    const int q_rows = b.qk_norm_whole ? t : t * c.heads, k_rows = b.qk_norm_whole ? t : t * c.kv_heads;
    ops::active().rms_norm(q.data(), q.data(), q_rows, static_cast<int>(q.size()) / q_rows, b.q_norm->data(), eps);
    ops::active().rms_norm(k.data(), k.data(), k_rows, static_cast<int>(k.size()) / k_rows, b.k_norm->data(), eps);
}

// OLMo 3 turns its windowed layers with the unscaled frequencies (cos and sin unscaled too), its
// full layers with the scaled.
const std::vector<float>& Decoder::frequencies(const AttentionKind& kind) const {
    return kind.window && parts_.unscaled_rope_on_windows ? window_inv_freq_ : inv_freq_;
}

float Decoder::rotation_scale(const AttentionKind& kind) const { return kind.window && parts_.unscaled_rope_on_windows ? 1.0f : rope_scale_; }

AttentionKind Decoder::attention_kind(int l) const {
    AttentionKind kind = Model::attention_kind(l);
    const Block& b = parts_.blocks[static_cast<std::size_t>(l)];
    if (b.sinks) kind.sinks = head_slices::values(*b.sinks);
    return kind;
}

void Decoder::attention(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model, Q = c.heads * c.d_head, KV = c.kv_heads * c.d_head;
    const int past = cache.length;
    MatrixF a(t, D);                                                                   // (t, D)
    if (b.ln1) ops::active().rms_norm(x.data(), a.data(), t, D, b.ln1->data(), static_cast<float>(c.norm_eps));
    else a = x;
    if (b.linear) return linear_attention(b, l, a, cache, o, r, x);
    MatrixF q(t, Q), k(t, KV), v(t, KV), gate;                                         // (t, H·dh), (t, Hkv·dh), (t, H·dh)
    project_qkv(b, a, q, k, v, gate);
    if (b.q_norm) norm_qk(b, q, k);
    const AttentionKind& kind = r.kinds[static_cast<std::size_t>(l)];
    const std::vector<float>& freq = frequencies(kind);
    const float scale = rotation_scale(kind);
    for (int c0 = 0; kind.rope && c0 < t; c0 += r.t_new) { // each copy's positions
        rotary::rotate(q.data() + static_cast<std::ptrdiff_t>(c0) * Q, Q, r.t_new, c.heads, c.d_head, past, freq, scale);
        rotary::rotate(k.data() + static_cast<std::ptrdiff_t>(c0) * KV, KV, r.t_new, c.kv_heads, c.d_head, past, freq, scale);
    }
    layers::append_kv(cache, l, k.data(), KV, v.data(), KV, t);
    const layers::HeadsArgs heads{q.data(), Q, l, c.heads, c.kv_heads, c.d_head, true, kind.window, scales_[static_cast<std::size_t>(l)],
                                  0.0f, kind.learned_sink() ? kind.sinks.data() : nullptr, b.q_gate ? gate.data() : nullptr};
    if (!b.post_attn_norm) return layers::heads_into_stream(heads, cache, o, r, *b.o_w, Layout::out_in, b.o_b, x);
    post_normed(o, l, static_cast<float>(c.norm_eps), x, *b.post_attn_norm,
                [&](MatrixF& out) { layers::heads_into_stream(heads, cache, o, r, *b.o_w, Layout::out_in, b.o_b, out); });
}

// A continued run's kept q, k, β and g (and its values, with `values`) after those of the positions before it,
// so that M's rows and the state are rebuilt from position 0.
void continue_kept(AttentionMaps::Layer& kept, const LinearState& from, bool values) {
    kept.q.insert(kept.q.begin(), from.q.begin(), from.q.end());
    kept.k.insert(kept.k.begin(), from.k.begin(), from.k.end());
    kept.beta.insert(kept.beta.begin(), from.beta.begin(), from.beta.end());
    kept.g.insert(kept.g.begin(), from.g.begin(), from.g.end());
    if (values) kept.v.insert(kept.v.begin(), from.v.begin(), from.v.end());
    else kept.v.clear(); // the new positions' alone give no state
}

// A linear layer continues a cached sequence from its state (the convolution's last inputs, each
// head's S) and leaves the new state pending until the run succeeds; a kept cache also keeps every
// position's q, k, β and g, from which the maps' rows M over the whole sequence are rebuilt. The maps of
// a run are its new rows of each head's M, kept as q, k, β and g or written out dense.
void Decoder::linear_attention(const Block& b, int l, const MatrixF& a, KvCache& cache, const ForwardOptions& o, ForwardResult& r,
                               MatrixF& x) const {
    const std::size_t at = static_cast<std::size_t>(l);
    const LinearState* from = r.t_total > r.t_new ? &cache.linear.at(at) : nullptr;
    if (from && from->S.empty()) throw InputError(config().architecture + ": this cache holds no state of linear layer " + std::to_string(l + 1));
    if (from && o.attention && from->beta.size() != from->q.size() / static_cast<std::size_t>(b.linear->shape.d_k) / b.linear->shape.k_heads * b.linear->shape.v_heads)
        throw InputError(config().architecture + ": this cache kept no q and k of linear layer " + std::to_string(l + 1) +
                         " (an earlier run of it kept no maps), so its maps cannot be rebuilt; run the whole text again");
    LinearState* to = cache.keep ? &cache.pending.at(at) : nullptr;
    gated_delta_net::Projected p;
    gated_delta_net::add(*b.linear, l, r.t_new, a, o, p, x, from, to);
    auto values = [](const MatrixF& m) { return std::vector<float>(m.data(), m.data() + m.size()); };
    if (to) to->beta = values(p.beta), to->g = values(p.g);
    if (to && o.attention) to->q = values(p.q), to->k = values(p.k); // a cache whose runs keep no maps needs no q and k: 2.3 GB at 8192 positions of Qwen3.5-0.8B
    // The values where the run keeps them (the State panel's runs, --activations): they cost half what q and k do.
    // A state from position 0 needs every earlier one too: a cache whose earlier runs kept none keeps none after.
    const bool keep_values = o.keeps_linear_values();
    const bool whole_values = !from || from->v.size() == static_cast<std::size_t>(r.t_total - r.t_new) * static_cast<std::size_t>(p.v.cols());
    if (to && keep_values && whole_values) to->v = values(p.v);
    if (!o.attention) return;
    const delta_rule::Shape& s = b.linear->shape;
    if (o.scores || r.thumbnail_side) {
        LinearViews views{&p, &s, &o, &r, l};
        core::parallel::for_each(std::min(s.v_heads, r.heads), &LinearViews::head, &views);
    }
    // A long run's layer keeps its input in place of q and k, never copied (linear_source).
    const bool keeps_input = !from && !r.maps.dense() && r.t_new >= compact_linear_from && a.cols() < 2 * s.k_heads * s.d_k;
    AttentionMaps::Layer kept{keeps_input ? std::vector<float>{} : values(p.q), keeps_input ? std::vector<float>{} : values(p.k), true, 0, 1.0f, 0.0f,
                              {}, true, values(p.beta), values(p.g), s.k_heads, s.v_heads, s.d_k,
                              keep_values ? values(p.v) : std::vector<float>{}, s.d_v, s.tiled, nullptr};
    if (from) continue_kept(kept, *from, keep_values && whole_values);
    if (r.maps.dense()) {
        const delta_rule::Inputs whole{kept.q.data(), kept.k.data(), nullptr, kept.beta.data(), kept.g.data(), r.t_total};
        const int past = r.t_total - r.t_new;
        for (int h = 0; h < std::min(s.v_heads, r.heads); ++h) delta_rule::matrix_rows(whole, s, h, past, r.t_total, r.maps.dense_head(l, h));
        return;
    }
    if (keeps_input) kept.source = linear_source(b, a.topRows(r.t_new), o);
    r.maps.keep_layer(l, std::move(kept));
}

// A long run's linear layer keeps its input (t, D) in place of q and k (t, 2·Hk·dk), and projects
// them again when a map is asked: at 8192 positions Qwen3.5-0.8B's 18 linear layers hold 0.6 GB of
// inputs instead of 2.3 GB of q and k. The same products, on this layer's weights, kept alive with
// the source; the fast products where the forward ran them.
std::shared_ptr<const AttentionMaps::LinearSource> Decoder::linear_source(const Block& b, const MatrixF& a, const ForwardOptions& o) const {
    auto source = std::make_shared<AttentionMaps::LinearSource>();
    source->input.assign(a.data(), a.data() + a.size());
    source->d_model = static_cast<int>(a.cols());
    source->project = [weights = w_, layer = b.linear, fast = o.fast_products, D = source->d_model](const float* input, int t, std::vector<float>& q,
                                                                                                    std::vector<float>& k) {
        const FastScope scope(fast);
        gated_delta_net::project_qk(*layer, Eigen::Map<const MatrixF>(input, t, D), q, k);
        (void)weights; // held: the layer's tensors lie in them
    };
    return source;
}

void Decoder::mlp(const Block& b, int l, MatrixF& x, const ForwardOptions& o, LayerRouting* routing) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model;
    const float eps = static_cast<float>(c.norm_eps);
    MatrixF a(t, D); // (t, D)
    if (b.ln2) ops::active().rms_norm(x.data(), a.data(), t, D, b.ln2->data(), eps);
    else a = x;
    const feed_forward::Call call{l, &o.ablate_experts, routing};
    if (!b.post_mlp_norm) return b.ffn->add(a, x, call);
    MatrixF out = MatrixF::Zero(t, D); // (t, D) OLMo 2: the block's output, normed before it joins the stream
    b.ffn->add(a, out, call);
    ops::active().rms_norm(out.data(), out.data(), t, D, b.post_mlp_norm->data(), eps);
    x += out;
}

// x = embed_tokens[id]; the positions come in by rotation, in each layer
void Decoder::embed(const std::vector<int>& ids, int, MatrixF& x) const {
    const int D = config().d_model;
    for (int i = 0; i < static_cast<int>(ids.size()); ++i)
        parts_.embed->rows(ids[static_cast<std::size_t>(i)], 1, x.data() + static_cast<std::ptrdiff_t>(i) * D);
}

// A new entry of r.routing for a mixture layer when the forward keeps routing (one copy, every
// position), else null.
LayerRouting* Decoder::routing_of(const Block& b, int l, const ForwardOptions& o, ForwardResult& r) const {
    const feed_forward::Mixture* m = b.ffn->mixture();
    if (!m || !o.copies.empty() || o.last_position_only) return nullptr;
    r.routing.push_back({l, m->experts(), m->top_k(), {}, {}, {}});
    return &r.routing.back();
}

void Decoder::layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const Block& b = parts_.blocks[static_cast<std::size_t>(l)];
    attention(b, l, x, cache, o, r);
    LayerRouting* routing = routing_of(b, l, o, r);
    auto ffn_rows = [&](MatrixF& rows) { mlp(b, l, rows, o, routing); };
    if (!layers::recording(o, l)) return layers::position_wise(o, l, config().layers, r.t_new, x, ffn_rows);
    const MatrixF before = x; // (t, D)
    ffn_rows(x);
    layers::record_write(o, mlp_part(l), before, x, b.ffn->output_bias());
}

// model.norm, before lm_head
Model::FinalNorm Decoder::final_norm() const { return {false, parts_.norm->data(), nullptr, static_cast<float>(config().norm_eps)}; }

} // namespace

Block common_names(const Weights& w, const ModelConfig& c, int l) {
    const std::int64_t D = c.d_model, Q = static_cast<std::int64_t>(c.heads) * c.d_head;
    auto name = [&](const std::string& rest) { return layers::layer_name("model.layers.", l, rest); };
    Block b;
    b.ln1 = &w.require(name("input_layernorm.weight"), {D});
    b.o_w = &w.require(name("self_attn.o_proj.weight"), {D, Q});
    if (c.o_bias) b.o_b = &w.require(name("self_attn.o_proj.bias"), {D});
    b.ln2 = &w.require(name("post_attention_layernorm.weight"), {D});
    return b;
}

void separate_names(const Weights& w, const ModelConfig& c, int l, Block& b) {
    const std::int64_t D = c.d_model, Q = static_cast<std::int64_t>(c.heads) * c.d_head, KV = static_cast<std::int64_t>(c.kv_heads) * c.d_head;
    auto name = [&](const std::string& rest) { return layers::layer_name("model.layers.", l, rest); };
    b.q_w = &w.require(name("self_attn.q_proj.weight"), {Q, D});
    b.k_w = &w.require(name("self_attn.k_proj.weight"), {KV, D});
    b.v_w = &w.require(name("self_attn.v_proj.weight"), {KV, D});
    if (c.attention_bias) {
        b.q_b = &w.require(name("self_attn.q_proj.bias"), {Q});
        b.k_b = &w.require(name("self_attn.k_proj.bias"), {KV});
        b.v_b = &w.require(name("self_attn.v_proj.bias"), {KV});
    }
}

void qk_norm_names(const Weights& w, const ModelConfig& c, std::vector<Block>& blocks) {
    const std::int64_t dh = c.d_head;
    for (int l = 0; l < static_cast<int>(blocks.size()); ++l) {
        blocks[static_cast<std::size_t>(l)].q_norm = &w.require(layers::layer_name("model.layers.", l, "self_attn.q_norm.weight"), {dh});
        blocks[static_cast<std::size_t>(l)].k_norm = &w.require(layers::layer_name("model.layers.", l, "self_attn.k_norm.weight"), {dh});
    }
}

std::shared_ptr<const feed_forward::FeedForward> dense_mlp(const Weights& w, const ModelConfig& c, int l) {
    return feed_forward::dense(w, layers::layer_name("model.layers.", l, "mlp."), c.d_model, c.d_ff, c.mlp_bias, layers::activation_of(c.activation));
}

std::vector<Block> llama_blocks(const Weights& w, const ModelConfig& c) {
    std::vector<Block> blocks;
    for (int l = 0; l < c.layers; ++l) {
        blocks.push_back(common_names(w, c, l));
        separate_names(w, c, l, blocks.back());
        blocks.back().ffn = dense_mlp(w, c, l);
    }
    return blocks;
}

Parts around(const Weights& w, const ModelConfig& c, std::vector<Block> blocks) {
    const std::int64_t D = c.d_model;
    Parts p;
    p.embed = &w.require("model.embed_tokens.weight", {c.vocab, D});
    p.blocks = std::move(blocks);
    p.norm = &w.require("model.norm.weight", {D});
    p.head = c.tie_word_embeddings ? p.embed : &w.require("lm_head.weight", {c.vocab, D});
    return p;
}

std::unique_ptr<Model> build(const ModelConfig& c, std::shared_ptr<const Weights> w, Parts parts) {
    return std::make_unique<Decoder>(c, std::move(w), std::move(parts));
}

std::vector<bool> sparse_layers(const ConfigReader& r, const ModelConfig& c, int experts) {
    const int step = r.whole("decoder_sparse_step", 1, 1 << 20, 1);
    std::vector<bool> sparse(static_cast<std::size_t>(c.layers));
    for (int l = 0; l < c.layers; ++l) sparse[static_cast<std::size_t>(l)] = experts > 0 && (l + 1) % step == 0;
    if (!r.has("mlp_only_layers") || r.j.at("mlp_only_layers").is_null()) return sparse;
    const nlohmann::json& only = r.j.at("mlp_only_layers");
    if (!only.is_array()) r.fail("mlp_only_layers", "is not a list of layers");
    for (const nlohmann::json& l : only) {
        if (!l.is_number_integer() || l.get<long long>() < 0 || l.get<long long>() >= c.layers)
            r.fail("mlp_only_layers", "holds " + l.dump() + ", not a layer from 0 to " + std::to_string(c.layers - 1));
        sparse[static_cast<std::size_t>(l.get<int>())] = false;
    }
    return sparse;
}

void read_mixture(const ConfigReader& r, const ModelConfig& c, feed_forward::MixtureFields& m, const MixtureDefaults& d) {
    m.experts = r.whole("num_experts", 0, 1 << 16, d.experts);
    m.experts_per_token = r.whole("num_experts_per_tok", 1, 1 << 16, d.per_token);
    if (m.experts > 0 && m.experts_per_token > m.experts)
        r.fail("num_experts_per_tok", "(" + std::to_string(m.experts_per_token) + ") is more than num_experts (" + std::to_string(m.experts) + ")");
    m.d_expert = r.whole("moe_intermediate_size", 1, max_config_size, d.d_expert);
    if (d.d_shared_expert > 0) m.d_shared_expert = r.whole("shared_expert_intermediate_size", 1, max_config_size, d.d_shared_expert);
    m.renormalise_chosen = r.flag("norm_topk_prob", d.renormalise);
    m.sparse_layers = sparse_layers(r, c, m.experts);
}


void read_common(const ConfigReader& r, ModelConfig& c, const Defaults& d) {
    read_sizes(r, c, d.sizes);
    c.d_ff = d.intermediate ? r.whole("intermediate_size", 1, max_config_size, d.intermediate) : r.whole("intermediate_size", 1, max_config_size);
    c.kv_heads = r.whole("num_key_value_heads", 1, 4096, d.kv_heads ? d.kv_heads : c.heads);
    if (c.heads % c.kv_heads != 0)
        r.fail("num_key_value_heads", "(" + std::to_string(c.kv_heads) + ") does not divide num_attention_heads (" + std::to_string(c.heads) + ")");
    if (!r.has("head_dim") && !d.head_dim && c.d_model % c.heads != 0)
        r.fail("hidden_size", "(" + std::to_string(c.d_model) + ") is not a multiple of num_attention_heads and there is no head_dim");
    c.d_head = r.whole("head_dim", 2, 65536, d.head_dim ? d.head_dim : c.d_model / c.heads);
    if (c.d_head % 2 != 0) r.fail("head_dim", "is odd (" + std::to_string(c.d_head) + "); rotary positions rotate pairs");
    const double partial = d.partial_rotary ? r.real("partial_rotary_factor", 1e-6, 1.0, 1.0) : 1.0;
    c.rotary_dim = static_cast<int>(c.d_head * partial); // int(), as the rotary embedding takes it
    if (c.rotary_dim < 2 || c.rotary_dim % 2 != 0)
        r.fail("partial_rotary_factor", "gives " + std::to_string(c.rotary_dim) + " rotated dims of " + std::to_string(c.d_head) +
                                            "; rotary positions rotate pairs");
    c.context = r.whole("max_position_embeddings", 1, 1 << 30, d.context);
    c.norm_eps = r.real("rms_norm_eps", 1e-30, 1.0, d.eps);
    c.activation = r.activation("hidden_act", "silu");
    c.rope_theta = r.real("rope_theta", 1e-6, 1e15, 10000.0);
    c.rope_scaling = rotary::read_scaling(r, c.rotary_dim);
    c.context = rotary::rotary_context(c);
    c.tie_word_embeddings = r.flag("tie_word_embeddings", d.tied);
}

} // namespace core::model::decoder
