#include "core/experiments.h"

#include "core/attention.h"
#include "core/presets.h"

#include <algorithm>
#include <cmath>
#include <numeric>
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
    const Matrix q = random_scenario(samples, d_k, 1, 1, 1, false, seed).X;     // (samples, d_k)
    const Matrix k = random_scenario(samples, d_k, 1, 1, 1, false, seed + 1).X; // (samples, d_k)
    e.dots.resize(static_cast<size_t>(samples));
    for (int i = 0; i < samples; ++i) e.dots[static_cast<size_t>(i)] = q.row(i).dot(k.row(i));
    const double inv_root = 1.0 / std::sqrt(static_cast<double>(d_k));
    e.variance_raw = variance(e.dots, 1.0);
    e.variance_scaled = variance(e.dots, inv_root);

    const Matrix keys = random_scenario(row_length, d_k, 1, 1, 1, false, seed + 2).X; // (row_length, d_k)
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

Scenario permute_tokens(const Scenario& s, const std::vector<int>& perm) {
    Scenario out = s;
    for (int i = 0; i < s.n(); ++i) {
        out.tokens[i] = s.tokens[perm[i]];
        out.X.row(i) = s.X.row(perm[i]);
        if (s.pin && s.pin->row == perm[i]) out.pin->row = i;
    }
    return out;
}

std::vector<int> random_permutation(int n, std::uint64_t seed) {
    std::vector<int> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    if (n < 2) return perm;
    std::mt19937_64 rng(seed);
    do {
        for (int i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng() % static_cast<std::uint64_t>(i + 1)]);
    } while (std::is_sorted(perm.begin(), perm.end()));
    return perm;
}

void add_head(Scenario& s, std::uint64_t seed) {
    const Scenario donor = random_scenario(1, s.d_model(), s.d_k(), s.d_v(), 1, s.W_O.size() != 0, seed);
    s.heads.push_back(donor.heads[0]);
    if (s.W_O.size() != 0) {
        Matrix grown(s.W_O.rows() + s.d_v(), s.W_O.cols()); // ((H+1)·d_v, d_model)
        grown << s.W_O, donor.W_O;
        s.W_O = std::move(grown);
    }
}

void remove_head(Scenario& s, int h) {
    const Eigen::Index d_v = s.d_v();
    s.heads.erase(s.heads.begin() + h);
    if (s.W_O.size() != 0) {
        Matrix shrunk(s.W_O.rows() - d_v, s.W_O.cols()); // ((H−1)·d_v, d_model)
        shrunk << s.W_O.topRows(h * d_v), s.W_O.bottomRows(s.W_O.rows() - (h + 1) * d_v);
        s.W_O = std::move(shrunk);
    }
    if (s.pin && s.pin->head == h) s.pin.reset();
    else if (s.pin && s.pin->head > h) --s.pin->head;
}

} // namespace core
