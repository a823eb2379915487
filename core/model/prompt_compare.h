// core/model/prompt_compare.h — two prompts' attention compared head by head on one model.
#pragma once

#include "core/model/forward.h"

#include <Eigen/Core>

#include <vector>

namespace core::model {

// [SECTION] two prompts compared

// Positions of two token sequences that stand for each other: the tokens they share in order (a
// longest common subsequence of the ids, as diff aligns lines), and between two shared tokens (or
// the ends) a run replaced by a run of the same count, position by position ("cat" → "dog").
// Runs of different counts are left out. Increasing in both.
struct Alignment {
    std::vector<int> a, b; // (n) positions in the first and the second sequence
    int size() const { return static_cast<int>(a.size()); }
};
Alignment align_tokens(const std::vector<int>& first, const std::vector<int>& second);

// Every head's difference over the aligned tokens, second − first, (n, n) with rows the aligned
// queries and columns the aligned keys, and each row's Jensen–Shannon divergence (nats, each row
// first scaled to sum 1: js_divergence_rows).
struct Comparison {
    Alignment aligned;
    int layers = 0, heads = 0;
    std::vector<MatrixF> difference;     // (layers · heads) of (n, n)
    std::vector<Eigen::VectorXd> js;     // (layers · heads) of (n)
    std::vector<double> mean_js;         // (layers · heads): the mean over rows that have one
};
// `first` and `second`: forward runs (attention (L, H, t, t)) of the two sequences on one model.
Comparison compare_prompts(const ForwardResult& first, const std::vector<int>& first_ids, const ForwardResult& second,
                           const std::vector<int>& second_ids);

} // namespace core::model
