#include "core/train/scores.h"

namespace core::train {

namespace {

// previous and entropy, averaged over the sequences of `ws` (each has t rows).
void task_scores(const Workspace& ws, int l, int h, HeadScores& s) {
    double previous = 0.0, entropy = 0.0;
    for (int b = 0; b < ws.B; ++b) {
        const ConstMatrixMap A = ws.attention(l, b, h); // (t, t)
        for (int i = 1; i < ws.t; ++i) previous += A(i, i - 1);
        entropy += core::heads::mean_entropy(A);
    }
    s.previous = previous / (ws.B * (ws.t - 1));
    s.entropy = entropy / ws.B;
}

// The repeat occupies [o + r, o + 2r); its token at i first appeared at i - r.
void repeat_scores(const Workspace& ws, const Batch& batch, int l, int h, HeadScores& s) {
    double ind = 0.0, cp = 0.0;
    int count = 0;
    for (int b = 0; b < ws.B; ++b) {
        const ConstMatrixMap A = ws.attention(l, b, h);
        const int o = batch.offset[static_cast<size_t>(b)], r = batch.length[static_cast<size_t>(b)];
        for (int i = o + r; i < o + 2 * r; ++i) {
            ind += A(i, i - r + 1);
            cp += A.row(i).segment(o, r).sum();
            ++count;
        }
    }
    s.induction = count ? ind / count : 0.0;
    s.copy = count ? cp / count : 0.0;
}

} // namespace

std::vector<HeadScores> head_scores(const ModelConfig& m, const Workspace& task_ws, const Workspace& repeat_ws, const Batch& repeat_batch) {
    std::vector<HeadScores> out;
    for (int l = 0; l < m.L; ++l) {
        for (int h = 0; h < m.H; ++h) {
            HeadScores s;
            task_scores(task_ws, l, h, s);
            repeat_scores(repeat_ws, repeat_batch, l, h, s);
            out.push_back(s);
        }
    }
    return out;
}

} // namespace core::train
