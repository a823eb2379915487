// bench/bench_probes.cpp — how long the head probes take on one forward pass's attention.
//
//   scores/t/L/H     all_head_scores: previous, duplicate, induction and entropy of every head
//   forward_scores/t/L/H   the same from a forward's result, the entropies taken from its softmax
//   rollout_layer/t/H      one layer of the rollout a forward keeps (ForwardOptions::rollout): the
//                    mean over H heads and R ← Â · R
//   one_head/t       head_scores of a single head
//   rollout/t/L/H    rollout of the same attention (mean over heads, + I, row norm, L products)
//
// The attention is random and causal (rows of positive numbers summing to 1 up to the diagonal),
// (L, H, t, t) float32 as a forward gives it; the tokens are the probe of t / 2 ids repeated.
// Wall-clock time (UseRealTime): the helper thread's work counts. Run from the build directory:
//   ./attnviz_bench_probes               ATTNVIZ_THREADS=1 ./attnviz_bench_probes
#include "core/heads/probe.h"
#include "core/heads/rollout.h"
#include "core/heads/scores.h"
#include "core/model/head_importance.h"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

namespace {

std::vector<float> causal_attention(int L, int H, int t) {
    std::vector<float> a(static_cast<size_t>(L) * H * t * t, 0.0f);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    for (size_t head = 0; head < static_cast<size_t>(L * H); ++head)
        for (int i = 0; i < t; ++i) {
            float* row = a.data() + (head * t + i) * t;
            float sum = 0.0f;
            for (int j = 0; j <= i; ++j) sum += row[j] = u(rng) * u(rng) * u(rng);
            for (int j = 0; j <= i; ++j) row[j] /= sum;
        }
    return a;
}

void scores(benchmark::State& state) {
    const int t = static_cast<int>(state.range(0)), L = static_cast<int>(state.range(1)), H = static_cast<int>(state.range(2));
    const std::vector<float> a = causal_attention(L, H, t);
    const core::heads::ScoreIndex index = core::heads::score_index(core::heads::probe_sequence(t / 2, 1, 50257));
    for (auto _ : state) {
        std::vector<core::heads::HeadScores> s = core::heads::all_head_scores(a.data(), L, H, index);
        benchmark::DoNotOptimize(s.data());
    }
}
BENCHMARK(scores)->Args({1024, 4, 4})->Args({1024, 12, 12})->Args({64, 12, 12})->Unit(benchmark::kMillisecond)->UseRealTime();

void forward_scores(benchmark::State& state) {
    const int t = static_cast<int>(state.range(0)), L = static_cast<int>(state.range(1)), H = static_cast<int>(state.range(2));
    core::model::ForwardResult r;
    r.layers = L;
    r.heads = H;
    r.t_new = r.t_total = t;
    const std::vector<float> maps = causal_attention(L, H, t);
    r.maps = core::model::AttentionMaps(L, H, H, 64, t, t, true); // dense: the scores alone are timed
    for (int k = 0; k < L * H; ++k)
        std::copy_n(maps.data() + static_cast<std::ptrdiff_t>(k) * t * t, t * t, r.maps.dense_head(k / H, k % H));
    r.entropy.assign(static_cast<size_t>(L) * H * t, 1.0f);
    const core::heads::ScoreIndex index = core::heads::score_index(core::heads::probe_sequence(t / 2, 1, 50257));
    for (auto _ : state) {
        std::vector<core::heads::HeadScores> s = core::model::all_head_scores(r, index);
        benchmark::DoNotOptimize(s.data());
    }
}
BENCHMARK(forward_scores)->Args({1024, 12, 12})->Unit(benchmark::kMillisecond)->UseRealTime();

void rollout_layer(benchmark::State& state) {
    const int t = static_cast<int>(state.range(0)), H = static_cast<int>(state.range(1));
    const std::vector<float> a = causal_attention(1, H, t);
    core::model::MatrixF R = core::heads::mean_over_heads(a.data(), H, t);
    for (auto _ : state) {
        core::model::MatrixF next = R;
        core::heads::rollout_layer(core::heads::mean_over_heads(a.data(), H, t), next, true);
        benchmark::DoNotOptimize(next.data());
    }
}
BENCHMARK(rollout_layer)->Args({1024, 12})->Unit(benchmark::kMillisecond)->UseRealTime();

void one_head(benchmark::State& state) {
    const int t = static_cast<int>(state.range(0));
    const std::vector<float> a = causal_attention(1, 1, t);
    const core::heads::ScoreIndex index = core::heads::score_index(core::heads::probe_sequence(t / 2, 1, 50257));
    const Eigen::Map<const core::model::MatrixF> A(a.data(), t, t);
    for (auto _ : state) {
        core::heads::HeadScores s = core::heads::head_scores(A, index);
        benchmark::DoNotOptimize(s.entropy);
    }
}
BENCHMARK(one_head)->Arg(1024)->Unit(benchmark::kMillisecond)->UseRealTime();

void rollout(benchmark::State& state) {
    const int t = static_cast<int>(state.range(0)), L = static_cast<int>(state.range(1)), H = static_cast<int>(state.range(2));
    const std::vector<float> a = causal_attention(L, H, t);
    for (auto _ : state) {
        core::model::MatrixF R = core::heads::rollout(a.data(), L, H, t);
        benchmark::DoNotOptimize(R.data());
    }
}
BENCHMARK(rollout)->Args({1024, 4, 4})->Args({1024, 12, 12})->Args({64, 12, 12})->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

BENCHMARK_MAIN();
