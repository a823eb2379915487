// core/heads/rollout.h — attention rollout: how much of each position comes from each input token,
// through every layer, and the mean over a layer's heads that it starts from.
#pragma once

#include "core/heads/scores.h" // AttentionRefF, AttentionRefD

#include <cstddef>
#include <vector>

namespace core::heads {

// C (m, n) = A (m, k) · B (k, n), all row-major with row strides lda, ldb, ldc: the float product
// a rollout runs on, passed by a caller that has faster kernels than Eigen's (core/model's, built
// for this CPU); Eigen's without one.
using FloatProduct = void (*)(const float* A, std::ptrdiff_t lda, const float* B, std::ptrdiff_t ldb, float* C, std::ptrdiff_t ldc,
                              std::ptrdiff_t m, std::ptrdiff_t k, std::ptrdiff_t n);

// Abnar and Zuidema (2020): Â_l = rownorm(mean over heads of A_l + I), R = Â_L ⋯ Â_1.
// `layer_mean_attention[l]` is the mean over layer l's heads (t, t); see mean_over_heads. Returns R
// (t, t): row i is how much of the last layer's position i comes from each input token, in the
// inputs' precision. Causal (lower-triangular) inputs skip the blocks above the diagonal: about a
// sixth of a dense product's work. Throws std::invalid_argument for no layer or unequal shapes.
MatrixF rollout(const std::vector<MatrixF>& layer_mean_attention, FloatProduct product = nullptr);
core::Matrix rollout(const std::vector<core::Matrix>& layer_mean_attention);

// Rollout of a forward pass's attention (layers, heads, t, t) row-major.
MatrixF rollout(const float* attention, int layers, int heads, int t, FloatProduct product = nullptr);

// One layer of it, as a forward runs (core/model's ForwardOptions::rollout): R ← rownorm(A + I) · R for that
// layer's mean attention A (t, t); an empty R stands for I. `causal`: A and R are lower-triangular.
void rollout_layer(const MatrixF& layer_mean_attention, MatrixF& R, bool causal, FloatProduct product = nullptr);

// The mean over one layer's heads, `layer` (heads, t, t) row-major → (t, t), rows shared between the
// cores.
MatrixF mean_over_heads(const float* layer, int heads, int t);

// The mean over the H heads of one layer, heads[h] (t, t) → (t, t).
MatrixF mean_over_heads(const std::vector<AttentionRefF>& heads);
core::Matrix mean_over_heads(const std::vector<AttentionRefD>& heads);

} // namespace core::heads
