#include "core/attention.h"

#include <cmath>
#include <limits>

namespace core {

Matrix sinusoidal_positions(int n, int d_model) {
    Matrix pe(n, d_model); // (n, d_model)
    for (int p = 0; p < n; ++p)
        for (int c = 0; c < d_model; ++c) {
            const int pair = c / 2;
            const double angle = p / std::pow(10000.0, 2.0 * pair / d_model);
            pe(p, c) = (c % 2 == 0) ? std::sin(angle) : std::cos(angle);
        }
    return pe;
}

void softmax_prefix(double* row, Eigen::Index count, Eigen::Index width) {
    Eigen::Map<Eigen::ArrayXd> live(row, count);
    const double top = live.maxCoeff(); // subtracting the maximum keeps exp() ≤ 1
    live = (live - top).exp();
    live /= live.sum();
    for (Eigen::Index j = count; j < width; ++j) row[j] = 0.0;
}

void compute_into(const Scenario& s, Result& r) {
    require_valid(s);
    const Eigen::Index n = s.n();
    const double neg_inf = -std::numeric_limits<double>::infinity();

    // Pass 1: the embeddings attention sees.
    r.X_in = s.X; // (n, d_model)
    if (s.positional == Positional::sinusoidal) r.X_in += sinusoidal_positions(s.n(), s.d_model());
    r.score_divisor = s.scale ? std::sqrt(static_cast<double>(s.d_k())) : 1.0;
    const double inv_divisor = 1.0 / r.score_divisor;

    r.heads.resize(s.heads.size());
    r.concat.resize(n, static_cast<Eigen::Index>(s.heads.size()) * s.d_v()); // (n, H·d_v)
    for (size_t h = 0; h < s.heads.size(); ++h) {
        const Head& w = s.heads[h];
        HeadResult& hr = r.heads[h];
        // Pass 2: projections.
        hr.Q.noalias() = r.X_in * w.W_Q; // (n, d_k)
        hr.K.noalias() = r.X_in * w.W_K; // (n, d_k)
        hr.V.noalias() = r.X_in * w.W_V; // (n, d_v)
        if (s.pin && s.pin->head == static_cast<int>(h)) hr.Q.row(s.pin->row) = s.pin->q.transpose();
        // Pass 3: scores, scaled and masked.
        hr.scores.noalias() = hr.Q * hr.K.transpose(); // (n, n)
        hr.scaled = hr.scores * inv_divisor;           // (n, n)
        // Pass 4: row-wise softmax; masked entries become −∞ in `scaled` and exactly 0 in `weights`.
        hr.weights = hr.scaled; // (n, n)
        for (Eigen::Index i = 0; i < n; ++i) {
            const Eigen::Index visible = s.causal ? i + 1 : n;
            for (Eigen::Index j = visible; j < n; ++j) hr.scaled(i, j) = neg_inf;
            softmax_prefix(hr.weights.row(i).data(), visible, n);
        }
        // Pass 5: weighted sum of values.
        hr.output.noalias() = hr.weights * hr.V; // (n, d_v)
        r.concat.middleCols(static_cast<Eigen::Index>(h) * s.d_v(), s.d_v()) = hr.output;
    }
    // Pass 6: output projection.
    if (s.W_O.size() != 0) r.output.noalias() = r.concat * s.W_O; // (n, d_model)
    else r.output = r.concat;                                       // (n, H·d_v)
}

Result compute(const Scenario& s) {
    Result r;
    compute_into(s, r);
    return r;
}

} // namespace core
