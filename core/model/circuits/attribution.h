// core/model/circuits/attribution.h — direct logit attribution: what each component of the stream
// writes toward a token's logit, through the final norm frozen at the run's scale.
#pragma once

#include "core/model/forward.h"
#include "core/scenario.h"

#include <vector>

namespace core::model {

struct Attribution {
    int position = 0;      // from 0
    int target = 0, vs = -1; // ids; vs −1: the target's logit alone
    double logit = 0.0;    // the model's logit of target (minus vs's) at the position, before a final soft-cap
    double embed = 0.0;    // the token and position embeddings'
    core::Matrix heads;    // (layers, heads)
    std::vector<double> mlps; // (layers)
    double bias = 0.0;     // every bias and β, and the LM head's bias
    // embed + Σ heads + Σ mlps + bias = logit, to float rounding.
};

// Throws InputError for a model whose head is not linear in the last hidden state (BERT's MLM
// transform) or without one, an id outside the vocabulary or a position outside the ids.
Attribution direct_attribution(const Model& model, const std::vector<int>& ids, int target, int vs, int position);

} // namespace core::model
