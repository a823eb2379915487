// core/model/arch/gated_delta_net.h — the linear attention layer of Qwen3.5 and Qwen3-Next (the
// Gated DeltaNet of modeling_qwen3_5.py / modeling_qwen3_next.py), on the stream after its norm:
//
//   qkv = a · in_proj_qkvᵀ, z = a · in_proj_zᵀ, b = a · in_proj_bᵀ, a' = a · in_proj_aᵀ   (Qwen3.5)
//       (Qwen3-Next: one a · in_proj_qkvzᵀ and one a · in_proj_baᵀ, grouped per key head as
//        [q | k | v of its value heads | z of its value heads] and [b … | a …], regrouped to the above)
//   qkv ← SiLU(causal depthwise conv1d of each channel over the last `kernel` positions)   (t, 2·Hk·dk + Hv·dv)
//   q, k, v = the three column blocks; q, k ← each head's L2 norm (x · rsqrt(Σx² + 1e-6); llama.cpp's
//       ggml_l2_norm: x / max(‖x‖, rms_norm_eps)); q ← q / √dk
//   β = sigmoid(b), g = −exp(A_log) · softplus(a' + dt_bias)                           (t, Hv) each
//       (llama.cpp's files hold ssm_a = −exp(A_log) itself)
//   o = the gated delta rule (core/model/delta_rule.h)                                  (t, Hv·dv)
//   o ← each head's RMSNorm(o) · norm.weight · SiLU(z) (the norm's eps: rms_norm_eps)
//   x += o · out_projᵀ
// A sequence continued on a cache starts from its LinearState (the convolution's last inputs and
// each head's S) and leaves the state after its last position there.
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
    const Tensor* conv = nullptr;                                          // (2·Hk·dk + Hv·dv, 1, kernel), GGUF (…, kernel)
    const Tensor* dt_bias = nullptr;                                       // (Hv)
    const Tensor* norm = nullptr;                                          // (dv)
    const Tensor* out = nullptr;                                           // (D, Hv·dv)
};

struct Layer {
    Tensors w;
    delta_rule::Shape shape;
    int kernel = 4;
    std::vector<float> conv;  // (2·Hk·dk + Hv·dv, kernel) the conv1d's weights in float32, whatever their stored type
    std::vector<float> decay; // (Hv) −exp(A_log), the rate g's softplus is scaled by
    float eps = 1e-6f;        // of the gated norm
    float l2_floor = 0.0f;    // 0: q, k · rsqrt(Σx² + 1e-6) (transformers); else / max(‖x‖, l2_floor) (llama.cpp)
};

// How a file holds the layer's tensors.
struct Source {
    bool fused_qkvz = false;  // in_proj_qkvz grouped per key head (Qwen3-Next's Hub files, llama.cpp's older ssm_in)
    bool fused_ba = false;    // in_proj_ba grouped per key head (Qwen3-Next)
    bool llama_cpp = false;   // llama.cpp's converter: "A" holds −exp(A_log), conv1d is (C, kernel), ggml's L2 norm
    bool tiled = false;       // value heads in llama.cpp's tiled order (qwen35, qwen35moe): delta_rule::Shape::tiled
};

// What the rule takes, per position: q, k (t, Hk·dk), v and z (t, Hv·dv), β and g (t, Hv).
struct Projected {
    MatrixF q, k, v, z, beta, g;
    delta_rule::Inputs inputs() const { return {q.data(), k.data(), v.data(), beta.data(), g.data(), static_cast<int>(q.rows())}; }
};
// The projections of a (t, D), the convolution continuing from from->conv (null or empty: zeros
// before the first); `to` (when given) receives the last kernel − 1 inputs in its conv.
Projected project(const Layer& L, const MatrixF& a, const LinearState* from = nullptr, LinearState* to = nullptr);
// project's q and k of a (t, D) from zeros before the first position, the same bits, without the
// gate, the values' use, β and g: what the maps project again from a long run's kept input.
void project_qk(const Layer& L, const MatrixF& a, std::vector<float>& q, std::vector<float>& k);

// x (copies · t, D) += the layer's output for a (copies · t, D), each copy of t rows its own
// sequence. `p` receives the first copy's q, k, β and g (the maps keep them), and v where
// o.capture_qkv or o.linear_values; the heads of `layer` that o.ablate, o.patch or o.copies name are
// knocked out or patched after the gated norm, which is also what o.head_outputs keeps. A recorded
// layer's write is one component per value head, head_part(l, h), its output through its columns of
// out_proj. With `from` (one copy only) the sequence continues from that state; `to` receives the
// state after its last position (conv and S).
void add(const Layer& L, int layer, int t, const MatrixF& a, const ForwardOptions& o, Projected& p, MatrixF& x,
         const LinearState* from = nullptr, LinearState* to = nullptr);

// Layer l's tensors under PREFIX "L.linear_attn." (prefix "model.layers."), checked against `shape`,
// D and the kernel.
Layer read(const Weights& w, const std::string& prefix, int l, std::int64_t D, delta_rule::Shape shape, int kernel, float eps, const Source& from);

} // namespace core::model::gated_delta_net
