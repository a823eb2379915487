// core/model/arch/head_slices.h — each head's slices of a layer's projections, for the
// architectures' attention_weights (core/model/attention_weights.h). Internal to core/model/arch/*.cpp.
#pragma once

#include "core/model/arch/layers.h"
#include "core/model/attention_weights.h"

#include <cstdint>
#include <vector>

namespace core::model::head_slices {

using layers::Layout;
using Tensor = Weights::Tensor;

// A layer's projections: q, k and v (with their biases, or null) from outputs q_first, k_first and
// v_first of their tensors (the same one when fused), and the output projection o.
struct Projections {
    const Tensor *q, *k, *v, *o;
    const Tensor *q_b, *k_b, *v_b;
    Layout layout;
    std::int64_t q_first = 0, k_first = 0, v_first = 0;
};
// The sizes of `c` and every head's slices of `p` (the rest of LayerAttention as it defaults).
LayerAttention heads_of(const ModelConfig& c, const Projections& p);

// A 1-D tensor's values.
std::vector<float> values(const Tensor& t);
// A norm of `kind` with scale w (and shift b).
NormWeights norm(NormWeights::Kind kind, const Tensor& w, const Tensor* b, double eps);

// RoPE as LayerAttention::rotation has it: rotary::rotate (cos and sin times `scale`) on a row.
std::function<MatrixF(int)> rotation(std::vector<float> inv_freq, int dh, float scale = 1.0f);

} // namespace core::model::head_slices
