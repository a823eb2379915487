// core/model/circuits/parts.h — the residual stream as the sum of its components, every norm on the
// way frozen at the real run's scale, so that each component goes through them linearly.
#pragma once

#include "core/model/forward.h"

#include <string>
#include <vector>

namespace core::model {

// The residual stream at the input of layer `layer` (layer == L: after the last layer, before the final norm),
// split into its components, every norm up to there frozen at the real run's scale (so each part goes through
// them linearly; a LayerNorm's β is a part of its own). names: "token embedding", "position embedding",
// "head L.H" (counting from 1), "MLP L", "biases". Σ parts = the stream, to float rounding.
struct StreamParts { std::vector<std::string> names; std::vector<MatrixF> parts; /* C × (t, D) */ };
StreamParts stream_parts(const Model& model, const std::vector<int>& ids, int layer);

// The index of the part named `name`, or -1.
int part_index(const StreamParts& p, const std::string& name);

// Row `position` of each part of stream_parts(model, ids, L) through the final norm frozen at that
// position's scale (their sum's): (C, D) in float64, β (D) added to the "biases" row (appended when
// there is none). Without a final norm, the rows as they are.
Eigen::MatrixXd through_final_norm(const Model& model, StreamParts& parts, int position);

} // namespace core::model
