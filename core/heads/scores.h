// core/heads/scores.h — what a head does, measured on its attention: the score record shared by the
// tiny transformer and the real models, its four scores on a token sequence, and the best head.
//
// Attention is row-major, rows are queries; the float and double overloads compute the same thing
// (sums in double either way), so the forward pass of a checkpoint (float) and the Train panel's
// tiny model (double) share them. Positions in the definitions count from 1 and include BOS /
// [CLS] where the tokenizer adds them; the code's indices count from 0.
#pragma once

#include "core/heads/head.h"
#include "core/scenario.h" // core::Matrix: double, row-major

#include <Eigen/Core>
#include <optional>
#include <vector>

namespace core::heads {
using AttentionRefF = Eigen::Ref<const MatrixF>;      // (t, t)
using AttentionRefD = Eigen::Ref<const core::Matrix>; // (t, t)

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

// One head's scores. A score is empty when no row qualifies (a sequence with no repeated token has
// no duplicate or induction rows; t = 1 has no previous row): "no evidence" is not the same as 0.
// A list of them is layer-major (layers · heads).
struct HeadScores {
    std::optional<double> previous;  // mean over i ≥ 2 of A[i, i−1]
    std::optional<double> duplicate; // mean over duplicate rows of the weight on earlier copies
    std::optional<double> induction; // mean over induction rows of the weight on the induction keys
    double entropy = 0.0;            // mean over rows of −Σ_j A[i, j] ln A[i, j], nats (0 ln 0 = 0)
    std::optional<double> copy;      // the tiny model's repeat task alone: the mean weight a repeated
                                     // segment puts on the segment's first occurrence
    std::optional<double> sink;      // mean over i ≥ 2 of A[i, 1]: the share parked on the first position
                                     // (BOS where the prompt starts with it), StreamingLLM's attention sink;
                                     // for a head with a learned sink (gpt-oss), the sink's mean share
                                     // over every query instead (mean_share)
    // A linear head's M: signed rows, no distribution, so neither an entropy (kept 0) nor a sink
    // share; score_value gives neither, and best_head passes the head over for them.
    bool signed_rows = false;
};

// A head whose sink share reaches this parks most of its attention on the first position: the
// Head scores table names it.
constexpr double sink_threshold = 0.5;

// The scores in the order the window lists them.
enum class Score { previous, duplicate, induction, entropy, copy, sink };
std::optional<double> score_value(const HeadScores& s, Score score);

// The index of the head with the highest score (the lowest entropy: the most focused head), or -1
// when no head has that score.
int best_head(const std::vector<HeadScores>& scores, Score score);

// The mean over the rows of A of −Σ_j A[i, j] ln A[i, j], nats (0 ln 0 = 0): the entropy score.
double mean_entropy(const AttentionRefF& A);
double mean_entropy(const AttentionRefD& A);

// A: (t, t) with t = index.t. O(t²) for the entropy, O(t + list sizes) for the rest.
HeadScores head_scores(const AttentionRefF& A, const ScoreIndex& index);
HeadScores head_scores(const AttentionRefD& A, const ScoreIndex& index);
// The same with each row's entropy, row_entropy (t), already known (the softmax that made A knows it).
HeadScores head_scores(const AttentionRefF& A, const ScoreIndex& index, const float* row_entropy);

// The mean of a learned sink's shares (t), each query's weight on the sink, as HeadScores::sink.
double mean_share(const float* shares, int t);

// One head's scores from its map's rows given in order, a block at a time, by a forward that keeps no
// map: the same sums in the same order as head_scores with row entropies, so the same bits.
class ScoreRows {
public:
    explicit ScoreRows(const ScoreIndex& index) : ix_(&index) {}
    // Rows r0 … r1 − 1 of A, (r1 − r0, cols) row-major; r0 is where the last call ended.
    void add(const float* rows, int r0, int r1, int cols);
    // With row_entropy (t), each row's entropy; null: a linear head's matrix M, no distribution, so
    // signed_rows, entropy 0 and no sink share.
    HeadScores finish(const float* row_entropy) const;

private:
    const ScoreIndex* ix_;
    double previous_ = 0.0, duplicate_ = 0.0, induction_ = 0.0, sink_ = 0.0;
    std::size_t next_duplicate_ = 0, next_induction_ = 0; // the next listed row of each
};

// Every head's scores from a forward pass's attention, `attention` (layers, heads, t, t) row-major;
// layer-major (layers · heads). `row_entropy` (layers · heads, t), when given, holds each row's
// entropy already (the softmax that made it knows it), instead of a pass of logarithms over the maps.
// The heads are shared between the cores (core::parallel).
std::vector<HeadScores> all_head_scores(const float* attention, int layers, int heads, const ScoreIndex& index,
                                        const float* row_entropy = nullptr);

} // namespace core::heads
