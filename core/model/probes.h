// core/model/probes.h — what a head does, measured on its attention: four head scores, the probe
// sequence that brings out induction heads, attention rollout, the query–key view, the Jensen–Shannon
// divergence of two maps, the loss on a prompt, and each head's importance to that loss.
//
// Pure functions on matrices, but for head_importance, which runs the model. Attention is row-major, rows are queries; the float and double
// overloads compute the same thing (sums in double either way), so the forward pass of a checkpoint
// (float) and the Train panel's tiny model (double) share them.
//
// Positions in the definitions count from 1 and include BOS / [CLS] where the tokenizer adds them;
// the code's indices count from 0.
#pragma once

#include "core/model/forward.h" // core::model::MatrixF: float, row-major
#include "core/scenario.h"      // core::Matrix: double, row-major

#include <Eigen/Core>
#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace core::model {
using AttentionRefF = Eigen::Ref<const MatrixF>;     // (t, t)
using AttentionRefD = Eigen::Ref<const core::Matrix>; // (t, t)

// [SECTION] head scores

// For a token sequence x₁ … x_t, the rows each score averages over and the keys it sums, built once
// per sequence and shared by every head.
//   duplicate: rows i with some j < i and x_j = x_i; keys those j.
//   induction: rows i with some j, 2 ≤ j < i and x_{j−1} = x_i; keys those j (the token after an
//              earlier occurrence of x_i).
struct ScoreIndex {
    int t = 0;
    // CSR lists, 0-based: row rows[r] sums the keys keys[start[r] … start[r+1]).
    struct Lists {
        std::vector<int> rows, start, keys;
    };
    Lists duplicate, induction;
};
ScoreIndex score_index(const std::vector<int>& ids);

// A score is empty when no row qualifies (a sequence with no repeated token has no duplicate or
// induction rows; t = 1 has no previous row): "no evidence" is not the same as 0.
struct HeadScores {
    std::optional<double> previous;  // mean over i ≥ 2 of A[i, i−1]
    std::optional<double> duplicate; // mean over duplicate rows of the weight on earlier copies
    std::optional<double> induction; // mean over induction rows of the weight on the induction keys
    double entropy = 0.0;            // mean over rows of −Σ_j A[i, j] ln A[i, j], nats (0 ln 0 = 0)
};

// A: (t, t) with t = index.t. O(t²) for the entropy, O(t + list sizes) for the rest.
HeadScores head_scores(const AttentionRefF& A, const ScoreIndex& index);
HeadScores head_scores(const AttentionRefD& A, const ScoreIndex& index);

// Every head's scores from a forward pass's attention, `attention` (layers, heads, t, t) row-major
// as core::model::ForwardResult holds it; layer-major (layers · heads). The heads are shared between
// the cores (core::parallel).
std::vector<HeadScores> all_head_scores(const float* attention, int layers, int heads, const ScoreIndex& index);
// The same from a forward with its attention, each row's entropy taken from the softmax that made it
// (ForwardResult::entropy) instead of a pass of logarithms over the (layers, heads, t, t) maps.
std::vector<HeadScores> all_head_scores(const ForwardResult& r, const ScoreIndex& index);

// [SECTION] the probe sequence

// [bos,] r₁ … r_m, r₁ … r_m: m distinct token ids drawn from 0 … vocab−1 without those in `exclude`
// (the special tokens), repeated twice, after BOS when `bos` is given; 2m (+1) ids.
// The draw is a partial Fisher–Yates shuffle of the allowed ids in increasing order, driven by NumPy's
// default generator (core::NumpyRng, PCG64): step k swaps position k with k + ⌊u · (n − k)⌋, u =
// rng.random(), so that
//     rng = np.random.default_rng(seed); p = allowed.copy()
//     for k in range(m): j = k + int(rng.random() * (n - k)); p[k], p[j] = p[j], p[k]
// gives r = p[:m] in NumPy. Throws std::invalid_argument when m < 1 or fewer than m ids are allowed.
std::vector<int> probe_sequence(int m, std::uint64_t seed, int vocab, const std::vector<int>& exclude = {},
                                std::optional<int> bos = std::nullopt);

// [SECTION] attention rollout

// Abnar and Zuidema (2020): Â_l = rownorm(mean over heads of A_l + I), R = Â_L ⋯ Â_1.
// `layer_mean_attention[l]` is the mean over layer l's heads (t, t); see mean_over_heads. Returns R
// (t, t): row i is how much of the last layer's position i comes from each input token, in the
// inputs' precision. Causal (lower-triangular) inputs skip the blocks above the diagonal: about a
// sixth of a dense product's work. Throws std::invalid_argument for no layer or unequal shapes.
MatrixF rollout(const std::vector<MatrixF>& layer_mean_attention);
core::Matrix rollout(const std::vector<core::Matrix>& layer_mean_attention);

