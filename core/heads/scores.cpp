// core/heads/scores.cpp — the head scores and the best head.
#include "core/heads/scores.h"

#include "core/parallel.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace core::heads {

ScoreIndex score_index(const std::vector<int>& ids) {
    ScoreIndex ix;
    ix.t = static_cast<int>(ids.size());
    // Where each token occurred so far: duplicate keys of row i are the earlier j with x_j = x_i,
    // induction keys the j + 1 ≤ i − 1 after each of them.
    std::unordered_map<int, std::vector<int>> seen;
    ix.duplicate.start = ix.induction.start = {0};
    for (int i = 0; i < ix.t; ++i) {
        const std::vector<int>& earlier = seen[ids[static_cast<size_t>(i)]];
        if (!earlier.empty()) {
            ix.duplicate.rows.push_back(i);
            ix.duplicate.keys.insert(ix.duplicate.keys.end(), earlier.begin(), earlier.end());
            ix.duplicate.start.push_back(static_cast<int>(ix.duplicate.keys.size()));
        }
        const size_t before = ix.induction.keys.size();
        for (int j : earlier)
            if (j + 1 < i) ix.induction.keys.push_back(j + 1);
        if (ix.induction.keys.size() > before) {
            ix.induction.rows.push_back(i);
            ix.induction.start.push_back(static_cast<int>(ix.induction.keys.size()));
        }
        seen[ids[static_cast<size_t>(i)]].push_back(i);
    }
    return ix;
}

namespace {

template <class Ref>
std::optional<double> listed_mean(const Ref& A, const ScoreIndex::Lists& lists) {
    if (lists.rows.empty()) return std::nullopt;
    double total = 0.0;
    for (size_t r = 0; r < lists.rows.size(); ++r) {
        double row = 0.0;
        for (int k = lists.start[r]; k < lists.start[r + 1]; ++k) row += A(lists.rows[r], lists.keys[static_cast<size_t>(k)]);
        total += row;
    }
    return total / static_cast<double>(lists.rows.size());
}

// −Σ a ln a over a row; max(a, smallest normal) keeps 0 · ln 0 at 0 and stays vectorised.
template <class Ref>
double entropy_of(const Ref& A) {
    using Scalar = typename Ref::Scalar;
    const Scalar tiny = std::numeric_limits<Scalar>::min();
    double total = 0.0;
    for (Eigen::Index i = 0; i < A.rows(); ++i) {
        Eigen::Index n = A.cols();
        while (n > 0 && A(i, n - 1) == Scalar(0)) --n; // a causal row's zeros past the diagonal
        const auto row = A.row(i).head(n).array();
        total -= static_cast<double>((row * row.max(tiny).log()).sum());
    }
    return A.rows() ? total / static_cast<double>(A.rows()) : 0.0;
}

// row_entropy (t), where given, holds each row's entropy already.
template <class Ref>
HeadScores scores_of(const Ref& A, const ScoreIndex& ix, const float* row_entropy = nullptr) {
    if (A.rows() != ix.t || A.cols() != ix.t)
        throw std::invalid_argument("head scores: the attention is " + shape_text(A.rows(), A.cols()) + " for " + std::to_string(ix.t) + " tokens");
    HeadScores s;
    if (ix.t >= 2) {
        double sum = 0.0, first = 0.0;
        for (int i = 1; i < ix.t; ++i) sum += A(i, i - 1);
        for (int i = 1; i < ix.t; ++i) first += A(i, 0);
        s.previous = sum / (ix.t - 1);
        s.sink = first / (ix.t - 1);
    }
    s.duplicate = listed_mean(A, ix.duplicate);
    s.induction = listed_mean(A, ix.induction);
    if (row_entropy) {
        double total = 0.0;
        for (int i = 0; i < ix.t; ++i) total += static_cast<double>(row_entropy[i]);
        s.entropy = ix.t ? total / ix.t : 0.0;
    } else {
        s.entropy = entropy_of(A);
    }
    return s;
}

} // namespace

double mean_entropy(const AttentionRefF& A) { return entropy_of(A); }
double mean_entropy(const AttentionRefD& A) { return entropy_of(A); }

HeadScores head_scores(const AttentionRefF& A, const ScoreIndex& index) { return scores_of(A, index); }
HeadScores head_scores(const AttentionRefD& A, const ScoreIndex& index) { return scores_of(A, index); }
HeadScores head_scores(const AttentionRefF& A, const ScoreIndex& index, const float* row_entropy) { return scores_of(A, index, row_entropy); }

