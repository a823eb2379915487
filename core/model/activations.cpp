// core/model/activations.cpp — one layer's activations (activations.h).
#include "core/model/activations.h"

#include <string>

namespace core::model {

namespace {

// Columns [h·d, (h+1)·d) of rows (t, heads · d) for each head, stacked (heads · t, d).
MatrixF by_head(const float* rows, int t, int heads, int d) {
    MatrixF out(static_cast<Eigen::Index>(heads) * t, d); // (heads · t, d)
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < t; ++i)
            for (int c = 0; c < d; ++c) out(static_cast<Eigen::Index>(h) * t + i, c) = rows[static_cast<std::ptrdiff_t>(i) * heads * d + h * d + c];
    return out;
}

LayerActivations linear_of(const AttentionMaps::Layer& L, const AttentionMaps::LinearQK& qk, int t) {
    LayerActivations a;
    a.linear = true;
    a.q_heads = L.k_heads, a.v_heads = L.v_heads;
    a.q = by_head(qk.q, t, L.k_heads, L.d_k);
    a.k = by_head(qk.k, t, L.k_heads, L.d_k);
    a.v = by_head(L.v.data(), t, L.v_heads, L.d_v);
    a.beta.resize(L.v_heads, t), a.g.resize(L.v_heads, t); // (v_heads, t) from the kept (t, v_heads)
    for (int i = 0; i < t; ++i)
        for (int h = 0; h < L.v_heads; ++h) {
            a.beta(h, i) = L.beta[static_cast<std::size_t>(i) * static_cast<std::size_t>(L.v_heads) + static_cast<std::size_t>(h)];
            a.g(h, i) = L.g[static_cast<std::size_t>(i) * static_cast<std::size_t>(L.v_heads) + static_cast<std::size_t>(h)];
        }
    return a;
}

LayerActivations softmax_of(const ForwardResult& r, int layer) {
    LayerActivations a;
    a.q_heads = a.v_heads = r.heads;
    const HeadCapture& first = r.captures[static_cast<std::size_t>(layer) * static_cast<std::size_t>(r.heads)];
    a.q.resize(static_cast<Eigen::Index>(r.heads) * r.t_new, first.q.cols());
    a.k.resize(static_cast<Eigen::Index>(r.heads) * r.t_total, first.k.cols());
    a.v.resize(static_cast<Eigen::Index>(r.heads) * r.t_total, first.v.cols());
    for (int h = 0; h < r.heads; ++h) {
        const HeadCapture& c = r.captures[static_cast<std::size_t>(layer) * static_cast<std::size_t>(r.heads) + static_cast<std::size_t>(h)];
        a.q.middleRows(static_cast<Eigen::Index>(h) * r.t_new, r.t_new) = c.q;
        a.k.middleRows(static_cast<Eigen::Index>(h) * r.t_total, r.t_total) = c.k;
        a.v.middleRows(static_cast<Eigen::Index>(h) * r.t_total, r.t_total) = c.v;
    }
    return a;
}

} // namespace

LayerActivations layer_activations(const Model& m, const std::vector<int>& ids, int layer) {
    const int layers = m.config().layers;
    if (layer < 0 || layer >= layers)
        throw InputError("layer " + std::to_string(layer + 1) + " is not one of the model's layers 1 … " + std::to_string(layers));
    const bool linear = m.attention_kind(layer).linear;
    ForwardOptions o;
    o.logits = Logits::none;
    o.attention = linear;  // a linear layer's q, k, β and g are what its maps keep,
    o.capture_qkv = true;  // and its values with a capture; a softmax layer's q, k and v are its captures
    const ForwardResult r = m.forward(ids, o);
    if (!linear) return softmax_of(r, layer);
    const AttentionMaps::Layer* kept = r.maps.kept(layer);
    if (!kept) throw InputError("layer " + std::to_string(layer + 1) + " kept no activations");
    return linear_of(*kept, r.maps.linear_qk(layer), r.t_new);
}

} // namespace core::model
