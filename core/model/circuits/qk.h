// core/model/circuits/qk.h — why query i attends to key j in one head: the pre-softmax score s_ij
// (after the scale, before any soft-cap and the mask) as a sum over pairs (a, b) of the stream's
// component a at i (query side) and component b at j (key side), plus the biases' terms.
//
// Each side, at its position p: the components of the stream entering the layer (parts.h), the norm
// before the attention frozen at p's scale (a LayerNorm: each component centred, β added to
// "biases"), W_Q or W_K, the q/k norm frozen at p's scale of the real q or k (Qwen3, Gemma 3), and
// RoPE at p, which is linear; so q_i = Σ_a q_a + q_b, k_j = Σ_b k_b + k_b', where q_b and k_b' are
// the projections' biases through the same frozen norm and rotation, and
//   s_ij = scale · q_i · k_j = Σ_a Σ_b scale · q_a · k_b + bias.
#pragma once

#include "core/model/attention_weights.h"
#include "core/model/circuits/parts.h"

#include <Eigen/Core>

#include <string>
#include <vector>

namespace core::model {

// What a head's queries and keys are made of, for one sequence: the components at every position
// and the layer's weights (the forward runs once, here).
struct QkStream {
    int layer = 0;               // from 0
    StreamParts parts;           // C × (t, D), "biases" among them where the norm has a β
    LayerAttention weights;
};
QkStream qk_stream(const Model& model, const std::vector<int>& ids, int layer);

struct QkAttribution {
    int head = 0, query = 0, key = 0; // from 0
    std::vector<std::string> components; // (C) parts.h's names, the same on both sides
    Eigen::MatrixXd pairs;               // (C, C): [a][b] query's component a × key's component b
    double bias = 0;                     // the terms with a projection's bias
    double score = 0;                    // Σ pairs + bias = s_ij
};

// Head `head` of the stream's layer, query i and key j (positions from 0; any pair, visible or not).
QkAttribution qk_attribution(const QkStream& s, int head, int query, int key);

// The keys query i sees (the head's causal mask and window), in order.
std::vector<int> visible_keys(const QkStream& s, int query);

// The `count` pairs of largest |contribution| in words, largest first (components from 1):
// "query's token embedding × key's output of head 1.3: +4.1 of 5.6".
std::vector<std::string> top_pairs_in_words(const QkAttribution& a, int count);

} // namespace core::model
