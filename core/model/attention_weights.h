// core/model/attention_weights.h — one layer's attention as the circuits read it: the norm before
// the projections, every head's slices of W_Q, W_K, W_V and W_O, the q/k norms, the rotary
// positions and the score rules. Row-vector convention: a row of the stream times W. Each
// architecture fills it (Model::attention_weights, in its own file under arch/).
#pragma once

#include "core/model/forward.h"

#include <functional>
#include <vector>

namespace core::model {

// A norm over the last dimension; with its scale frozen (1/σ or 1/rms of a real run) it is linear.
struct NormWeights {
    enum class Kind { none, layer, rms } kind = Kind::none;
    std::vector<float> scale; // (n) γ as it multiplies (Gemma: 1 + w); empty with none
    std::vector<float> shift; // (n) β of a LayerNorm, else empty
    float eps = 0.0f;
    bool whole = false;       // q/k norm: over every head's values together (OLMo 2: H·dh), scale (H·dh)
};

struct LayerAttention {
    int heads = 0, kv_heads = 0, d_head = 0;
    NormWeights norm;          // on the stream before q, k and v (none: BERT's post-LN)
    std::vector<float> gamma;  // (D) the preceding norm's γ, as composition scores fold it in
                               // (norm.scale; BERT: the LayerNorm ending the layer before)
    std::vector<MatrixF> q;    // heads × (D, dh): head h's query = norm(x) · q[h] + q_bias.row(h)
    std::vector<MatrixF> k, v; // kv_heads × (D, dh); query head h reads kv head kv_of(h)
    std::vector<MatrixF> o;    // heads × (dh, D): head h's rows of the output projection
    MatrixF q_bias;            // (heads, dh), or empty without biases
    MatrixF k_bias, v_bias;    // (kv_heads, dh), or empty
    NormWeights q_norm, k_norm; // over each head's dh values (Qwen3, Gemma 3), or the whole projection
                                // (OLMo 2, NormWeights::whole), else none
    // (dh, dh) RoPE at a position: a row of q or k there, times it, is the row rotated; empty: none.
    std::function<MatrixF(int position)> rotation;
    float score_scale = 1.0f;  // the factor of q · k
    float softcap = 0.0f;      // cap · tanh(s / cap) after the scale (Gemma 2); 0: none
    int window = 0;            // a query sees the last `window` keys; 0: every one
    std::vector<float> sinks;  // (heads) learned sink logits (AttentionKind::sinks), or empty
    bool causal = true;

    int kv_of(int h) const { return h / (heads / kv_heads); }
    // Whether query position i sees key position j.
    bool visible(int i, int j) const { return (!causal || j <= i) && (window == 0 || i - j < window); }
};

} // namespace core::model
