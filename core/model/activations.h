// core/model/activations.h — one layer's activations on a sequence, to check against a reference
// (`attnviz --forward MODEL --activations L`): a linear layer's (Gated DeltaNet) q, k, v, β and g as its
// delta rule reads them (core/model/delta_rule.h: after the convolution, q and k L2-normed, q times
// 1/√d_k), or a softmax layer's q, k and v head by head as its attention used them (q and k after RoPE
// and any q/k norm; k and v those of the head's key/value head). Layers count from 0 here.
#pragma once

#include "core/model/forward.h"

#include <vector>

namespace core::model {

struct LayerActivations {
    bool linear = false;
    int q_heads = 0, v_heads = 0; // linear: key heads and value heads; softmax: heads, heads
    MatrixF q, k;                 // (q_heads, t, d_k) stacked as (q_heads · t, d_k)
    MatrixF v;                    // (v_heads · t, d_v)
    MatrixF beta, g;              // linear: (v_heads, t) each; softmax: empty
};

// Runs `ids` through `m` and keeps layer `layer`'s; throws InputError for a layer the model has not.
LayerActivations layer_activations(const Model& m, const std::vector<int>& ids, int layer);

} // namespace core::model
