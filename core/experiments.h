// core/experiments.h — the small experiments the articles describe in words.
//
//   Why divide by √d_k (the three-token and the step-by-step articles): for q, k with unit-variance entries, q·k has variance
//   d_k; dividing by √d_k brings it back to 1 and keeps the softmax from going one-hot.
//   Order (the three-token article, "Position"): without positional information, permuting the tokens permutes
//   the outputs the same way.
#pragma once

#include "core/attention.h"

#include <cstdint>
#include <vector>

namespace core {

struct ScalingExperiment {
    int d_k = 0;
    std::vector<double> dots;         // q·k for `samples` random pairs
    double variance_raw = 0;          // ≈ d_k
    double variance_scaled = 0;       // of q·k/√d_k, ≈ 1
    Vector sample_scores;             // (row_length) one query against row_length random keys, unscaled
    Vector softmax_raw;               // (row_length) softmax(sample_scores): near one-hot for large d_k
    Vector softmax_scaled;            // (row_length) softmax(sample_scores / √d_k): spread out
};
// Draws q and k with independent unit-normal entries. Same arguments, same numbers.
ScalingExperiment run_scaling_experiment(int d_k, int samples, int row_length, std::uint64_t seed);

struct Histogram {
    double lo = 0, hi = 0;
    std::vector<int> counts; // equal-width bins over [lo, hi]; values outside are clamped to the ends
};
Histogram make_histogram(const std::vector<double>& values, double scale, int bins, double lo, double hi);

// The order check: after the tokens were shuffled (new token i was old token perm[i]), did each
// output row just move with its token? `now` is the Result of the shuffled scenario `s`.
struct OrderCheck {
    std::vector<double> differences; // per new row i: max |z_i − old z_perm[i]|
    double tolerance = 0;            // rounding allowed for "the same", relative to the largest output entry
    bool moved() const;              // every difference within the tolerance
};
OrderCheck check_order(const Scenario& s, const Result& now, const std::vector<int>& perm);

} // namespace core
