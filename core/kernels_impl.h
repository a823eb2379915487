// core/kernels_impl.h — the body of one kernel build. Only core/kernels_*.cpp include it, each after
//
//   #define ATTNVIZ_KERNEL_NS     namespace of this build (generic, x86_64_v3, x86_64_v4)
//   #define ATTNVIZ_KERNEL_NAME   "generic", "x86-64-v3", "x86-64-v4"
//   #define ATTNVIZ_KERNEL_GETTER the function of core/kernels.h that returns this build's Set
//   #define Eigen                 a name of Eigen's namespace unique to this build
//
// and compiled with its own -march. Renaming Eigen keeps every Eigen function this file
// instantiates distinct from the ones other files instantiate with other flags (the linker would
// otherwise keep any one of them). Nothing here may include a project header that includes Eigen;
// the start that every such build shares is core/march_build.h.
#pragma once

#include "core/kernels.h"
#include "core/march_build.h"

#include <cmath>
#include <limits>

namespace core::kernels {
namespace ATTNVIZ_KERNEL_NS {
namespace {

using march::for_blocks;
using march::smaller;
using GemmCache = march::GemmCache<double, 4>; // full blocks and the last, shorter one, for a couple of sizes

// A local fill rather than std::fill (see core/march_build.h).
Index blocks_of(Index rows, Index block) { return (rows + block - 1) / block; }
void fill(double* p, Index count, double value) {
    for (Index i = 0; i < count; ++i) p[i] = value;
}

// C = A B, all row-major: A (rows, depth) with row stride lda, B (depth, cols) with ldb, C (rows,
// cols) with ldc.
void gemm(GemmCache& cache, Index rows, Index cols, Index depth, const double* A, Index lda, const double* B, Index ldb,
          double* C, Index ldc) {
    for (Index r = 0; r < rows; ++r) fill(C + r * ldc, cols, 0.0); // GEMM adds to C
    Eigen::internal::general_matrix_matrix_product<Index, double, Eigen::RowMajor, false, double, Eigen::RowMajor, false,
                                                   Eigen::RowMajor, 1>::run(rows, cols, depth, A, lda, B, ldb, C, 1, ldc,
                                                                            1.0, cache.for_shape(rows, cols, depth));
}

thread_local GemmCache matmul_cache;

// C = A B, `block` rows of A and C at a time (also on one thread: the same bits either way).
void matmul(const double* A, const double* B, double* C, Index m, Index k, Index p, bool parallel) {
    const Index block = 64;
    auto one = [&](Index blk) {
        const Index r0 = blk * block, rows = smaller(block, m - r0);
        gemm(matmul_cache, rows, p, k, A + r0 * k, k, B, p, C + r0 * p, p);
    };
    for_blocks(blocks_of(m, block), parallel, one);
}

// The keys query i sees: lo ≤ j < hi (the causal mask ends them at i, the window starts them at
// i − window + 1 and, without the causal mask, ends them before i + window).
struct Keys {
    Index lo, hi;
};
Keys visible(const AttendArgs& a, Index i) {
    const Index w = a.window;
    const Index hi = a.causal ? i + 1 : (w > 0 && i + w < a.n ? i + w : a.n);
    return {w > 0 && i - w + 1 > 0 ? i - w + 1 : 0, hi};
}

// cap · tanh(x / cap) over sc[0..count), in place; the largest entry stays the largest.
double soft_cap(double* sc, Index count, double cap, double top) {
    for (Index j = 0; j < count; ++j) sc[j] = cap * std::tanh(sc[j] / cap);
    return cap * std::tanh(top / cap);
}

// Rows i0..i1 of `scaled` and `weights` from the same rows of `scores`, still in cache. Three
// passes over each row's visible keys, SIMD packets at a time: scale (also finding the maximum),
// exponentiate relative to the maximum (also summing), normalise; a soft-cap is one more pass
// after scaling. Outside the visible keys: −∞ and exact zeros.
void softmax_rows(const AttendArgs& a, Index i0, Index i1) {
    namespace ei = Eigen::internal;
    using Packet = ei::packet_traits<double>::type;
    constexpr Index P = ei::packet_traits<double>::size;
    const double neg_inf = -std::numeric_limits<double>::infinity();
    const Index n = a.n;
    const Packet factor = ei::pset1<Packet>(a.factor);
    for (Index i = i0; i < i1; ++i) {
        const Keys keys = visible(a, i);
        const Index count = keys.hi - keys.lo, packed = count - count % P;
        const double* s = a.scores + i * n + keys.lo;
        double* sc = a.scaled + i * n + keys.lo;
        double* w = a.weights + i * n + keys.lo;
        Packet top_p = ei::pset1<Packet>(neg_inf);
        for (Index j = 0; j < packed; j += P) {
            const Packet x = ei::pmul(ei::ploadu<Packet>(s + j), factor);
            ei::pstoreu(sc + j, x);
            top_p = ei::pmax(top_p, x);
        }
        double top = packed ? ei::predux_max(top_p) : neg_inf;
        for (Index j = packed; j < count; ++j) {
            sc[j] = s[j] * a.factor;
            if (sc[j] > top) top = sc[j];
        }
        if (a.softcap > 0.0) top = soft_cap(sc, count, a.softcap, top);
        // Subtracting the maximum keeps every exponential ≤ 1.
        const Packet top_b = ei::pset1<Packet>(top);
        Packet sum_p = ei::pset1<Packet>(0.0);
        for (Index j = 0; j < packed; j += P) {
            const Packet e = ei::pexp(ei::psub(ei::ploadu<Packet>(sc + j), top_b));
            ei::pstoreu(w + j, e);
            sum_p = ei::padd(sum_p, e);
        }
        double sum = packed ? ei::predux(sum_p) : 0.0;
        for (Index j = packed; j < count; ++j) sum += w[j] = std::exp(sc[j] - top);
        const double inv_sum = 1.0 / sum;
        const Packet inv_sum_p = ei::pset1<Packet>(inv_sum);
        for (Index j = 0; j < packed; j += P) ei::pstoreu(w + j, ei::pmul(ei::ploadu<Packet>(w + j), inv_sum_p));
        for (Index j = packed; j < count; ++j) w[j] *= inv_sum;
        fill(sc - keys.lo, keys.lo, neg_inf);
        fill(w - keys.lo, keys.lo, 0.0);
        fill(sc + count, n - keys.hi, neg_inf);
        fill(w + count, n - keys.hi, 0.0);
    }
}

// [SECTION] the attention's two products, on panels packed once per call
//
// Both products of attend() have a right-hand side shared by every block of query rows: Kᵀ (d_k, n)
// and V (n, d_v). Each is packed once into panels of `panel` columns (panel p holds B[k][p·panel …]
// for every k, contiguous, the last panel zero-padded), where Eigen's GEMM packed it again for every
// block. A block of `micro_rows` rows times a panel is then one register tile: each output is one
// chain of multiply-adds over the depth in order, so its bits depend on its row and column alone.
namespace ei = Eigen::internal;
using PacketD = ei::packet_traits<double>::type;
constexpr Index lanes = ei::packet_traits<double>::size; // 4 with AVX2, 8 with AVX-512, 2 with SSE2
constexpr Index panel = 2 * lanes;
constexpr Index micro_rows = 6; // 6 × 2 accumulators, 2 loads and a broadcast: within AVX2's 16 registers

// B (depth, cols) with B[k][j] = src[k·ld + j], or with `transposed` src[j·ld + k] (Kᵀ from K).
struct PanelSource {
    const double* src;
    Index ld;
    bool transposed;
    double at(Index k, Index j) const { return transposed ? src[j * ld + k] : src[k * ld + j]; }
};

// (panels, depth, panel) from B (depth, cols), into `out` sized panels · depth · panel.
void pack_panels(const PanelSource& b, Index depth, Index cols, double* out) {
    for (Index j0 = 0; j0 < cols; j0 += panel)
        for (Index k = 0; k < depth; ++k, out += panel)
            for (Index j = 0; j < panel; ++j) out[j] = j0 + j < cols ? b.at(k, j0 + j) : 0.0;
}

// C (R, width ≤ panel) = A (R, depth) row stride lda · one packed panel (depth, panel).
template <int R>
void tile(const double* A, Index lda, const double* packed, Index depth, double* C, Index ldc, Index width) {
    PacketD acc[R][2];
    for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = ei::pset1<PacketD>(0.0);
    for (Index k = 0; k < depth; ++k, packed += panel) {
        const PacketD b0 = ei::pload<PacketD>(packed), b1 = ei::pload<PacketD>(packed + lanes);
        for (int r = 0; r < R; ++r) {
            const PacketD x = ei::pset1<PacketD>(A[r * lda + k]);
            acc[r][0] = ei::pmadd(x, b0, acc[r][0]);
            acc[r][1] = ei::pmadd(x, b1, acc[r][1]);
        }
    }
    alignas(64) double full[panel];
    for (int r = 0; r < R; ++r) {
        if (width == panel) {
            ei::pstoreu(C + r * ldc, acc[r][0]);
            ei::pstoreu(C + r * ldc + lanes, acc[r][1]);
            continue;
        }
        ei::pstore(full, acc[r][0]);
        ei::pstore(full + lanes, acc[r][1]);
        for (Index j = 0; j < width; ++j) C[r * ldc + j] = full[j];
    }
}

// C (rows, cols) row stride ldc = A (rows, depth) · B: B's rows from the first of `packed`'s panels
// on, each panel `panel_rows` rows long (pack_panels' depth; ≥ depth).
void product_packed(Index rows, Index cols, Index depth, const double* A, Index lda, const double* packed, Index panel_rows, double* C,
                    Index ldc) {
    using Tile = void (*)(const double*, Index, const double*, Index, double*, Index, Index);
    static constexpr Tile tiles[micro_rows + 1] = {nullptr, tile<1>, tile<2>, tile<3>, tile<4>, tile<5>, tile<6>};
    for (Index i0 = 0; i0 < rows; i0 += micro_rows)
        for (Index j0 = 0; j0 < cols; j0 += panel)
            tiles[smaller(micro_rows, rows - i0)](A + i0 * lda, lda, packed + (j0 / panel) * panel_rows * panel, depth, C + i0 * ldc + j0, ldc,
                                                  smaller(panel, cols - j0));
}

// `count` doubles, 64-byte aligned for the tiles' aligned loads, kept alive by `store`.
double* aligned_doubles(std::unique_ptr<double[]>& store, Index count) {
    store.reset(new double[static_cast<std::size_t>(count + 8)]);
    void* p = store.get();
    std::size_t space = static_cast<std::size_t>(count + 8) * sizeof(double);
    return static_cast<double*>(std::align(64, static_cast<std::size_t>(count) * sizeof(double), p, space));
}

// Kᵀ and V of one attend() call as packed panels.
struct PackedKV {
    std::unique_ptr<double[]> k_store, v_store;
    double* k_panels = nullptr; // (n / panel rounded up, d_k, panel)
    double* v_panels = nullptr; // (d_v / panel rounded up, n, panel)
    explicit PackedKV(const AttendArgs& a)
        : k_panels(aligned_doubles(k_store, (a.n + panel - 1) / panel * a.d_k * panel)),
          v_panels(aligned_doubles(v_store, (a.d_v + panel - 1) / panel * a.n * panel)) {
        pack_panels({a.K, a.d_k, true}, a.d_k, a.n, k_panels);
        pack_panels({a.V, a.d_v, false}, a.n, a.d_v, v_panels);
    }
};

// Query rows i0..i1: scores, softmax, output. The block's scores and weights stay in cache
// between the three steps. The block's weights are exactly 0 outside the keys its rows see (before
// the first row's window, after the last row's causal end), so the product with V covers only those.
void attend_rows(const AttendArgs& a, const PackedKV& kv, Index i0, Index i1) {
    const Index rows = i1 - i0, n = a.n;
    product_packed(rows, n, a.d_k, a.Q + i0 * a.d_k, a.d_k, kv.k_panels, a.d_k, a.scores + i0 * n, n);
    softmax_rows(a, i0, i1);
    const Index lo = visible(a, i0).lo, hi = visible(a, i1 - 1).hi;
    product_packed(rows, a.d_v, hi - lo, a.weights + i0 * n + lo, n, kv.v_panels + lo * panel, n, a.output + i0 * a.d_v, a.d_v);
}

// About 512 KiB of one (n, n) matrix per block: big enough for GEMM to run at full speed, small
// enough that the block's scores and weights are still in L2 when they are read back.
Index attend_block_rows(Index n) {
    Index rows = 65536 / n;
    if (rows < 8) rows = 8;
    if (rows > 64) rows = 64;
    return rows;
}

void attend(const AttendArgs& a, bool parallel) {
    const Index block = attend_block_rows(a.n);
    const PackedKV kv(a);
    auto one = [&](Index blk) {
        const Index i0 = blk * block;
        attend_rows(a, kv, i0, smaller(i0 + block, a.n));
    };
    for_blocks(blocks_of(a.n, block), parallel, one);
}

constexpr Set set = {ATTNVIZ_KERNEL_NAME, matmul, attend};

} // namespace
} // namespace ATTNVIZ_KERNEL_NS

const Set* ATTNVIZ_KERNEL_GETTER() { return &ATTNVIZ_KERNEL_NS::set; }


} // namespace core::kernels
