#include "core/attention.h"

#include "core/kernels.h"
#include "core/model/delta_rule.h"
#include "core/parallel.h"

#include <cmath>
#include <cstdint>
#include <limits>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace core {

namespace {

// Sizes an (n, n) buffer. A new one is first touched page by page by the compute that fills it:
// asking for 2 MB pages instead of 4 kB ones makes that ~500 times fewer page faults (24 MB: 75 ms
// down to 12 ms on the 2-core test VM, where a fault is slow) and every later pass misses the TLB
// less. It is advice: without transparent huge pages nothing changes.
void resize_square(Matrix& m, Eigen::Index n) {
    if (m.rows() == n && m.cols() == n) return;
    m.resize(n, n);
#if defined(__linux__)
    constexpr std::uintptr_t huge_page = std::uintptr_t{2} << 20;
    const auto start = reinterpret_cast<std::uintptr_t>(m.data());
    const std::uintptr_t first = (start + huge_page - 1) & ~(huge_page - 1);
    const std::uintptr_t last = (start + sizeof(double) * static_cast<std::size_t>(m.size())) & ~(huge_page - 1);
    if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

// What transformers' l2norm adds under the root, so that a zero vector stays zero.
constexpr double l2norm_eps = 1e-6;

// Each row divided by its length (√(|row|² + ε)), times `factor`.
Matrix unit_rows(const Matrix& m, double factor) {
    const Eigen::VectorXd length = (m.rowwise().squaredNorm().array() + l2norm_eps).sqrt(); // (n)
    return (factor / length.array()).matrix().asDiagonal() * m; // (n, cols)
}

// Linear attention: M = the scaled scores, 0 where masked; each state the sum of k_j v_jᵀ (times the
// factor) over the keys the position sees, from running sums.
void linear_head(const Scenario& s, double factor, bool keep_states, HeadResult& hr) {
    const Eigen::Index n = hr.Q.rows();
    for (Eigen::Index i = 0; i < n; ++i)
        for (Eigen::Index j = 0; j < n; ++j) hr.weights(i, j) = is_masked(s, i, j) ? 0.0 : hr.scaled(i, j);
    hr.output.noalias() = hr.weights * hr.V; // (n, d_v)
    if (!keep_states) return;
    std::vector<Matrix> sums(static_cast<size_t>(n) + 1, Matrix::Zero(hr.K.cols(), hr.V.cols())); // sums[j]: keys before j, (d_k, d_v)
    for (Eigen::Index j = 0; j < n; ++j)
        sums[static_cast<size_t>(j) + 1] = sums[static_cast<size_t>(j)] + factor * hr.K.row(j).transpose() * hr.V.row(j);
    hr.states.resize(static_cast<size_t>(n));
    for (Eigen::Index i = 0; i < n; ++i) {
        const KeyRange keys = visible_keys(s, i);
        hr.states[static_cast<size_t>(i)] = sums[static_cast<size_t>(keys.hi)] - sums[static_cast<size_t>(keys.lo)];
    }
}

// The delta rule, run once on [S | W] (d_k, d_v + n): the values with, beside them, position t's one-hot
// e_t. The state's left block is S_t; column t of the right block is w_t, what value t is read through,
// so that q'_t [S_t | W_t] is output row t and row t of M together, and Z = M V holds exactly.
void delta_head(const Scenario& s, bool keep_states, HeadResult& hr) {
    const Eigen::Index n = hr.Q.rows(), d_k = hr.Q.cols(), d_v = hr.V.cols();
    hr.q_hat = unit_rows(hr.Q, s.score_factor()); // (n, d_k)
    hr.k_hat = unit_rows(hr.K, 1.0);              // (n, d_k)
    Matrix state = Matrix::Zero(d_k, d_v + n);    // (d_k, d_v + n) [S | W]
    Eigen::RowVectorXd value(d_v + n);            // (d_v + n) [v_t | e_t]
    if (keep_states) hr.states.resize(static_cast<size_t>(n));
    for (Eigen::Index t = 0; t < n; ++t) {
        value.setZero();
        value.head(d_v) = hr.V.row(t);
        value(d_v + t) = 1.0;
        model::delta_rule::step(state, hr.k_hat.row(t), value, s.beta, s.decay);
        const Eigen::RowVectorXd read = hr.q_hat.row(t) * state; // (d_v + n) [o_t | M[t, :]]
        hr.output.row(t) = read.head(d_v);
        hr.weights.row(t) = read.tail(n);
        hr.weights.row(t).tail(n - t - 1).setZero(); // values not yet written: exactly 0
        if (keep_states) hr.states[static_cast<size_t>(t)] = state.leftCols(d_v);
    }
}

} // namespace

Matrix delta_columns(const Scenario& s, const HeadResult& hr, int t) {
    Matrix W = Matrix::Zero(hr.k_hat.cols(), t + 1); // (d_k, t + 1)
    Eigen::RowVectorXd one_hot(t + 1);               // (t + 1) e_j: value j alone
    for (int j = 0; j <= t; ++j) {
        one_hot.setZero();
        one_hot(j) = 1.0;
        model::delta_rule::step(W, hr.k_hat.row(j), one_hot, s.beta, s.decay);
    }
    return W;
}

Matrix state_at(const Scenario& s, const Result& r, int h, int t) {
    const HeadResult& hr = r.heads[static_cast<size_t>(h)];
    if (!hr.states.empty()) return hr.states[static_cast<size_t>(t)];
    if (s.rule == AttentionRule::delta) return delta_columns(s, hr, t) * hr.V.topRows(t + 1); // (d_k, d_v)
    if (s.rule != AttentionRule::linear) return {};
    const KeyRange keys = visible_keys(s, t);
    return r.score_factor * hr.K.middleRows(keys.lo, keys.hi - keys.lo).transpose() * hr.V.middleRows(keys.lo, keys.hi - keys.lo);
}

int compute_threads(int n) { return n < 256 ? 1 : parallel::threads(); }

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

double logit(const Scenario& s, double score) {
    const double x = score * s.score_factor();
    const double cap = s.softcap_in_use();
    return cap > 0.0 ? cap * std::tanh(x / cap) : x;
}

void compute_into(const Scenario& s, Result& r) {
    require_valid(s);
    const kernels::Set& k = kernels::active();
    const Eigen::Index n = s.n(), d_model = s.d_model(), d_k = s.d_k(), d_v = s.d_v();
    const Eigen::Index heads = static_cast<Eigen::Index>(s.heads.size());
    const bool parallel = compute_threads(s.n()) > 1; // share row blocks with core::parallel's helpers

    // Pass 1: the embeddings attention sees (none when Q, K and V are given).
    r.X_in = s.X; // (n, d_model), or (0, 0) when direct
    if (s.positional == Positional::sinusoidal) r.X_in += sinusoidal_positions(s.n(), s.d_model());
    r.score_factor = s.score_factor();
    r.rule = s.rule;
    const bool keep_states = s.rule != AttentionRule::softmax && heads * n * d_k * d_v <= Result::max_state_entries;

    // Every buffer keeps its storage when the sizes are those of the last call; every entry of
    // every buffer is written below.
    r.heads.resize(s.heads.size());
    r.concat.resize(n, heads * d_v); // (n, H·d_v)
    for (Eigen::Index h = 0; h < heads; ++h) {
        const Head& w = s.heads[static_cast<size_t>(h)];
        HeadResult& hr = r.heads[static_cast<size_t>(h)];
        hr.Q.resize(n, d_k);
        hr.K.resize(n, d_k);
        hr.V.resize(n, d_v);
        resize_square(hr.scores, n);
        resize_square(hr.scaled, n);
        resize_square(hr.weights, n);
        hr.output.resize(n, d_v);
        // Pass 2: projections, or the given Q, K, V.
        if (s.direct) {
            hr.Q = w.Q; // (n, d_k)
            hr.K = w.K; // (n, d_k)
            hr.V = w.V; // (n, d_v)
        } else {
            k.matmul(r.X_in.data(), w.W_Q.data(), hr.Q.data(), n, d_model, d_k, parallel); // (n, d_k)
            k.matmul(r.X_in.data(), w.W_K.data(), hr.K.data(), n, d_model, d_k, parallel); // (n, d_k)
            k.matmul(r.X_in.data(), w.W_V.data(), hr.V.data(), n, d_model, d_v, parallel); // (n, d_v)
        }
        if (s.pin && s.pin->head == static_cast<int>(h)) hr.Q.row(s.pin->row) = s.pin->q.transpose();
        // Passes 3-5, a block of query rows at a time: scores = Q Kᵀ; scaled = scores · factor,
        // soft-capped, with −∞ where masked; weights = row-wise softmax with exact 0 where masked; output = weights V.
        kernels::AttendArgs a{};
        a.Q = hr.Q.data();
        a.K = hr.K.data();
        a.V = hr.V.data();
        a.n = n;
        a.d_k = d_k;
        a.d_v = d_v;
        a.factor = r.score_factor;
        a.softcap = s.softcap_in_use();
        a.causal = s.sees_only_past();
        a.window = s.window_in_use();
        a.scores = hr.scores.data();
        a.scaled = hr.scaled.data();
        a.weights = hr.weights.data();
        a.output = hr.output.data();
        k.attend(a, parallel);
        hr.states.clear();
        if (s.rule != AttentionRule::delta) hr.q_hat.resize(0, 0), hr.k_hat.resize(0, 0);
        if (s.rule == AttentionRule::linear) linear_head(s, r.score_factor, keep_states, hr);
        if (s.rule == AttentionRule::delta) delta_head(s, keep_states, hr);
        r.concat.middleCols(h * d_v, d_v) = hr.output;
    }
    // Pass 6: output projection.
    if (s.W_O.size() != 0) {
        r.output.resize(n, s.W_O.cols()); // (n, d_model)
        k.matmul(r.concat.data(), s.W_O.data(), r.output.data(), n, heads * d_v, s.W_O.cols(), parallel);
    } else {
        r.output = r.concat; // (n, H·d_v)
    }
}

Result compute(const Scenario& s) {
    Result r;
    compute_into(s, r);
    return r;
}

} // namespace core
