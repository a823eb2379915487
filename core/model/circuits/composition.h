// core/model/circuits/composition.h — composition scores (Elhage et al., 2021): how strongly a later
// head reads what an earlier head writes, from the weights alone.
//
// Row-vector convention, per head: W_QK = W_Q W_Kᵀ and W_OV = W_V W_O (each D × D), with the
// preceding norm's γ multiplied into the rows of W_Q, W_K and W_V (LayerAttention::gamma; a
// grouped-query head uses its key/value head's W_K and W_V). For h₁ in layer l₁ < l₂ ∋ h₂:
//   K-composition ‖W_OV¹ (W_QK²)ᵀ‖ / (‖W_OV¹‖ ‖W_QK²‖), Q-composition the same with W_QK²,
//   V-composition with W_OV², ‖·‖ the Frobenius norm.
// No D × D matrix is formed: W_OV = V O has rank ≤ d_head, and with V = Q_V R_V (QR, R_V d_head
// wide) ‖V O K Qᵀ‖ = ‖R_V O K R_Qᵀ‖, one (H·r, D) · (D, H·r) product per pair of layers.
#pragma once

#include "core/model/forward.h"

#include <atomic>
#include <vector>

namespace core::model {

enum class CompositionKind { q, k, v };

struct CompositionScores {
    int layers = 0, heads = 0;
    std::vector<double> scores; // (L, H, L, H): [l₁][h₁][l₂][h₂], NaN unless l₁ < l₂ (or a head is all zero)
    double at(int l1, int h1, int l2, int h2) const {
        return scores[((static_cast<std::size_t>(l1) * heads + h1) * layers + l2) * heads + h2];
    }
};

// Every pair of heads of `model`; throws Cancelled when `cancel` is set (checked once a layer).
CompositionScores composition_scores(const Model& model, CompositionKind kind, const std::atomic<bool>* cancel = nullptr);

} // namespace core::model
