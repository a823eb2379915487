// core/model/arch/head_slices.cpp — each head's slices of a layer's projections (head_slices.h).
#include "core/model/arch/head_slices.h"

#include "core/model/arch/rotary.h"

namespace core::model::head_slices {

namespace {

// W's value for output `out` and input `in`, W (outs, ins) or (ins, outs) row-major, read as
// float32 for the while (Tensor::rows: no kept copy of a 16-bit or quantized matrix).
struct Linear {
    MatrixF w;
    Layout layout;
    float at(std::int64_t out, std::int64_t in) const { return layout == Layout::out_in ? w(out, in) : w(in, out); }
};

Linear linear(const Tensor& W, Layout layout) {
    Linear L{MatrixF(W.shape()[0], W.row_values()), layout};
    W.rows(0, W.shape()[0], L.w.data());
    return L;
}

// heads × (D, dh): outputs first + h·dh … first + h·dh + dh − 1 of W (D inputs), as columns.
std::vector<MatrixF> from_stream(const Tensor& W, Layout layout, int D, std::int64_t first, int heads, int dh) {
    const Linear L = linear(W, layout);
    std::vector<MatrixF> out(static_cast<std::size_t>(heads), MatrixF(D, dh));
    for (int h = 0; h < heads; ++h)
        for (int d = 0; d < D; ++d)
            for (int c = 0; c < dh; ++c) out[static_cast<std::size_t>(h)](d, c) = L.at(first + h * dh + c, d);
    return out;
}

// heads × (dh, D): the rows of the output projection W (heads · dh inputs) each head's values go through.
std::vector<MatrixF> to_stream(const Tensor& W, Layout layout, int D, int heads, int dh) {
    const Linear L = linear(W, layout);
    std::vector<MatrixF> out(static_cast<std::size_t>(heads), MatrixF(dh, D));
    for (int h = 0; h < heads; ++h)
        for (int c = 0; c < dh; ++c)
            for (int d = 0; d < D; ++d) out[static_cast<std::size_t>(h)](c, d) = L.at(d, h * dh + c);
    return out;
}

// (heads, dh): bias values first …, or empty for no bias.
MatrixF bias(const Tensor* b, std::int64_t first, int heads, int dh) {
    if (!b) return {};
    MatrixF out(heads, dh); // (heads, dh)
    const std::vector<float> all = values(*b);
    for (int h = 0; h < heads; ++h)
        for (int c = 0; c < dh; ++c) out(h, c) = all[static_cast<std::size_t>(first + h * dh + c)];
    return out;
}

} // namespace

LayerAttention heads_of(const ModelConfig& c, const Projections& p) {
    const int D = c.d_model, H = c.heads, KV = c.kv_heads, dh = c.d_head;
    LayerAttention a;
    a.heads = H;
    a.kv_heads = KV;
    a.d_head = dh;
    a.q = from_stream(*p.q, p.layout, D, p.q_first, H, dh);
    a.k = from_stream(*p.k, p.layout, D, p.k_first, KV, dh);
    a.v = from_stream(*p.v, p.layout, D, p.v_first, KV, dh);
    a.o = to_stream(*p.o, p.layout, D, H, dh);
    a.q_bias = bias(p.q_b, p.q_first, H, dh);
    a.k_bias = bias(p.k_b, p.k_first, KV, dh);
    a.v_bias = bias(p.v_b, p.v_first, KV, dh);
    return a;
}

std::vector<float> values(const Tensor& t) {
    std::vector<float> out(static_cast<std::size_t>(t.count()));
    t.rows(0, t.shape()[0], out.data());
    return out;
}

NormWeights norm(NormWeights::Kind kind, const Tensor& w, const Tensor* b, double eps) {
    return {kind, values(w), b ? values(*b) : std::vector<float>{}, static_cast<float>(eps)};
}

// The rotation is linear: its matrix is the rotated rows of the identity (each row one "head").
std::function<MatrixF(int)> rotation(std::vector<float> inv_freq, int dh, float scale) {
    return [inv_freq = std::move(inv_freq), dh, scale](int position) {
        MatrixF R = MatrixF::Identity(dh, dh); // (dh, dh)
        rotary::rotate(R.data(), dh * dh, 1, dh, dh, position, inv_freq, scale);
        return R;
    };
}

} // namespace core::model::head_slices
