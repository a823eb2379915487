// core/model/sgemm.cpp — ops::sgemm on oneDNN (see core/model/sgemm.h).
#include "core/model/sgemm.h"

#include "core/parallel.h"

#include <dnnl.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

// libgomp's, the OpenMP runtime Debian's oneDNN is built with (declared here rather than through
// <omp.h>, which clang does not ship).
extern "C" void omp_set_num_threads(int);

namespace core::model::ops {

namespace {

// oneDNN would start a team of OpenMP threads inside every call; the threads are core::parallel's,
// so each thread that multiplies asks for a team of one, once.
void one_thread_here() {
    thread_local const bool done = (omp_set_num_threads(1), true);
    (void)done;
}

// oneDNN by default asks VTune's JIT interface whether it is profiling: it dlopens libJitPI.so on
// the thread of its first kernel, and glibc keeps that failed load's message for the thread, which
// LeakSanitizer (clang 14) reports as a leak when that thread is a worker. Off, unless the
// environment asks oneDNN for a profiler.
void no_profiler_probe() {
    static const bool done = [] {
        if (!std::getenv("ONEDNN_JIT_PROFILE") && !std::getenv("DNNL_JIT_PROFILE")) dnnl_set_jit_profiling_flags(DNNL_JIT_PROFILE_NONE);
        return true;
    }();
    (void)done;
}

void call(const Gemm& g, const float* A, Index lda, const float* B, float* C, Index ldc, Index rows, Index cols) {
    no_profiler_probe();
    const Index ldb = std::max(g.ldb, g.b_transposed ? g.k : cols);
    const dnnl_status_t s = dnnl_sgemm('N', g.b_transposed ? 'T' : 'N', rows, cols, g.k, 1.0f, A, std::max(lda, g.k), B, ldb,
                                       g.accumulate ? 1.0f : 0.0f, C, std::max(ldc, cols));
    if (s != dnnl_success)
        throw std::logic_error("oneDNN's sgemm refused a (" + std::to_string(rows) + ", " + std::to_string(g.k) + ") · (" +
                               std::to_string(g.k) + ", " + std::to_string(cols) + ") product (status " +
                               std::to_string(static_cast<int>(s)) + ")");
}

// With B transposed oneDNN multiplies fewer than 16 rows in another order of sums than 16 or more
// (and one row in yet another, as a matrix-vector product, which Eigen's did too). 2 … 15 rows go
// through 16 so that a row has the same bits alone or in a batch (head importance's copies).
constexpr Index fewest_rows = 16;

void padded_call(const Gemm& g, const float* B, float* C, Index cols) {
    thread_local std::vector<float> a, c;
    a.assign(static_cast<std::size_t>(fewest_rows * g.k), 0.0f); // (16, k)
    c.resize(static_cast<std::size_t>(fewest_rows * cols));      // (16, cols)
    for (Index r = 0; r < g.m; ++r) {
        std::copy(g.A + r * g.lda, g.A + r * g.lda + g.k, a.data() + r * g.k);
        if (g.accumulate) std::copy(C + r * g.ldc, C + r * g.ldc + cols, c.data() + r * cols);
    }
    call(g, a.data(), g.k, B, c.data(), cols, fewest_rows, cols);
    for (Index r = 0; r < g.m; ++r) std::copy(c.data() + r * cols, c.data() + (r + 1) * cols, C + r * g.ldc);
}

// Columns c0 … c0+cols−1 of C. oneDNN checks every leading dimension against the shape even where
// only one row or column is read, hence the std::max in call().
void block(const Gemm& g, Index c0, Index cols) {
    float* C = g.C + c0;
    if (g.m == 0 || cols == 0) return;
    if (g.k == 0) {
        if (!g.accumulate)
            for (Index r = 0; r < g.m; ++r) std::fill(C + r * g.ldc, C + r * g.ldc + cols, 0.0f);
        return;
    }
    one_thread_here();
    const float* B = g.b_transposed ? g.B + c0 * g.ldb : g.B + c0;
    if (g.b_transposed && g.m > 1 && g.m < fewest_rows) return padded_call(g, B, C, cols);
    call(g, g.A, g.lda, B, C, g.ldc, g.m, cols);
}

struct Blocks {
    const Gemm* g;
    Index width;
    static void one(void* context, std::ptrdiff_t i) {
        const auto& b = *static_cast<Blocks*>(context);
        const Index c0 = i * b.width;
        block(*b.g, c0, std::min(b.width, b.g->n - c0));
    }
};

} // namespace

void sgemm(const Gemm& g, bool parallel) {
    const double flops = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
    // Two halves: a narrower block costs oneDNN 3–25 % of its rate (it packs A again and runs shorter
    // loops), a half 0–9 % (bench/bench_products.cpp's blocks/ rows).
    const Index width = parallel && flops > 1e6 && g.n >= 128 ? (g.n / 2 + 63) / 64 * 64 : g.n;
    const Index count = g.n == 0 ? 0 : (g.n + width - 1) / width;
    Blocks job{&g, width};
    if (parallel) return core::parallel::for_each(count, &Blocks::one, &job);
    for (Index i = 0; i < count; ++i) Blocks::one(&job, i);
}

} // namespace core::model::ops
