// core/train/gpt2_ops_impl.h — the body of one build of core/train/gpt2_ops.h. Only
// core/train/gpt2_ops_*.cpp include it, each after defining
//
//   ATTNVIZ_KERNEL_NS      the namespace of this build
//   ATTNVIZ_KERNEL_NAME    "generic", "x86-64-v3", "x86-64-v4"
//   ATTNVIZ_OPS_F32        the getter of this build's float32 Set
//   ATTNVIZ_OPS_F64        (generic only) the getter of its float64 Set
//   Eigen                  a name of Eigen's namespace unique to this build
//
// and compiled with its own -march; Eigen renamed so that no inline function of one build stands
// in for another's (see core/kernels_impl.h). No project header that includes Eigen may come in.
#pragma once

#include "core/train/gpt2_ops.h"
#include "core/march_build.h"

#include <cmath>

namespace core::train::gpt2_ops {
namespace ATTNVIZ_KERNEL_NS {
namespace {

using Eigen::Index;
template <class T> using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T> using MapM = Eigen::Map<Mat<T>>;
template <class T> using CMapM = Eigen::Map<const Mat<T>>;
// A block of columns of a row-major matrix: rows `stride` apart.
template <class T> using StridedM = Eigen::Map<Mat<T>, 0, Eigen::OuterStride<>>;
template <class T> using CStridedM = Eigen::Map<const Mat<T>, 0, Eigen::OuterStride<>>;
template <class T> using ArrayMap = Eigen::Map<Eigen::Array<T, 1, Eigen::Dynamic>>;
template <class T> using CArrayMap = Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>>;

// [SECTION] Conv1D and the tied head ---------------------------------------------------------------

template <class T>
void matmul_forward(T* out, const T* inp, const T* W, const T* bias, int N, int C, int OC) {
    MapM<T> o(out, N, OC);                                   // (N, OC)
    o.noalias() = CMapM<T>(inp, N, C) * CMapM<T>(W, C, OC);  // (N, C) · (C, OC)
    if (bias) o.rowwise() += CMapM<T>(bias, 1, OC).row(0);
}

template <class T>
void matmul_backward(T* dinp, T* dW, T* dbias, const T* dout, const T* inp, const T* W, int N, int C, int OC) {
    const CMapM<T> d(dout, N, OC);                                          // (N, OC)
    MapM<T>(dinp, N, C).noalias() += d * CMapM<T>(W, C, OC).transpose();    // (N, C)
    MapM<T>(dW, C, OC).noalias() += CMapM<T>(inp, N, C).transpose() * d;    // (C, OC)
    if (dbias) MapM<T>(dbias, 1, OC).row(0) += d.colwise().sum();
}

template <class T>
void unembed_forward(T* logits, const T* inp, const T* wte, int N, int C, int V) {
    MapM<T>(logits, N, V).noalias() = CMapM<T>(inp, N, C) * CMapM<T>(wte, V, C).transpose(); // (N, V)
}

template <class T>
void unembed_backward(T* dinp, T* dwte, const T* dlogits, const T* inp, const T* wte, int N, int C, int V) {
    const CMapM<T> d(dlogits, N, V);                                       // (N, V)
    MapM<T>(dinp, N, C).noalias() = d * CMapM<T>(wte, V, C);               // (N, C)
    MapM<T>(dwte, V, C).noalias() += d.transpose() * CMapM<T>(inp, N, C);  // (V, C)
}

// [SECTION] layer norm ------------------------------------------------------------------------------

template <class T>
void layernorm_forward(T* out, T* mean, T* rstd, const T* inp, const T* w, const T* b, int N, int C, T eps) {
    const CArrayMap<T> gain(w, C), shift(b, C);
    for (int i = 0; i < N; ++i) {
        const CArrayMap<T> x(inp + static_cast<Index>(i) * C, C);
        const T m = x.mean();
        const T var = (x - m).square().mean();
        const T s = T(1) / std::sqrt(var + eps);
        ArrayMap<T>(out + static_cast<Index>(i) * C, C) = (x - m) * s * gain + shift;
        mean[i] = m;
        rstd[i] = s;
    }
}

// With x̂ = (x - mean)·rstd and g = dout·w: dx = rstd · (g - mean(g) - x̂ · mean(g·x̂)).
template <class T>
void layernorm_backward(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, const T* mean, const T* rstd, int N, int C) {
    const CArrayMap<T> gain(w, C);
    ArrayMap<T> gw(dw, C), gb(db, C);
    for (int i = 0; i < N; ++i) {
        const Index at = static_cast<Index>(i) * C;
        const CArrayMap<T> x(inp + at, C), d(dout + at, C);
        const auto xhat = (x - mean[i]) * rstd[i];
        const auto g = d * gain;
        const T g_mean = g.mean(), gx_mean = (g * xhat).mean();
        gb += d;
        gw += d * xhat;
        ArrayMap<T>(dinp + at, C) += (g - g_mean - xhat * gx_mean) * rstd[i];
    }
}

// [SECTION] causal self-attention --------------------------------------------------------------------

template <class T>
void attention_forward(T* out, T* att, const T* qkv, int B, int T_, int C, int H) {
    const int hs = C / H;
    const T scale = T(1) / std::sqrt(static_cast<T>(hs));
    for (int b = 0; b < B; ++b) {
        const T* base = qkv + static_cast<Index>(b) * T_ * 3 * C;
        for (int h = 0; h < H; ++h) {
            const CStridedM<T> q(base + h * hs, T_, hs, Eigen::OuterStride<>(3 * C));         // (T, hs)
            const CStridedM<T> k(base + C + h * hs, T_, hs, Eigen::OuterStride<>(3 * C));     // (T, hs)
            const CStridedM<T> v(base + 2 * C + h * hs, T_, hs, Eigen::OuterStride<>(3 * C)); // (T, hs)
            MapM<T> P(att + (static_cast<Index>(b) * H + h) * T_ * T_, T_, T_);               // (T, T)
            P.noalias() = q * k.transpose();
            for (int i = 0; i < T_; ++i) {
                auto row = P.row(i).head(i + 1).array();
                const T top = row.maxCoeff();
                row = ((row - top) * scale).exp();
                row /= row.sum();
                P.row(i).tail(T_ - i - 1).setZero();
            }
            StridedM<T> y(out + static_cast<Index>(b) * T_ * C + h * hs, T_, hs, Eigen::OuterStride<>(C)); // (T, hs)
            y.noalias() = P * v;
        }
    }
}

// dv = Pᵀ dy; dP = dy vᵀ; dS = P ∘ (dP - rowsum(P ∘ dP)) · scale; dq = dS k; dk = dSᵀ q.
template <class T>
void attention_backward(T* dqkv, T* scratch, const T* dout, const T* qkv, const T* att, int B, int T_, int C, int H) {
    const int hs = C / H;
    const T scale = T(1) / std::sqrt(static_cast<T>(hs));
    MapM<T> dS(scratch, T_, T_); // (T, T)
    for (int b = 0; b < B; ++b) {
        const T* base = qkv + static_cast<Index>(b) * T_ * 3 * C;
        T* dbase = dqkv + static_cast<Index>(b) * T_ * 3 * C;
        for (int h = 0; h < H; ++h) {
            const Eigen::OuterStride<> s3(3 * C);
            const CStridedM<T> q(base + h * hs, T_, hs, s3), k(base + C + h * hs, T_, hs, s3), v(base + 2 * C + h * hs, T_, hs, s3);
            StridedM<T> dq(dbase + h * hs, T_, hs, s3), dk(dbase + C + h * hs, T_, hs, s3), dv(dbase + 2 * C + h * hs, T_, hs, s3);
            const CStridedM<T> dy(dout + static_cast<Index>(b) * T_ * C + h * hs, T_, hs, Eigen::OuterStride<>(C)); // (T, hs)
            const CMapM<T> P(att + (static_cast<Index>(b) * H + h) * T_ * T_, T_, T_);                             // (T, T)
            dv.noalias() = P.transpose() * dy;
            dS.noalias() = dy * v.transpose();
            for (int i = 0; i < T_; ++i) {
                const T dot = P.row(i).head(i + 1).dot(dS.row(i).head(i + 1));
                dS.row(i).head(i + 1).array() = P.row(i).head(i + 1).array() * (dS.row(i).head(i + 1).array() - dot) * scale;
                dS.row(i).tail(T_ - i - 1).setZero();
            }
            dq.noalias() = dS * k;
            dk.noalias() = dS.transpose() * q;
        }
    }
}

// [SECTION] GELU (tanh approximation) ----------------------------------------------------------------

template <class T>
constexpr T gelu_c() { return T(0.7978845608028654); } // √(2/π)

template <class T>
void gelu_forward(T* out, const T* inp, std::ptrdiff_t n) {
    const CArrayMap<T> x(inp, n);
    ArrayMap<T>(out, n) = T(0.5) * x * (T(1) + (gelu_c<T>() * (x + T(0.044715) * x.cube())).tanh());
}

template <class T>
void gelu_backward(T* dinp, const T* inp, const T* dout, std::ptrdiff_t n) {
    constexpr std::ptrdiff_t block = 1024; // th stays in L1
    Eigen::Array<T, 1, block> th;
    for (std::ptrdiff_t at = 0; at < n; at += block) {
        const std::ptrdiff_t m = n - at < block ? n - at : block;
        const CArrayMap<T> x(inp + at, m), d(dout + at, m);
        auto t = th.head(m);
        t = (gelu_c<T>() * (x + T(0.044715) * x.cube())).tanh();
        const auto local = T(0.5) * (T(1) + t) + T(0.5) * x * (T(1) - t * t) * gelu_c<T>() * (T(1) + T(3 * 0.044715) * x.square());
        ArrayMap<T>(dinp + at, m) = d * local;
    }
}

// [SECTION] cross-entropy ---------------------------------------------------------------------------

template <class T>
void crossentropy(T* losses, T* dlogits, const T* logits, const int* targets, int N, int V, T scale) {
    for (int i = 0; i < N; ++i) {
        const Index at = static_cast<Index>(i) * V;
        const CArrayMap<T> l(logits + at, V);
        const int t = targets[i];
        if (t < 0) {
            losses[i] = 0;
            if (dlogits) ArrayMap<T>(dlogits + at, V).setZero();
            continue;
        }
        const T top = l.maxCoeff();
        const T sum = (l - top).exp().sum();
        losses[i] = std::log(sum) - (l[t] - top);
        if (dlogits) {
            ArrayMap<T> d(dlogits + at, V);
            d = (l - top).exp() * (scale / sum);
            d[t] -= scale;
        }
    }
}

template <class T>
constexpr Set<T> make_set() {
    return Set<T>{ATTNVIZ_KERNEL_NAME, matmul_forward<T>, matmul_backward<T>, unembed_forward<T>, unembed_backward<T>,
                  layernorm_forward<T>, layernorm_backward<T>, attention_forward<T>, attention_backward<T>,
                  gelu_forward<T>, gelu_backward<T>, crossentropy<T>};
}

constexpr Set<float> set_f32 = make_set<float>();
#ifdef ATTNVIZ_OPS_F64
constexpr Set<double> set_f64 = make_set<double>();
#endif

} // namespace
} // namespace ATTNVIZ_KERNEL_NS

const Set<float>* ATTNVIZ_OPS_F32() { return &ATTNVIZ_KERNEL_NS::set_f32; }
#ifdef ATTNVIZ_OPS_F64
const Set<double>* ATTNVIZ_OPS_F64() { return &ATTNVIZ_KERNEL_NS::set_f64; }
#endif

} // namespace core::train::gpt2_ops
