// core/model/arch/gated_delta_net.h — the linear attention layer of Qwen3.5 and Qwen3-Next (the
// Gated DeltaNet of modeling_qwen3_5.py / modeling_qwen3_next.py), on the stream after its norm:
//
//   qkv = a · in_proj_qkvᵀ, z = a · in_proj_zᵀ, b = a · in_proj_bᵀ, a' = a · in_proj_aᵀ   (Qwen3.5)
//       (Qwen3-Next: one a · in_proj_qkvzᵀ and one a · in_proj_baᵀ, grouped per key head as
//        [q | k | v of its value heads | z of its value heads] and [b … | a …], regrouped to the above)
//   qkv ← SiLU(causal depthwise conv1d of each channel over the last `kernel` positions)   (t, 2·Hk·dk + Hv·dv)
//   q, k, v = the three column blocks; q, k ← each head's L2 norm (x · rsqrt(Σx² + 1e-6)); q ← q / √dk
//   β = sigmoid(b), g = −exp(A_log) · softplus(a' + dt_bias)                           (t, Hv) each
//   o = the gated delta rule (core/model/delta_rule.h)                                  (t, Hv·dv)
//   o ← each head's RMSNorm(o) · norm.weight · SiLU(z) (the norm's eps: rms_norm_eps)
//   x += o · out_projᵀ
// Internal to core/model/arch/*.cpp.
#pragma once

#include "core/model/arch/layers.h"
#include "core/model/delta_rule.h"

#include <memory>
#include <string>

namespace core::model::gated_delta_net {

using Tensor = Weights::Tensor;

struct Tensors {
    const Tensor *qkv = nullptr, *z = nullptr, *b = nullptr, *a = nullptr; // (2·Hk·dk + Hv·dv, D), (Hv·dv, D), (Hv, D), (Hv, D), or
    const Tensor *qkvz = nullptr, *ba = nullptr;                           // Qwen3-Next's fused (2·Hk·dk + 2·Hv·dv, D), (2·Hv, D)
    const Tensor* conv = nullptr;                                          // (2·Hk·dk + Hv·dv, 1, kernel)
    const Tensor *A_log = nullptr, *dt_bias = nullptr;                     // (Hv) each
    const Tensor* norm = nullptr;                                          // (dv)
    const Tensor* out = nullptr;                                           // (D, Hv·dv)
};

struct Layer {
    Tensors w;
    delta_rule::Shape shape;
    int kernel = 4;
    std::vector<float> conv; // (2·Hk·dk + Hv·dv, kernel) the conv1d's weights in float32, whatever their stored type
    float eps = 1e-6f; // of the gated norm
};

// What the rule takes, per position: q, k (t, Hk·dk), v and z (t, Hv·dv), β and g (t, Hv).
struct Projected {
    MatrixF q, k, v, z, beta, g;
    delta_rule::Inputs inputs() const { return {q.data(), k.data(), v.data(), beta.data(), g.data(), static_cast<int>(q.rows())}; }
};
Projected project(const Layer& L, const MatrixF& a);

// x (copies · t, D) += the layer's output for a (copies · t, D), each copy of t rows its own
// sequence. `p` receives the first copy's projections (the maps keep q, k, β and g); the heads of
// `layer` that o.ablate, o.patch or o.copies name are knocked out or patched after the gated norm,
// which is also what o.head_outputs keeps. A recorded layer's write is one component per value head,
// head_part(l, h), its output through its columns of out_proj.
void add(const Layer& L, int layer, int t, const MatrixF& a, const ForwardOptions& o, Projected& p, MatrixF& x);

// Layer l's tensors under "model.layers.L.linear_attn.", checked against `shape`, D and the kernel;
// `fused`: Qwen3-Next's in_proj_qkvz and in_proj_ba.
Layer read(const Weights& w, int l, std::int64_t D, const delta_rule::Shape& shape, int kernel, float eps, bool fused);

} // namespace core::model::gated_delta_net
