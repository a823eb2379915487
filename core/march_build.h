// core/march_build.h — what every file built once per -march starts with: core/kernels_impl.h,
// core/model/ops_impl.h and core/train/gpt2_ops_impl.h include it after `#define Eigen NAME`.
// It silences a false warning, keeps Eigen single-threaded and gives the loops they share.
//
// Everything here has internal linkage (an unnamed namespace), so each build keeps its own copy
// compiled with its own flags: an inline function shared between builds could be kept by the
// linker from any one of them. Nothing here may include a project header that includes Eigen.
#pragma once

#include "core/parallel.h"

// GCC 12 warns that AVX-512 intrinsics' deliberately undefined registers (_mm512_undefined_pd,
// `__m512d __Y = __Y;`) are (or "may be") used uninitialized wherever Eigen inlines them: a false
// positive inside the compiler's own headers, silenced for these files only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

// Parallelism is ours (row blocks, core/parallel.h), never Eigen's.
#define EIGEN_DONT_PARALLELIZE
#include <Eigen/Core>

#include <cstddef>
#include <memory>

namespace core::march {
namespace {

using Index = std::ptrdiff_t;

// Local helpers rather than std::min or std::max: an inline std:: function that is not inlined
// would be a symbol shared with other files, and the linker could keep another build's copy.
inline Index smaller(Index a, Index b) { return a < b ? a : b; }
inline Index larger(Index a, Index b) { return a > b ? a : b; }

// f(0 … count-1), on this thread alone or shared with core::parallel's helpers.
template <class F>
void for_blocks(Index count, bool parallel, F& f) {
    if (!parallel || count < 2) {
        for (Index i = 0; i < count; ++i) f(i);
        return;
    }
    parallel::for_each(count, [](void* context, std::ptrdiff_t i) { (*static_cast<F*>(context))(i); }, &f);
}

// Eigen's GEMM allocates its packing buffers on every call, and buffers of this size go back to the
// system when freed, so every call page-faults them in again: at n = 1024 that was 90 000 faults
// and three quarters of the time of a recompute. A GemmCache keeps the buffers of the last
// `Entries` product shapes (one cache per call site and per thread, thread_local) for Eigen's own
// GEMM (internal::general_matrix_matrix_product, the same from Eigen 3.3 to 3.4). The blocking
// depends on the shape alone, as in Eigen's own product, so the same inputs give the same bits
// whatever was computed before.
template <class Scalar, unsigned Entries>
struct GemmCache {
    using Blocking = Eigen::internal::gemm_blocking_space<Eigen::RowMajor, Scalar, Scalar, Eigen::Dynamic, Eigen::Dynamic,
                                                          Eigen::Dynamic, 1, false>;
    struct Entry {
        Index rows = -1, cols = -1, depth = -1;
        std::unique_ptr<Blocking> blocking;
    };
    Entry entries[Entries];
    unsigned next = 0;
    Blocking& for_shape(Index r, Index c, Index d) {
        for (Entry& e : entries)
            if (e.blocking && e.rows == r && e.cols == c && e.depth == d) return *e.blocking;
        Entry& e = entries[next++ % Entries];
        e.blocking = std::make_unique<Blocking>(r, c, d, 1, true);
        e.blocking->allocateAll();
        e.rows = r;
        e.cols = c;
        e.depth = d;
        return *e.blocking;
    }
};

} // namespace
} // namespace core::march
