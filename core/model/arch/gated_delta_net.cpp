// core/model/arch/gated_delta_net.cpp — the Gated DeltaNet layer (gated_delta_net.h).
#include "core/model/arch/gated_delta_net.h"

#include "core/parallel.h"

#include <algorithm>
#include <cmath>

namespace core::model::gated_delta_net {

namespace {

using layers::Layout;

float softplus(float x) { return x > 20.0f ? x : std::log1p(std::exp(x)); } // torch's threshold 20

// Qwen3-Next's fused rows per key head [q dk | k dk | v group·dv | z group·dv] into the separate blocks
// qkv (t, 2·Hk·dk + Hv·dv) and z (t, Hv·dv).
void regroup_qkvz(const delta_rule::Shape& s, const MatrixF& qkvz, MatrixF& qkv, MatrixF& z) {
    const int g = s.group(), K = s.k_heads * s.d_k, per = 2 * s.d_k + 2 * g * s.d_v, vg = g * s.d_v;
    for (int kh = 0; kh < s.k_heads; ++kh) {
        const int at = kh * per;
        qkv.middleCols(kh * s.d_k, s.d_k) = qkvz.middleCols(at, s.d_k);
        qkv.middleCols(K + kh * s.d_k, s.d_k) = qkvz.middleCols(at + s.d_k, s.d_k);
        qkv.middleCols(2 * K + kh * vg, vg) = qkvz.middleCols(at + 2 * s.d_k, vg);
        z.middleCols(kh * vg, vg) = qkvz.middleCols(at + 2 * s.d_k + vg, vg);
    }
}

// Qwen3-Next's fused rows per key head [b group | a group] into b and a (t, Hv).
void regroup_ba(const delta_rule::Shape& s, const MatrixF& ba, MatrixF& b, MatrixF& a) {
    const int g = s.group();
    for (int kh = 0; kh < s.k_heads; ++kh) {
        b.middleCols(kh * g, g) = ba.middleCols(kh * 2 * g, g);
        a.middleCols(kh * g, g) = ba.middleCols(kh * 2 * g + g, g);
    }
}

// x (t, C) ← SiLU of each channel's causal convolution with its kernel (C, kernel K): output i reads
// inputs i − K + 1 … i, weight j on input i − K + 1 + j; before the first input, `past` (K − 1, C)
// (null: zeros). `tail`, when given, receives the last K − 1 inputs. In place, from the last row up:
// row i is written once the rows it reads are read, so no copy of the (t, C) inputs is made (at
// 8192 positions of Qwen3.5-0.8B's layer, 200 MB). The channels are shared between the cores in
// blocks, each channel's sum taken in the same order (weight 0 first) whatever the block.
struct CausalConv {
    MatrixF* x;
    const MatrixF* before;    // (K − 1, C) the inputs before the first
    std::vector<float> taps;  // (K, C) the kernel transposed: tap j of a block's channels side by side
    int K = 0;
    static constexpr int channels = 256; // a block's
    // Input m of the whole sequence from the past's first: the past, then x's rows not yet overwritten.
    const float* input(int m) const {
        const std::ptrdiff_t C = x->cols();
        return m < K - 1 ? before->data() + m * C : x->data() + (m - K + 1) * C;
    }
    static void block(void* context, std::ptrdiff_t b) {
        const CausalConv& v = *static_cast<const CausalConv*>(context);
        const int C = static_cast<int>(v.x->cols()), c0 = static_cast<int>(b) * channels, n = std::min(channels, C - c0);
        float sum[channels], e[channels]; // (n) one row's sums over the block's channels, exp(−sum)
        for (int i = static_cast<int>(v.x->rows()) - 1; i >= 0; --i) {
            std::fill(sum, sum + n, 0.0f);
            for (int j = 0; j < v.K; ++j) {
                const float* in = v.input(i + j) + c0;
                const float* w = v.taps.data() + static_cast<std::ptrdiff_t>(j) * C + c0;
                for (int c = 0; c < n; ++c) sum[c] += w[c] * in[c];
            }
            // silu, its exponentials first: the divisions then run as vectors, not each behind a call
            for (int c = 0; c < n; ++c) e[c] = std::exp(-sum[c]);
            float* out = v.x->data() + static_cast<std::ptrdiff_t>(i) * C + c0;
            for (int c = 0; c < n; ++c) out[c] = sum[c] / (1.0f + e[c]);
        }
    }
};

void causal_conv_silu(MatrixF& x, const float* kernel, int K, const float* past, std::vector<float>* tail) {
    const int t = static_cast<int>(x.rows()), C = static_cast<int>(x.cols()), P = K - 1;
    MatrixF before = MatrixF::Zero(P, C); // (K − 1, C) the inputs before the first
    if (past) before = Eigen::Map<const MatrixF>(past, P, C);
    CausalConv conv{&x, &before, std::vector<float>(static_cast<std::size_t>(K) * static_cast<std::size_t>(C)), K};
    for (int c = 0; c < C; ++c)
        for (int j = 0; j < K; ++j) conv.taps[static_cast<std::size_t>(j) * C + c] = kernel[static_cast<std::ptrdiff_t>(c) * K + j];
    if (tail) {
        tail->resize(static_cast<std::size_t>(P) * static_cast<std::size_t>(C));
        for (int r = 0; r < P; ++r) std::copy(conv.input(t + r), conv.input(t + r) + C, tail->data() + static_cast<std::size_t>(r) * C);
    }
    core::parallel::for_each((C + CausalConv::channels - 1) / CausalConv::channels, &CausalConv::block, &conv);
}

// Each head's d values of x (t, heads · d) times `scale` over rsqrt(Σ x² + 1e-6) (floor 0), or over
// max(‖x‖, floor) as ggml_l2_norm.
void l2_norm_heads(MatrixF& x, int d, float scale, float floor) {
    Eigen::Map<MatrixF> rows(x.data(), x.size() / d, d); // (t · heads, d)
    for (Eigen::Index r = 0; r < rows.rows(); ++r) {
        const float sum = rows.row(r).squaredNorm();
        rows.row(r) *= scale / (floor > 0.0f ? std::max(std::sqrt(sum), floor) : std::sqrt(sum + 1e-6f));
    }
}

// o (t, Hv·dv) ← each head's RMSNorm(o) · w · SiLU(z), the rows shared between the cores in blocks.
struct GatedNorm {
    Eigen::Map<MatrixF> o; // (t, Hv·dv)
    const MatrixF* z;      // (t, Hv·dv)
    const float* w;        // (dv)
    int dv;
    float eps;
    static constexpr int rows = 16; // a block's
    static void block(void* context, std::ptrdiff_t b) {
        GatedNorm& v = *static_cast<GatedNorm*>(context);
        const Eigen::Index i1 = std::min<Eigen::Index>(v.o.rows(), (b + 1) * rows);
        thread_local std::vector<float> exps;
        exps.resize(static_cast<std::size_t>(v.dv));
        float* gate = exps.data(); // (dv) exp(−z) of one head
        for (Eigen::Index i = b * rows; i < i1; ++i)
            for (Eigen::Index h = 0; h < v.o.cols() / v.dv; ++h) {
                auto head = v.o.row(i).segment(h * v.dv, v.dv);
                const float inv = 1.0f / std::sqrt(head.squaredNorm() / static_cast<float>(v.dv) + v.eps);
                const float* z = v.z->data() + i * v.z->cols() + h * v.dv;
                for (int c = 0; c < v.dv; ++c) gate[c] = std::exp(-z[c]); // silu(z) = z / (1 + exp(−z)), the calls first
                for (int c = 0; c < v.dv; ++c) head(c) = head(c) * inv * v.w[c] * (z[c] / (1.0f + gate[c]));
            }
    }
};

void gated_norm(float* o, const MatrixF& z, const float* w, int dv, float eps) {
    GatedNorm norm{Eigen::Map<MatrixF>(o, z.rows(), z.cols()), &z, w, dv, eps};
    core::parallel::for_each((z.rows() + GatedNorm::rows - 1) / GatedNorm::rows, &GatedNorm::block, &norm);
}

// Each value head's write through its columns of out_proj, a component of its own (head_part), as a
// softmax layer's heads are: the circuits attribute to a linear head as to any other.
void record_heads(const Layer& L, int layer, const MatrixF& out, const ForwardOptions& o, int D) {
    const int t = static_cast<int>(out.rows()), V = static_cast<int>(out.cols()), dv = L.shape.d_v;
    MatrixF alone(t, V); // (t, Hv·dv)
    for (int h = 0; h < L.shape.v_heads; ++h) {
        alone.setZero();
        alone.middleCols(h * dv, dv) = out.middleCols(h * dv, dv);
        MatrixF part(t, D); // (t, D)
        layers::project(alone.data(), t, V, D, *L.w.out, Layout::out_in, nullptr, part.data());
        layers::record(o, head_part(layer, h), std::move(part));
    }
}

// qkv (t, 2K + V) of a (t, D); z (t, V) too where it is part of the same product (in_proj_qkvz).
void project_qkv(const Layer& L, const MatrixF& a, MatrixF& qkv, MatrixF& z) {
    const delta_rule::Shape& s = L.shape;
    const int t = static_cast<int>(a.rows()), D = static_cast<int>(a.cols());
    const int K = s.k_heads * s.d_k, V = s.v_heads * s.d_v;
    if (!L.w.qkvz) return layers::project(a.data(), t, D, 2 * K + V, *L.w.qkv, Layout::out_in, nullptr, qkv.data());
    MatrixF qkvz(t, 2 * K + 2 * V); // (t, 2K + 2V)
    layers::project(a.data(), t, D, 2 * K + 2 * V, *L.w.qkvz, Layout::out_in, nullptr, qkvz.data());
    z.resize(t, V);
    regroup_qkvz(s, qkvz, qkv, z);
}

// z (t, V) where project_qkv did not make it, b and a' (t, Hv) of a (t, D).
void project_gates(const Layer& L, const MatrixF& a, MatrixF& z, MatrixF& b, MatrixF& g) {
    const delta_rule::Shape& s = L.shape;
    const int t = static_cast<int>(a.rows()), D = static_cast<int>(a.cols()), V = s.v_heads * s.d_v;
    if (!L.w.qkvz) {
        z.resize(t, V);
        layers::project(a.data(), t, D, V, *L.w.z, Layout::out_in, nullptr, z.data());
    }
    b.resize(t, s.v_heads);
    g.resize(t, s.v_heads);
    if (L.w.ba) {
        MatrixF ba(t, 2 * s.v_heads); // (t, 2·Hv)
        layers::project(a.data(), t, D, 2 * s.v_heads, *L.w.ba, Layout::out_in, nullptr, ba.data());
        regroup_ba(s, ba, b, g);
    } else {
        layers::project(a.data(), t, D, s.v_heads, *L.w.b, Layout::out_in, nullptr, b.data());
        layers::project(a.data(), t, D, s.v_heads, *L.w.a, Layout::out_in, nullptr, g.data());
    }
}

} // namespace

Projected project(const Layer& L, const MatrixF& a, const LinearState* from, LinearState* to) {
    const delta_rule::Shape& s = L.shape;
    const int t = static_cast<int>(a.rows());
    const int K = s.k_heads * s.d_k, V = s.v_heads * s.d_v;
    Projected p;
    { // qkv (200 MB at 8192 positions of Qwen3.5-0.8B) freed before z (67 MB), where a product of its own, is made
        MatrixF qkv(t, 2 * K + V); // (t, 2K + V)
        project_qkv(L, a, qkv, p.z);
        const float* past = from && !from->conv.empty() ? from->conv.data() : nullptr;
        causal_conv_silu(qkv, L.conv.data(), L.kernel, past, to ? &to->conv : nullptr);
        p.q = qkv.leftCols(K), p.k = qkv.middleCols(K, K), p.v = qkv.rightCols(V);
    }
    project_gates(L, a, p.z, p.beta, p.g);
    l2_norm_heads(p.q, s.d_k, 1.0f / std::sqrt(static_cast<float>(s.d_k)), L.l2_floor);
    l2_norm_heads(p.k, s.d_k, 1.0f, L.l2_floor);
    const float* dt_bias = L.w.dt_bias->data();
    for (int i = 0; i < t; ++i)
        for (int h = 0; h < s.v_heads; ++h) {
            p.beta(i, h) = 1.0f / (1.0f + std::exp(-p.beta(i, h)));
            p.g(i, h) = L.decay[static_cast<std::size_t>(h)] * softplus(p.g(i, h) + dt_bias[h]);
        }
    return p;
}

void project_qk(const Layer& L, const MatrixF& a, std::vector<float>& q, std::vector<float>& k) {
    const delta_rule::Shape& s = L.shape;
    const int t = static_cast<int>(a.rows()), K = s.k_heads * s.d_k, V = s.v_heads * s.d_v;
    MatrixF qkv(t, 2 * K + V), z; // (t, 2K + V), (t, V): z only where qkvz is one product
    project_qkv(L, a, qkv, z);
    causal_conv_silu(qkv, L.conv.data(), L.kernel, nullptr, nullptr);
    MatrixF mq = qkv.leftCols(K), mk = qkv.middleCols(K, K); // (t, K) each
    l2_norm_heads(mq, s.d_k, 1.0f / std::sqrt(static_cast<float>(s.d_k)), L.l2_floor);
    l2_norm_heads(mk, s.d_k, 1.0f, L.l2_floor);
    q.assign(mq.data(), mq.data() + mq.size());
    k.assign(mk.data(), mk.data() + mk.size());
}

void add(const Layer& L, int layer, int t, const MatrixF& a, const ForwardOptions& o, Projected& p, MatrixF& x, const LinearState* from,
         LinearState* to) {
    const delta_rule::Shape& s = L.shape;
    const int rows = static_cast<int>(a.rows()), V = s.v_heads * s.d_v;
    MatrixF out; // (copies · t, Hv·dv) each copy its own sequence
    for (int c0 = 0; c0 < rows; c0 += t) {
        Projected copy = project(L, a.middleRows(c0, t), from, to);
        std::vector<float> S; // (Hv, d_k, d_v) the state carried in and out, where the sequence continues or is kept
        if (from && !from->S.empty()) S = from->S;
        else if (to) S.assign(static_cast<std::size_t>(s.v_heads) * s.d_k * s.d_v, 0.0f);
        MatrixF heads = delta_rule::chunked(copy.inputs(), s, 64, S.empty() ? nullptr : S.data()); // (t, Hv·dv)
        if (to) to->S = std::move(S);
        if (rows == t) out = std::move(heads); // one copy: no second (t, Hv·dv)
        else {
            if (out.rows() != rows) out.resize(rows, V);
            out.middleRows(c0, t) = heads;
        }
        gated_norm(out.data() + static_cast<std::ptrdiff_t>(c0) * V, copy.z, L.w.norm->data(), s.d_v, L.eps);
        copy.z = MatrixF(); // what the maps do not read, freed for the rest of the layer
        if (!o.keeps_linear_values()) copy.v = MatrixF();
        if (c0 == 0) p = std::move(copy);
    }
    layers::ablate(out.data(), t, s.v_heads, s.d_v, layer, o);
    if (o.head_outputs) (*o.head_outputs)[static_cast<std::size_t>(layer)] = out;
    layers::project(out.data(), rows, V, static_cast<int>(x.cols()), *L.w.out, Layout::out_in, nullptr, x.data(), true);
    if (layers::recording(o, layer)) record_heads(L, layer, out, o, static_cast<int>(x.cols()));
}

namespace {

// (Hv) −exp(A_log) from the Hub's A_log, or llama.cpp's ssm_a as it is (the converter stored −exp(A_log)).
std::vector<float> decay_rates(const Weights& w, const std::string& name, std::int64_t Hv, bool stored) {
    const float* v = w.require(name, {Hv}).data();
    std::vector<float> rates(v, v + Hv);
    if (!stored)
        for (float& r : rates) r = -std::exp(r);
    return rates;
}

} // namespace

Layer read(const Weights& w, const std::string& prefix, int l, std::int64_t D, delta_rule::Shape s, int kernel, float eps, const Source& from) {
    auto name = [&](const std::string& rest) { return layers::layer_name(prefix, l, "linear_attn." + rest); };
    const std::int64_t K = static_cast<std::int64_t>(s.k_heads) * s.d_k, V = static_cast<std::int64_t>(s.v_heads) * s.d_v, Hv = s.v_heads;
    s.tiled = from.tiled;
    Layer L{{}, s, kernel, {}, {}, eps, from.llama_cpp ? eps : 0.0f};
    if (from.fused_qkvz) L.w.qkvz = &w.require(name("in_proj_qkvz.weight"), {2 * K + 2 * V, D});
    else {
        L.w.qkv = &w.require(name("in_proj_qkv.weight"), {2 * K + V, D});
        L.w.z = &w.require(name("in_proj_z.weight"), {V, D});
    }
    if (from.fused_ba) L.w.ba = &w.require(name("in_proj_ba.weight"), {2 * Hv, D});
    else {
        L.w.b = &w.require(name("in_proj_b.weight"), {Hv, D});
        L.w.a = &w.require(name("in_proj_a.weight"), {Hv, D});
    }
    const Shape conv = from.llama_cpp ? Shape{2 * K + V, kernel} : Shape{2 * K + V, 1, kernel};
    L.w.conv = &w.require(name("conv1d.weight"), conv);
    L.conv.resize(static_cast<std::size_t>((2 * K + V) * kernel));
    L.w.conv->rows(0, 2 * K + V, L.conv.data());
    L.decay = decay_rates(w, name(from.llama_cpp ? "A" : "A_log"), Hv, from.llama_cpp);
    L.w.dt_bias = &w.require(name("dt_bias"), {Hv});
    L.w.norm = &w.require(name("norm.weight"), {s.d_v});
    L.w.out = &w.require(name("out_proj.weight"), {D, V});
    return L;
}

} // namespace core::model::gated_delta_net