// Rollout of a forward pass's attention (layers, heads, t, t) row-major.
MatrixF rollout(const float* attention, int layers, int heads, int t);

// One layer of it, as a forward runs (ForwardOptions::rollout): R ← rownorm(A + I) · R for that
// layer's mean attention A (t, t); an empty R stands for I. `causal`: A and R are lower-triangular.
void rollout_layer(const MatrixF& layer_mean_attention, MatrixF& R, bool causal);

// The mean over one layer's heads, `layer` (heads, t, t) row-major → (t, t), rows shared between the
// cores.
MatrixF mean_over_heads(const float* layer, int heads, int t);

// The mean over the H heads of one layer, heads[h] (t, t) → (t, t).
MatrixF mean_over_heads(const std::vector<AttentionRefF>& heads);
core::Matrix mean_over_heads(const std::vector<AttentionRefD>& heads);

// [SECTION] the query–key view

enum class QKPlane { principal, query_and_key };

struct QKView {
    core::Matrix queries, keys;   // (t, d_head) after the moves below; q_i · k_j − q_i · k_j(before)
                                  // is the same for every j, so every softmax row is unchanged
    Eigen::RowVectorXd key_shift; // (d_head) added to every key: mean(q) − mean(k)
    double alpha = 1.0;           // queries × α, keys × 1/α: mean ‖q‖ = mean ‖k‖ afterwards
    Eigen::Matrix<double, Eigen::Dynamic, 2> basis; // (d_head, 2) orthonormal columns of the plane
    core::Matrix query_points, key_points;          // (t, 2) coordinates in the plane (about the origin)
    double variance_kept = 0.0;   // the share of the union's variance (about its mean) in the plane, 0 … 1
    QKPlane plane = QKPlane::principal;
};

// Q, K: (t, d_head) of one head, as the scores use them (after RoPE for rotary models).
// principal: the first two principal components of the 2t moved points. query_and_key: the plane
// spanned by the moved query `query` and key `key` (say, its top key), in which their dot product is
// exact; when the two are parallel the second axis is the principal one orthogonal to them.
// d_head = 1 gives a plane whose second axis is zero. Throws std::invalid_argument for mismatched
// shapes or an index out of range.
QKView query_key_view(const core::Matrix& Q, const core::Matrix& K, QKPlane plane = QKPlane::principal,
                      int query = 0, int key = 0);

// [SECTION] comparing two maps

// Per row, the Jensen–Shannon divergence in nats, ½ KL(P‖M) + ½ KL(Q‖M) with M = (P + Q) / 2, of
// two attention maps of the same shape (t, t') over aligned tokens. Each row is first scaled to sum
// 1 (the aligned keys may be a subset of a row's); a row that sums to 0 in either map gives NaN.
// 0 … ln 2. Throws std::invalid_argument when the shapes differ.
Eigen::VectorXd js_divergence_rows(const AttentionRefF& P, const AttentionRefF& Q);
Eigen::VectorXd js_divergence_rows(const AttentionRefD& P, const AttentionRefD& Q);

// [SECTION] loss on a prompt

// The mean next-token cross-entropy, nats: mean over i < t of −log softmax(logits_i)[ids_{i+1}].
// logits: (t, vocab). Empty when t < 2. Throws std::invalid_argument for a wrong shape or an id
// outside the vocabulary.
std::optional<double> prompt_loss(const Eigen::Ref<const MatrixF>& logits, const std::vector<int>& ids);
std::optional<double> prompt_loss(const Eigen::Ref<const core::Matrix>& logits, const std::vector<int>& ids);

// [SECTION] head importance

struct HeadImportance {
    double loss = 0.0;  // the intact model's prompt_loss
    core::Matrix delta; // (layers, heads): the loss with that head alone zeroed, minus `loss`
};

// Every head of a causal LM zeroed in turn (before its output projection). The stream entering each
// layer is kept from the intact run, so each rerun starts at the ablated head's layer, and a layer's
// heads rerun together as copies of the sequence (ForwardOptions::copies); the losses stream over the
// vocabulary (core/model/next_token.h). Equal to one full forward per head up to float32 rounding
// (the products group the batch's rows otherwise). Calls progress(done, layers · heads) after each
// head, on the caller's thread; `cancel` stops it with Cancelled. Throws InputError for a model that does not predict the next token, or fewer than 2 ids.
HeadImportance head_importance(const Model& model, const std::vector<int>& ids, const std::atomic<bool>* cancel = nullptr,
                               const std::function<void(int done, int total)>& progress = {});

} // namespace core::model
