// core/attention.h — scaled dot-product attention with every intermediate kept.
//
//   X_in = X (+ sinusoidal positions)                       (n, d_model)
//   per head h:  Q = X_in W_Q   K = X_in W_K   V = X_in W_V
//                scores = Q Kᵀ,  scaled = scores · factor (1/√d_k, 1 or a given one),
//                soft-capped to cap · tanh(scaled / cap) when a cap is set,
//                masked = −∞ (j > i when causal; |i − j| ≥ window with a sliding window)
//                weights = softmax(scaled) row by row,  output = weights V
//                (the attention rule decides the weights, M: see AttentionRule in core/scenario.h)
//   concat = [output_1 … output_H]                          (n, H·d_v)
//   output = concat W_O, or concat when there is no W_O
#pragma once

#include "core/scenario.h"

namespace core {

struct HeadResult {
    Matrix Q;       // (n, d_k)  row `pin.row` replaced by the pinned query, if any
    Matrix K;       // (n, d_k)
    Matrix V;       // (n, d_v)
    Matrix scores;  // (n, n)    Q Kᵀ
    Matrix scaled;  // (n, n)    scores · factor, soft-capped if set; −∞ where masked
    Matrix weights; // (n, n)    M, what mixes the values: the softmax of each row of `scaled` (softmax), `scaled`
                    //           itself (linear), the delta rule's exact matrix (delta); exactly 0 where masked
    Matrix output;  // (n, d_v)  weights V
    // The linear and delta rules: the state at each position, states[t] (d_k, d_v), with output row t =
    // q_t S_t (q'_t under the delta rule). Empty under softmax, or when keeping them would pass
    // Result::max_state_entries (then state_at computes one).
    std::vector<Matrix> states;
    // The delta rule: q and k as it reads them, each divided by its length, q times the score factor.
    Matrix q_hat; // (n, d_k)
    Matrix k_hat; // (n, d_k)
};

struct Result {
    Matrix X_in;                   // (n, d_model)  the embeddings attention actually sees
    std::vector<HeadResult> heads; // one per head
    Matrix concat;                 // (n, H·d_v)
    Matrix output;                 // (n, d_model) with W_O, else (n, H·d_v)
    double score_factor = 1.0;     // what scores are multiplied by: 1/√d_k, 1 or the scenario's factor
    AttentionRule rule = AttentionRule::softmax;
    // The states of every position of every head are kept up to this many entries in all (8 MB).
    static constexpr Eigen::Index max_state_entries = Eigen::Index{1} << 20;
};

// Throws ScenarioError when the scenario is invalid.
Result compute(const Scenario& s);
// Recomputes into `out`, reusing its storage (the frame loop calls this every frame).
void compute_into(const Scenario& s, Result& out);

// The keys query i sees: lo ≤ j < hi.
struct KeyRange {
    Eigen::Index lo, hi;
};
inline KeyRange visible_keys(const Scenario& s, Eigen::Index i) {
    const Eigen::Index n = s.n(), w = s.window_in_use();
    const Eigen::Index hi = s.sees_only_past() ? i + 1 : (w > 0 && i + w < n ? i + w : n);
    return {w > 0 && i - w + 1 > 0 ? i - w + 1 : 0, hi};
}
// True when entry (i, j) is hidden from query i.
inline bool is_masked(const Scenario& s, Eigen::Index i, Eigen::Index j) {
    const KeyRange r = visible_keys(s, i);
    return j < r.lo || j >= r.hi;
}
// True when the sliding window (not the causal mask) hides key j from query i.
inline bool outside_window(const Scenario& s, Eigen::Index i, Eigen::Index j) {
    const Eigen::Index w = s.window_in_use();
    return w > 0 && (i - j >= w || (!s.sees_only_past() && j - i >= w));
}
// A score as the softmax takes it: times the score factor, then soft-capped (cap · tanh(x / cap)).
double logit(const Scenario& s, double score);

// The state of head h at position t (d_k, d_v) under the linear or delta rule: r's kept one, or
// computed again when r keeps none. Empty under softmax.
Matrix state_at(const Scenario& s, const Result& r, int h, int t);
// The delta rule's key-side vectors at position t (d_k, t + 1): column j is w_j, what value j is read
// through, S_t = Σ_j w_j v_jᵀ and M[t, j] = q'_t · w_j. Written as β k'_j at j, then decayed and erased
// at every later step up to t.
Matrix delta_columns(const Scenario& s, const HeadResult& hr, int t);

// The positional encoding of "Attention is all you need": PE(p, 2i) = sin(p / 10000^(2i/d)),
// PE(p, 2i+1) = cos(p / 10000^(2i/d)), with p counted from 0.
Matrix sinusoidal_positions(int n, int d_model); // (n, d_model)

// The threads compute_into uses for n tokens: 1 below 256 tokens, where waking a second thread
// costs more than it saves; otherwise core::parallel::threads() (the CPUs this process may use,
// or ATTNVIZ_THREADS).
int compute_threads(int n);

// Numerically stable softmax of `row[0..count)` in place; entries from `count` on are set to 0.
void softmax_prefix(double* row, Eigen::Index count, Eigen::Index width);

} // namespace core
