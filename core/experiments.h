// core/experiments.h — the small experiments the articles describe in words.
//
//   Why divide by √d_k (seeds 000, 001): for q, k with unit-variance entries, q·k has variance
//   d_k; dividing by √d_k brings it back to 1 and keeps the softmax from going one-hot.
//   Order (seed 000, "Position"): without positional information, permuting the tokens permutes
//   the outputs the same way.
//   Heads (seed 001): adding and removing heads keeps every table consistent.
#pragma once

#include "core/scenario.h"

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

// New token i is old token perm[i]: tokens and rows of X move; a pinned row follows its token.
Scenario permute_tokens(const Scenario& s, const std::vector<int>& perm);
std::vector<int> random_permutation(int n, std::uint64_t seed); // never the identity when n ≥ 2

// A new head with random weights of scale 1/√d_model (and d_v new rows of W_O, if there is one).
void add_head(Scenario& s, std::uint64_t seed);
// Removes head h, its rows of W_O and a pin on it; pins on later heads move down.
void remove_head(Scenario& s, int h);

} // namespace core