namespace {

// Listed rows r = next … below r1: each row's sum of its keys, added to total, as listed_mean does.
void listed_rows(const ScoreIndex::Lists& lists, std::size_t& next, const float* rows, int r0, int r1, int cols, double& total) {
    for (; next < lists.rows.size() && lists.rows[next] < r1; ++next) {
        const float* row = rows + static_cast<std::ptrdiff_t>(lists.rows[next] - r0) * cols;
        double sum = 0.0;
        for (int k = lists.start[next]; k < lists.start[next + 1]; ++k) sum += row[lists.keys[static_cast<size_t>(k)]];
        total += sum;
    }
}

std::optional<double> mean_of(double total, std::size_t rows) {
    if (rows == 0) return std::nullopt;
    return total / static_cast<double>(rows);
}

} // namespace

void ScoreRows::add(const float* rows, int r0, int r1, int cols) {
    for (int i = std::max(r0, 1); i < r1; ++i) previous_ += rows[static_cast<std::ptrdiff_t>(i - r0) * cols + i - 1];
    for (int i = std::max(r0, 1); i < r1; ++i) sink_ += rows[static_cast<std::ptrdiff_t>(i - r0) * cols];
    listed_rows(ix_->duplicate, next_duplicate_, rows, r0, r1, cols, duplicate_);
    listed_rows(ix_->induction, next_induction_, rows, r0, r1, cols, induction_);
}

double mean_share(const float* shares, int t) {
    double total = 0.0;
    for (int i = 0; i < t; ++i) total += static_cast<double>(shares[i]);
    return t ? total / t : 0.0;
}

HeadScores ScoreRows::finish(const float* row_entropy) const {
    HeadScores s;
    if (ix_->t >= 2) s.previous = previous_ / (ix_->t - 1);
    if (ix_->t >= 2) s.sink = sink_ / (ix_->t - 1);
    s.duplicate = mean_of(duplicate_, ix_->duplicate.rows.size());
    s.induction = mean_of(induction_, ix_->induction.rows.size());
    double total = 0.0;
    for (int i = 0; row_entropy && i < ix_->t; ++i) total += static_cast<double>(row_entropy[i]);
    s.entropy = ix_->t ? total / ix_->t : 0.0;
    if (!row_entropy) s.signed_rows = true, s.sink.reset();
    return s;
}

namespace {

struct StackScores {
    const float* attention;
    const float* entropy; // (layers · heads, t) or null
    const ScoreIndex* index;
    std::vector<HeadScores>* out;
    static void head(void* context, std::ptrdiff_t k) {
        const auto& c = *static_cast<StackScores*>(context);
        const std::ptrdiff_t t = c.index->t;
        const Eigen::Map<const MatrixF> A(c.attention + k * t * t, t, t); // (t, t)
        (*c.out)[static_cast<size_t>(k)] = scores_of(A, *c.index, c.entropy ? c.entropy + k * t : nullptr);
    }
};

} // namespace

std::vector<HeadScores> all_head_scores(const float* attention, int layers, int heads, const ScoreIndex& index, const float* row_entropy) {
    std::vector<HeadScores> out(static_cast<size_t>(std::max(0, layers * heads)));
    StackScores job{attention, row_entropy, &index, &out};
    core::parallel::for_each(static_cast<std::ptrdiff_t>(out.size()), &StackScores::head, &job);
    return out;
}


std::optional<double> score_value(const HeadScores& s, Score score) {
    switch (score) {
    case Score::previous: return s.previous;
    case Score::duplicate: return s.duplicate;
    case Score::induction: return s.induction;
    case Score::entropy: return s.signed_rows ? std::nullopt : std::optional<double>(s.entropy);
    case Score::copy: return s.copy;
    case Score::sink: return s.sink; // none for signed rows
    }
    return std::nullopt;
}

int best_head(const std::vector<HeadScores>& scores, Score score) {
    int best = -1;
    double best_value = 0.0;
    for (std::size_t i = 0; i < scores.size(); ++i) {
        const std::optional<double> v = score_value(scores[i], score);
        if (!v) continue;
        const bool better = score == Score::entropy ? *v < best_value : *v > best_value;
        if (best < 0 || better) best = static_cast<int>(i), best_value = *v;
    }
    return best;
}

} // namespace core::heads
