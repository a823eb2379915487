// core/model/ops_impl.h — the body of one build of core/model/ops.h. Only core/model/ops_*.cpp
// include it, each after
//
//   #define ATTNVIZ_OPS_NS      namespace of this build
//   #define ATTNVIZ_OPS_NAME    "generic", "x86-64-v3", "x86-64-v4"
//   #define ATTNVIZ_OPS_GETTER  the function of core/model/ops.h that returns this build's Set
//   #define Eigen               a name of Eigen's namespace unique to this build
//   #define ATTNVIZ_OPS_ONEDNN  (x86-64-v4 only) two or more rows on oneDNN, but for small B
//
// and compiled with its own -march (see core/kernels_impl.h for why Eigen is renamed). Nothing
// here may include a project header that includes Eigen.
#pragma once

#include "core/model/ops.h"
#if defined(ATTNVIZ_OPS_ONEDNN)
#include "core/model/sgemm.h"
#endif
#include "core/model/chain_gemm.h"
#include "core/model/block_dot.h"
#include "core/march_build.h"
#include "core/parallel.h"

#include <unsupported/Eigen/SpecialFunctions>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace core::model::ops {
namespace ATTNVIZ_OPS_NS {
namespace {

using march::larger;
using march::smaller;

// Two or more rows: our own chains of multiply-adds (core/model/chain_gemm.h), and on x86-64-v4
// oneDNN's sgemm (core/model/sgemm.h) wherever B is more than 32 deep and holds more than 4096
// values. oneDNN writes its kernels on a process's first product, about 30 ms, longer than a whole
// forward of a tiny checkpoint: the tests' and the command line's small models never pay it. A real
// model's weights (576 or more deep) and, with heads of 64 or more, its attention beyond 64 tokens
// take oneDNN. The choice depends on B's shape alone, never on m, so a row's bits still do not
// depend on the rows beside it.
void rows_product(const Gemm& g, bool parallel) {
#if defined(ATTNVIZ_OPS_ONEDNN)
    const bool small_b = g.k <= 32 || g.k * g.n <= 4096;
    if (!small_b) return sgemm(g, parallel);
#endif
    chain::product(g, parallel);
}

// Eigen vectorises an array expression after peeling elements up to the first aligned address,
// and sums in an order (and takes exp, tanh … in scalar or SIMD code) that depends on it: the same
// row at another address would give other last bits. So every element-wise pass and sum here runs
// on a copy in a buffer aligned for this build, padded to whole packets: the same bits every run.
using Aligned = Eigen::Map<Eigen::ArrayXf, Eigen::AlignedMax>;
constexpr Index lanes = 16; // a multiple of every build's packet of floats

struct Buffer {
    std::vector<float, Eigen::aligned_allocator<float>> data;
    // The first n values of `from` (or nothing), then `pad` up to a whole number of lanes.
    Aligned load(const float* from, Index n, float pad) {
        const Index padded = (n + lanes - 1) / lanes * lanes;
        if (static_cast<Index>(data.size()) < padded) data.resize(static_cast<std::size_t>(padded));
        for (Index i = 0; i < n; ++i) data[static_cast<std::size_t>(i)] = from[i];
        for (Index i = n; i < padded; ++i) data[static_cast<std::size_t>(i)] = pad;
        return Aligned(data.data(), padded);
    }
    Aligned reserve(Index padded) {
        if (static_cast<Index>(data.size()) < padded) data.resize(static_cast<std::size_t>(padded));
        return Aligned(data.data(), padded);
    }
    void store(float* to, Index n) const {
        for (Index i = 0; i < n; ++i) to[i] = data[static_cast<std::size_t>(i)];
    }
};
thread_local Buffer buffer_a, buffer_b;

// Row i of `w` (cols values): the softmax of scale · w (soft-capped where softcap > 0) over keys
// lo … hi-1, 0 elsewhere, with the learned sink logit `sink` (or null) in the denominator: its weight
// into *share. With `entropy`, also the key weights' −Σ p ln p = (1 − share) ln S − Σ p (x − top),
// S = Σ exp(x − top) (the sink's term included), from the same pass.
void softmax_row(float* w, Index cols, Index lo, Index hi, float scale, float softcap, const float* sink, float* share, float* entropy) {
    for (Index j = 0; j < lo; ++j) w[j] = 0.0f;
    for (Index j = hi; j < cols; ++j) w[j] = 0.0f;
    if (entropy) *entropy = 0.0f;
    if (share) *share = sink && hi <= lo ? 1.0f : 0.0f;
    if (hi <= lo) return;
    const Index n = hi - lo;
    Aligned x = buffer_a.load(w + lo, n, -std::numeric_limits<float>::infinity());
    x *= scale;
    if (softcap > 0.0f) { // cap · tanh(x / cap), then the padding back to −∞ (tanh took it to −1)
        x = softcap * (x / softcap).tanh();
        x.tail(x.size() - n).setConstant(-std::numeric_limits<float>::infinity());
    }
    const float top = sink ? std::max(x.maxCoeff(), *sink) : x.maxCoeff();
    Aligned shifted = buffer_b.reserve(entropy ? x.size() : 0);
    if (entropy) shifted = x - top;
    x = (x - top).exp(); // the padding becomes exactly 0
    const float parked = sink ? std::exp(*sink - top) : 0.0f;
    const float sum = x.sum() + parked, inv = 1.0f / sum;
    if (share) *share = parked * inv;
    // Σ p (x − top) = Σ e (x − top) / S: the weights scaled once, on their way out.
    if (entropy) *entropy = (1.0f - parked * inv) * std::log(sum) - (x.head(n) * shifted.head(n)).sum() * inv;
    const float* e = x.data();
    for (Index j = 0; j < n; ++j) w[lo + j] = e[j] * inv;
}

// Queries `block` rows at a time: under the causal mask a block's weights are 0 past its last
// query's position, so neither product goes beyond it.
void attend(const Attend& a) {
    const Index block = 64;
    for (Index i0 = 0; i0 < a.m; i0 += block) {
        const Index i1 = smaller(a.m, i0 + block), rows = i1 - i0;
        const Index live = a.causal ? smaller(a.keys, a.first_pos + i1) : a.keys;
        float* w = a.weights + i0 * a.keys;
        rows_product({a.q + i0 * a.ldq, a.ldq, a.k, a.ldk, true, w, a.keys, rows, a.d, live}, false); // (rows, live)
        for (Index i = i0; i < i1; ++i) {
            const Index p = a.first_pos + i;
            const Index hi = a.causal ? smaller(a.keys, p + 1) : a.keys;
            const Index lo = a.window > 0 ? larger(0, p - a.window + 1) : 0;
            softmax_row(a.weights + i * a.keys, a.keys, lo, hi, a.scale, a.softcap, a.sink, a.sink_share ? a.sink_share + i : nullptr,
                        a.entropy ? a.entropy + i : nullptr);
        }
        if (a.out) rows_product({w, a.keys, a.v, a.ldk, false, a.out + i0 * a.ldo, a.ldo, rows, live, a.d}, false); // (rows, d)
    }
}

void activate_in_place(Aligned& v, Activation act) {
    switch (act) {
    case Activation::gelu_tanh: v = 0.5f * v * (1.0f + (0.7978845608028654f * (v + 0.044715f * v.cube())).tanh()); break;
    case Activation::gelu_erf: v = 0.5f * v * (1.0f + (v * 0.7071067811865476f).erf()); break;
    case Activation::relu: v = v.max(0.0f); break;
    case Activation::silu: v = v * v.logistic(); break;
    case Activation::quick_gelu: v = v * (1.702f * v).logistic(); break;
    }
}

constexpr Index chunk = 4096;

// body(i0, i1) over [0, n) in pieces of `piece`, shared between the cores where there are at least
// two: each piece computes what it would alone, so the bits do not depend on the threads. GPT-2
// small's GELU and layer norms at t = 128 were 4.7 ms of a forward on one core beside products on two.
template <typename Body>
void in_pieces(Index n, Index piece, const Body& body) {
    struct Job {
        const Body* body;
        Index n, piece;
        static void one(void* context, std::ptrdiff_t i) {
            const auto& j = *static_cast<Job*>(context);
            (*j.body)(i * j.piece, smaller(j.n, (i + 1) * j.piece));
        }
    } job{&body, n, piece};
    core::parallel::for_each((n + piece - 1) / piece, &Job::one, &job);
}

void activate(float* x, Index n, Activation act) {
    in_pieces(n, chunk, [&](Index i0, Index i1) {
        Aligned v = buffer_a.load(x + i0, i1 - i0, 0.0f);
        activate_in_place(v, act);
        buffer_a.store(x + i0, i1 - i0);
    });
}

void gated(float* gate, const float* up, Index n, Activation act) {
    in_pieces(n, chunk, [&](Index i0, Index i1) {
        Aligned g = buffer_a.load(gate + i0, i1 - i0, 0.0f);
        activate_in_place(g, act);
        g *= buffer_b.load(up + i0, i1 - i0, 0.0f);
        buffer_a.store(gate + i0, i1 - i0);
    });
}

// Rows of d values a piece of the norms: about `chunk` values.
Index norm_rows(Index d) { return larger(1, chunk / larger(1, d)); }

// Per row: y = (x − mean) / √(var + eps) · w + b, mean and var over the d values (the padding is 0
// and is left out of both).
void layer_norm(const float* x, float* y, Index rows, Index d, const float* w, const float* b, float eps) {
    in_pieces(rows, norm_rows(d), [&](Index r0, Index r1) {
        for (Index r = r0; r < r1; ++r) {
            Aligned in = buffer_a.load(x + r * d, d, 0.0f);
            const float mean = in.sum() / static_cast<float>(d);
            Aligned centred = buffer_b.load(x + r * d, d, mean);
            centred -= mean;
            const float var = centred.square().sum() / static_cast<float>(d);
            const float inv = 1.0f / std::sqrt(var + eps);
            float* out = y + r * d;
            for (Index j = 0; j < d; ++j) out[j] = buffer_b.data[static_cast<std::size_t>(j)] * inv * w[j] + b[j];
        }
    });
}

void rms_norm(const float* x, float* y, Index rows, Index d, const float* w, float eps) {
    in_pieces(rows, norm_rows(d), [&](Index r0, Index r1) {
        for (Index r = r0; r < r1; ++r) {
            Aligned in = buffer_a.load(x + r * d, d, 0.0f);
            const float inv = 1.0f / std::sqrt(in.square().sum() / static_cast<float>(d) + eps);
            float* out = y + r * d;
            for (Index j = 0; j < d; ++j) out[j] = w[j] * (buffer_a.data[static_cast<std::size_t>(j)] * inv);
        }
    });
}

thread_local std::vector<double, Eigen::aligned_allocator<double>> doubles;

std::uint64_t bits_of(double x) {
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

double double_of(std::uint64_t u) {
    double x;
    std::memcpy(&x, &u, sizeof x);
    return x;
}

// x[i] ← exp(x[i]) for x ≤ 0, in a loop the compiler vectorises: Eigen 3.4's double exp divides once
// per packet, which was most of the LM head's per-row work. exp(x) = 2^k · exp(r), k = round(x / ln 2),
// r = x − k ln 2 (|r| ≤ ln 2 / 2, ln 2 in two parts), exp(r) by its Taylor series to r^13 / 13!
// (the next term is below 5e-18 relative). Below −708 the value is 0 (it would be subnormal; in a sum
// of at least 1 it counts for nothing); NaN stays NaN.
void exp_of_nonpositive(double* x, Index n) {
    constexpr double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
    constexpr double inv_ln2 = 1.44269504088896338700e+00, shifter = 6755399441055744.0; // 1.5 · 2^52: adding it rounds to an integer
#if defined(__clang__)
#pragma clang loop vectorize_width(8)
#endif
    for (Index i = 0; i < n; ++i) {
        const double a = x[i], c = a < -708.0 ? -708.0 : a;
        const double t = c * inv_ln2 + shifter, k = t - shifter;
        const double r = (c - k * ln2_hi) - k * ln2_lo;
        // Σ r^j / j! by Estrin's scheme: pairs, then pairs of pairs, a chain of 4 multiply-adds, not 13.
        const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
        const double q0 = 1.0 + r, q1 = 0.5 + r * (1.0 / 6), q2 = 1.0 / 24 + r * (1.0 / 120), q3 = 1.0 / 720 + r * (1.0 / 5040),
                     q4 = 1.0 / 40320 + r * (1.0 / 362880), q5 = 1.0 / 3628800 + r * (1.0 / 39916800),
                     q6 = 1.0 / 479001600 + r * (1.0 / 6227020800);
        const double p = (q0 + q1 * r2) + (q2 + q3 * r2) * r4 + ((q4 + q5 * r2) + q6 * r4) * r8;
        const double scale = double_of((bits_of(t) - bits_of(shifter) + 1023) << 52); // 2^k, k ≥ −1022
        x[i] = a < -708.0 ? 0.0 : p * scale;
    }
}

// The shift in one pass and exp in another, each a plain loop over an aligned double array that the
// compiler vectorises: Eigen 3.4 has no packets for a float → double cast (exp of the cast expression
// ran on libm one value at a time, 7 % of a GPT-2 forward's whole run at t = 128).
void max_exp_sum(const float* x, Index n, float* max, double* sum) {
    const Aligned v = buffer_a.load(x, n, -std::numeric_limits<float>::infinity());
    const float top = v.maxCoeff();
    if (static_cast<Index>(doubles.size()) < v.size()) doubles.resize(static_cast<std::size_t>(v.size()));
    Eigen::Map<Eigen::ArrayXd, Eigen::AlignedMax> e(doubles.data(), v.size());
    const float* from = v.data();
    double* to = e.data();
    for (Index i = 0; i < v.size(); ++i) to[i] = static_cast<double>(from[i]) - static_cast<double>(top);
    exp_of_nonpositive(e.data(), e.size()); // the padding becomes exactly 0
    *max = top;
    *sum = e.sum();
}

// [SECTION] One row times a matrix
//
// oneDNN's matrix-vector product read GPT-2 small's float32 weights at t = 1 at 18 of the 41 GiB/s
// two cores read (forward 17.9 ms for 320 MB). These loops stream B as it lies, each core a
// contiguous half: B (n, k) as one dot product per output, its outputs in halves; B (k, n) as its
// rows scaled into a block of C in L1, four rows a pass, its rows in halves whose two sums are
// added. Each output's sum runs in an order fixed by the shape alone: the same bits on any number
// of threads, at any address.

constexpr Index dot_lanes = 64; // four packets of 16 sums at once on x86-64-v4

float dot(const float* __restrict a, const float* __restrict b, Index k) {
    float part[dot_lanes] = {};
    Index d = 0;
    for (; d + dot_lanes <= k; d += dot_lanes)
        for (Index l = 0; l < dot_lanes; ++l) part[l] += a[d + l] * b[d + l];
    for (Index l = 0; d + l < k; ++l) part[l] += a[d + l] * b[d + l];
    for (Index half = dot_lanes / 2; half > 0; half /= 2)
        for (Index l = 0; l < half; ++l) part[l] += part[l + half];
    return part[0];
}

constexpr Index ahead = 8; // rows of B fetched ahead of the four being scaled

// sum (c1 − c0) = A's depths d0 … d1−1 times B (k, n)'s rows d0 … d1−1, columns c0 … c1−1.
void scaled_rows(const Gemm& g, Index d0, Index d1, Index c0, Index c1, float* __restrict sum) {
    const Index cols = c1 - c0;
    std::fill(sum, sum + cols, 0.0f);
    Index d = d0;
    for (; d + 4 <= d1; d += 4) {
        const float a0 = g.A[d], a1 = g.A[d + 1], a2 = g.A[d + 2], a3 = g.A[d + 3];
        const float* __restrict b0 = g.B + d * g.ldb + c0;
        const float* __restrict b1 = b0 + g.ldb;
        const float* __restrict b2 = b1 + g.ldb;
        const float* __restrict b3 = b2 + g.ldb;
        const auto scale = [&](Index j) {
            float s = sum[j];
            s += a0 * b0[j];
            s += a1 * b1[j];
            s += a2 * b2[j];
            s += a3 * b3[j];
            sum[j] = s;
        };
        // Whole blocks of `lanes` columns in a loop of that constant length, which the compiler turns
        // into packets: a loop of a length known only at run time it vectorized 32 columns at a time,
        // more than a block, so every column ran on the scalar remainder.
        Index j0 = 0;
        for (; j0 + lanes <= cols; j0 += lanes) {
            for (const float* row : {b0, b1, b2, b3}) __builtin_prefetch(row + ahead * g.ldb + j0);
            for (Index l = 0; l < lanes; ++l) scale(j0 + l);
        }
        for (Index j = j0; j < cols; ++j) scale(j);
    }
    for (; d < d1; ++d) {
        const float a = g.A[d];
        const float* __restrict b = g.B + d * g.ldb + c0;
        for (Index j = 0; j < cols; ++j) sum[j] += a * b[j];
    }
}

constexpr Index row_block = 4096; // columns of C a scaled_rows pass keeps in L1 (16 KB)

// B (k, n), columns c0 … c1−1: the sums over B's first and second half of rows (split at a multiple
// of 4 fixed by k), each into its own buffer. Two halves on any number of cores: one row's product
// is bound by reading B, which two cores already do at the memory's rate.
struct ScaledHalves {
    const Gemm* g;
    Index c0, c1;
    float* sums[2];
    static void one(void* context, std::ptrdiff_t i) {
        const auto& h = *static_cast<ScaledHalves*>(context);
        const Index middle = h.g->k / 2 / 4 * 4;
        scaled_rows(*h.g, i == 0 ? 0 : middle, i == 0 ? middle : h.g->k, h.c0, h.c1, h.sums[i]);
    }
};

void scaled_product(const Gemm& g, bool parallel) {
    thread_local std::vector<float> halves;
    halves.resize(static_cast<std::size_t>(2 * std::min(row_block, g.n)));
    for (Index c0 = 0; c0 < g.n; c0 += row_block) {
        const Index c1 = std::min(g.n, c0 + row_block), cols = c1 - c0;
        ScaledHalves job{&g, c0, c1, {halves.data(), halves.data() + cols}};
        if (parallel) core::parallel::for_each(2, &ScaledHalves::one, &job);
        else
            for (int i = 0; i < 2; ++i) ScaledHalves::one(&job, i);
        for (Index j = 0; j < cols; ++j) {
            const float s = job.sums[0][j] + job.sums[1][j];
            g.C[c0 + j] = g.accumulate ? g.C[c0 + j] + s : s;
        }
    }
}

// B (n, k): outputs c0 … c1−1.
void dots(const Gemm& g, Index c0, Index c1) {
    for (Index j = c0; j < c1; ++j) {
        const float s = dot(g.A, g.B + j * g.ldb, g.k);
        g.C[j] = g.accumulate ? g.C[j] + s : s;
    }
}

struct DotHalves {
    const Gemm* g;
    static void one(void* context, std::ptrdiff_t i) {
        const Gemm& g = *static_cast<DotHalves*>(context)->g;
        const Index middle = g.n / 2;
        dots(g, i == 0 ? 0 : middle, i == 0 ? middle : g.n);
    }
};

// C (+)= A · B: one row by the loops above (on the two cores where `parallel` and B is large), more
// rows by rows_product.
void gemm(const Gemm& g, bool parallel) {
    if (g.m != 1) return rows_product(g, parallel);
    const bool share = parallel && g.n * g.k >= (Index{1} << 16);
    if (!g.b_transposed) return scaled_product(g, share);
    DotHalves job{&g};
    if (share) return core::parallel::for_each(2, &DotHalves::one, &job);
    dots(g, 0, g.n);
}

constexpr Set set = {ATTNVIZ_OPS_NAME, gemm, attend, activate, gated, layer_norm, rms_norm, max_exp_sum, block_dot::product_columns};

} // namespace
} // namespace ATTNVIZ_OPS_NS

const Set* ATTNVIZ_OPS_GETTER() { return &ATTNVIZ_OPS_NS::set; }

} // namespace core::model::ops
