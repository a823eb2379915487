// core/heads/compare.h — comparing two attention maps, and the loss on a prompt that a knock-out
// changes.
#pragma once

#include "core/heads/scores.h" // AttentionRefF, AttentionRefD

#include <Eigen/Core>
#include <optional>
#include <vector>

namespace core::heads {

// Per row, the Jensen–Shannon divergence in nats, ½ KL(P‖M) + ½ KL(Q‖M) with M = (P + Q) / 2, of
// two attention maps of the same shape (t, t') over aligned tokens. Each row is first scaled to sum
// 1 (the aligned keys may be a subset of a row's); a row that sums to 0 in either map gives NaN.
// 0 … ln 2. Throws std::invalid_argument when the shapes differ.
Eigen::VectorXd js_divergence_rows(const AttentionRefF& P, const AttentionRefF& Q);
Eigen::VectorXd js_divergence_rows(const AttentionRefD& P, const AttentionRefD& Q);


// The mean next-token cross-entropy, nats: mean over i < t of −log softmax(logits_i)[ids_{i+1}].
// logits: (t, vocab). Empty when t < 2. Throws std::invalid_argument for a wrong shape or an id
// outside the vocabulary.
std::optional<double> prompt_loss(const Eigen::Ref<const MatrixF>& logits, const std::vector<int>& ids);
std::optional<double> prompt_loss(const Eigen::Ref<const core::Matrix>& logits, const std::vector<int>& ids);

} // namespace core::heads
