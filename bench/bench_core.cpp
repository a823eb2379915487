// bench/bench_core.cpp — how long the window's full recompute takes, and what the arithmetic allows.
//
//   compute/N          core::compute_into reusing its Result, one head, d_model = d_k = d_v = 64,
//                      N = 3 … 4096 tokens; counters: the FLOPs of one recompute and their rate
//   compute_<build>/1024  the same at N = 1024 with each kernel build this CPU can run
//   gemm_QKt, gemm_AV  the two big products of N = 1024 alone, through the same kernels and
//                      threads: the machine's GEMM rate, the yardstick of bench/RESULTS.md
//
// Wall-clock time (UseRealTime): the helper thread's work counts. Run from the build directory:
//   ./attnviz_bench                      ATTNVIZ_THREADS=1 ./attnviz_bench   (one thread)
#include "core/attention.h"
#include "core/kernels.h"
#include "core/presets.h"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

namespace {

constexpr int dim = 64;

// FLOPs of one recompute with one head and d_model = d_k = d_v = d: three projections, Q Kᵀ and
// A V at 2 per multiply-add, and the softmax at 6 per entry (scale, max, subtract, exp counted as
// one, sum, normalise).
double flops(double n, double d) { return 3 * 2 * n * d * d + 2 * n * n * d + 2 * n * n * d + 6 * n * n; }

// "GFLOP": one iteration's work; "FLOPS": its rate (shown as e.g. 74.4G/s).
void set_counters(benchmark::State& state, double flop_count) {
    state.counters["GFLOP"] = flop_count / 1e9;
    state.counters["FLOPS"] = benchmark::Counter(flop_count, benchmark::Counter::kIsIterationInvariantRate,
                                                 benchmark::Counter::OneK::kIs1000);
}

void run_compute(benchmark::State& state, int n) {
    const core::Scenario s = core::bench_scenario(n, dim);
    core::Result r;
    core::compute_into(s, r); // sizes the buffers
    for (auto _ : state) {
        core::compute_into(s, r);
        benchmark::DoNotOptimize(r.output.data());
        benchmark::ClobberMemory();
    }
    set_counters(state, flops(n, dim));
    state.counters["threads"] = core::compute_threads(n);
    state.SetLabel(core::kernel_build());
}

void compute(benchmark::State& state) { run_compute(state, static_cast<int>(state.range(0))); }
BENCHMARK(compute)->Arg(3)->Arg(64)->Arg(512)->Arg(1024)->Arg(2048)->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime();

// C (m, p) = A (m, k) B (k, p) with the kernels and threads compute_into uses at 1024 tokens.
void gemm(benchmark::State& state, core::kernels::Index m, core::kernels::Index k, core::kernels::Index p) {
    const core::Matrix A = core::Matrix::Random(m, k), B = core::Matrix::Random(k, p);
    core::Matrix C(m, p);
    const bool parallel = core::compute_threads(1024) > 1;
    const core::kernels::Set& kernels = core::kernels::active();
    kernels.matmul(A.data(), B.data(), C.data(), m, k, p, parallel);
    for (auto _ : state) {
        kernels.matmul(A.data(), B.data(), C.data(), m, k, p, parallel);
        benchmark::DoNotOptimize(C.data());
        benchmark::ClobberMemory();
    }
    set_counters(state, 2.0 * static_cast<double>(m) * static_cast<double>(k) * static_cast<double>(p));
    state.SetLabel(kernels.name);
}

void gemm_QKt(benchmark::State& state) { gemm(state, 1024, dim, 1024); } // (1024×64)·(64×1024), as Q Kᵀ
void gemm_AV(benchmark::State& state) { gemm(state, 1024, 1024, dim); }  // (1024×1024)·(1024×64), as A V
BENCHMARK(gemm_QKt)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(gemm_AV)->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace

int main(int argc, char** argv) {
    const std::string best = core::kernel_build();
    for (const std::string& build : core::kernel_builds())
        benchmark::RegisterBenchmark(("compute_" + build + "/1024").c_str(),
                                     [build, best](benchmark::State& state) {
                                         core::use_kernel_build(build);
                                         run_compute(state, 1024);
                                         core::use_kernel_build(best);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
