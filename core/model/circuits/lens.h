// core/model/circuits/lens.h — the logit lens: what each layer already predicts.
#pragma once

#include "core/model/forward.h"

#include <vector>

namespace core::model {

// For each layer ℓ (row ℓ − 1 here) and position i: the final norm, the head and the softmax applied
// to the stream after layer ℓ. The last row is the model's own output.
struct LogitLens {
    int layers = 0, t = 0, k = 0;
    std::vector<int> top;      // (layers, t, k) the most likely ids, most likely first (the lower id on a tie)
    std::vector<double> p;     // (layers, t, k) their probabilities
    std::vector<double> p_next;   // (layers, t) the probability of ids[i + 1]; NaN at the last position
    std::vector<int> rank_next;   // (layers, t) its rank, 1 for the most likely; 0 at the last position
};

// Throws InputError for a model without an LM head, or k outside 1 … vocab.
LogitLens logit_lens(const Model& model, const std::vector<int>& ids, int k);

} // namespace core::model
