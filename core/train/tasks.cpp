#include "core/train/tasks.h"

#include <algorithm>
#include <vector>

namespace core::train {

int Batch::scored() const {
    return static_cast<int>(std::count_if(targets.begin(), targets.end(), [](int v) { return v >= 0; }));
}


namespace {

void fill_random(int* seq, int t, int vocab, Rng& rng) {
    for (int i = 0; i < t; ++i) seq[i] = rng.between(0, vocab - 1);
}

// The segment [o, o+r) is copied to [o+r, o+2r). Its tokens are distinct and appear nowhere else, so
// each token of the repeat has exactly one earlier occurrence and one right answer by induction.
// Position p predicts token p+1; from p = o+r on (the first repeated token) the earlier copy tells
// what comes next, up to p = o+2r-2.
// The held-out repeat sequences that score the heads of other tasks may have fewer tokens than the
// repeat task needs: the segment then shrinks to fit (vocab ≥ 3 and t ≥ 2 leave it at least 1).
void make_repeat(int* seq, int* target, int& o, int& r, int t, int vocab, Rng& rng) {
    const int hi = std::min({repeat_max_length(t), vocab - 2, t / 2});
    r = rng.between(std::min(repeat_min_length(t), hi), hi);
    o = rng.between(0, t - 2 * r);
    std::vector<int> pool(static_cast<size_t>(vocab));
    for (int v = 0; v < vocab; ++v) pool[static_cast<size_t>(v)] = v;
    for (int i = 0; i < r; ++i) { // the first r of a partial shuffle: the segment
        std::swap(pool[static_cast<size_t>(i)], pool[static_cast<size_t>(rng.between(i, vocab - 1))]);
        seq[o + i] = seq[o + r + i] = pool[static_cast<size_t>(i)];
    }
    for (int p = 0; p < t; ++p)
        if (p < o || p >= o + 2 * r) seq[p] = pool[static_cast<size_t>(rng.between(r, vocab - 1))]; // the rest: other tokens
    for (int p = o + r; p <= o + 2 * r - 2; ++p) target[p] = seq[p + 1];
}

void make_previous(int* seq, int* target, int t, int vocab, Rng& rng) {
    fill_random(seq, t, vocab, rng);
    for (int p = 1; p < t; ++p) target[p] = seq[p - 1];
}

// Digits are 0 … vocab-2, the separator is vocab-1. Position n (the separator) predicts the smallest.
void make_sort(int* seq, int* target, int t, int vocab, Rng& rng) {
    const int n = sort_length(t);
    std::fill(seq, seq + t, 0);
    fill_random(seq, n, vocab - 1, rng);
    seq[n] = vocab - 1;
    std::copy(seq, seq + n, seq + n + 1);
    std::sort(seq + n + 1, seq + 2 * n + 1);
    for (int p = n; p < 2 * n; ++p) target[p] = seq[p + 1];
}

} // namespace

Batch make_batch(Task task, const ModelConfig& m, int B, Rng& rng) {
    Batch b;
    b.B = B;
    b.t = m.T;
    b.tokens.assign(static_cast<size_t>(B * m.T), 0);
    b.targets.assign(b.tokens.size(), -1);
    b.offset.assign(static_cast<size_t>(B), -1);
    b.length.assign(static_cast<size_t>(B), -1);
    for (int s = 0; s < B; ++s) {
        int* seq = b.tokens.data() + s * m.T;
        int* target = b.targets.data() + s * m.T;
        switch (task) {
        case Task::repeat: make_repeat(seq, target, b.offset[static_cast<size_t>(s)], b.length[static_cast<size_t>(s)], m.T, m.vocab, rng); break;
        case Task::previous: make_previous(seq, target, m.T, m.vocab, rng); break;
        case Task::sort: make_sort(seq, target, m.T, m.vocab, rng); break;
        }
    }
    return b;
}

} // namespace core::train
