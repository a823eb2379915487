#include "core/experiments.h"

#include "core/edits.h"
#include "core/presets.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace core {

namespace {

double variance(const std::vector<double>& v, double scale) {
    double mean = 0;
    for (double x : v) mean += x * scale;
    mean /= static_cast<double>(v.size());
    double sum = 0;
    for (double x : v) sum += (x * scale - mean) * (x * scale - mean);
    return sum / static_cast<double>(v.size() - 1);
}

} // namespace

ScalingExperiment run_scaling_experiment(int d_k, int samples, int row_length, std::uint64_t seed) {
    ScalingExperiment e;
    e.d_k = d_k;
    // random_scenario's embeddings are unit-normal: reuse its generator so the stream is portable.
    const Matrix q = random_scenario(Shape{}.with_tokens(samples).with_d_model(d_k), seed).X;     // (samples, d_k)
    const Matrix k = random_scenario(Shape{}.with_tokens(samples).with_d_model(d_k), seed + 1).X; // (samples, d_k)
    e.dots.resize(static_cast<size_t>(samples));
    for (int i = 0; i < samples; ++i) e.dots[static_cast<size_t>(i)] = q.row(i).dot(k.row(i));
    const double inv_root = 1.0 / std::sqrt(static_cast<double>(d_k));
    e.variance_raw = variance(e.dots, 1.0);
    e.variance_scaled = variance(e.dots, inv_root);

    const Matrix keys = random_scenario(Shape{}.with_tokens(row_length).with_d_model(d_k), seed + 2).X; // (row_length, d_k)
    e.sample_scores = keys * q.row(0).transpose();
    e.softmax_raw = e.sample_scores;
    softmax_prefix(e.softmax_raw.data(), row_length, row_length);
    e.softmax_scaled = e.sample_scores * inv_root;
    softmax_prefix(e.softmax_scaled.data(), row_length, row_length);
    return e;
}

Histogram make_histogram(const std::vector<double>& values, double scale, int bins, double lo, double hi) {
    Histogram h{lo, hi, std::vector<int>(static_cast<size_t>(bins), 0)};
    for (double v : values) {
        const double t = (v * scale - lo) / (hi - lo) * bins;
        const int bin = std::clamp(static_cast<int>(std::floor(t)), 0, bins - 1);
        ++h.counts[static_cast<size_t>(bin)];
    }
    return h;
}

bool OrderCheck::moved() const {
    return std::all_of(differences.begin(), differences.end(), [&](double d) { return d <= tolerance; });
}

OrderCheck check_order(const Scenario& s, const Result& now, const std::vector<int>& perm) {
    std::vector<int> undo(perm.size());
    for (size_t i = 0; i < perm.size(); ++i) undo[perm[i]] = static_cast<int>(i);
    Scenario before = s;
    edits::permute_tokens(before, undo);
    const Result old = compute(before);
    OrderCheck c;
    for (int i = 0; i < s.n(); ++i) c.differences.push_back((now.output.row(i) - old.output.row(perm[i])).cwiseAbs().maxCoeff());
    // Summing in another order may change the last bits; anything bigger is a real difference.
    c.tolerance = 1e-12 * std::max(1.0, now.output.cwiseAbs().maxCoeff());
    return c;
}

} // namespace core
