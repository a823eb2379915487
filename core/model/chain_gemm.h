// core/model/chain_gemm.h — the float32 product of two or more rows for the x86-64-v3 and generic
// builds of core/model/ops.h, and for the x86-64-v4 build's small products (ops_impl.h's rows_product).
// Only core/model/ops_impl.h includes it (compiled once per level, so everything here has internal
// linkage).
//
// Every output C[i][j] is one chain of multiply-adds over k in the order 0 … k−1, started from 0 (or
// from C where accumulating): a fused multiply-add a link where the build has FMA (x86-64-v3), a
// multiply then an add where it has not (generic). Blocking only stores a chain's float32 value in C
// and reads it back, which is exact, so an output's bits depend on its row of A, its column of B and
// k alone: not on m, on the rows beside it, on the threads or on the addresses. oneDNN's AVX2 sgemm
// keeps none of that (a row in a product of m ≡ 1, 2, 3 mod 6 rows came out with other bits than in
// 40), which is why these builds do not use it.
//
// The layout is the usual one for a register-blocked product (BLIS, GotoBLAS): B packed a block of
// kc × nc at a time into panels of NR columns, A a block of mc × kc into panels of MR rows, an
// MR × NR tile of C held in registers while p runs over the block. A product of few rows (a prompt
// of up to 192 tokens, the LM head's blocks, attention's blocks of queries) packs all of A once per
// block of depth and B in smaller blocks that stay in L2 beside it (few_rows), or, where B is
// (n, k) and A small enough, all of A once and B a panel of every depth at a time (whole_panels).
#pragma once

#include "core/model/ops.h"
#include "core/parallel.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#if defined(__AVX__)
#include <immintrin.h>
#endif

namespace core::model::ops::chain {
namespace {

#if defined(__AVX__)
constexpr int lanes = 8; // a ymm register of floats
constexpr int MR = 6;    // 6 × 2 accumulators + 2 of B + 1 of A: 15 of the 16 ymm registers
#else
constexpr int lanes = 4; // an xmm register
constexpr int MR = 4;    // 4 × 2 accumulators + 2 + 1 of the 16 xmm registers
#endif
constexpr int NV = 2;                    // vectors of C's columns in a tile
constexpr int NR = lanes * NV;           // columns in a tile
constexpr Index KC = 256;                // depth of a block: a B panel (KC × NR, 16 KB) in L1 — at 512 it filled L1
constexpr Index MC = MR * (96 / MR);     // rows of a packed A block (96 KB): L2
constexpr Index MC_FEW = 192;            // products of at most this many rows go through few_rows
constexpr Index NC_FEW = 256;            // columns of a packed B block there (256 KB, beside A's in L2)
constexpr Index NC = 4096;               // columns of a packed B block (4 MB): L3

typedef float Vec __attribute__((vector_size(lanes * sizeof(float)), aligned(lanes * sizeof(float))));
typedef float VecU __attribute__((vector_size(lanes * sizeof(float)), aligned(alignof(float))));

// x in every lane (a broadcast; `Vec{} + x` would be an addition, which −0 keeps from folding away).
inline Vec splat(float x) {
    Vec v;
    for (int l = 0; l < lanes; ++l) v[l] = x;
    return v;
}

// Rows × NR of C (rows ≤ MR): c (row stride ldc) ← (load ? c : 0) + a · b over kc, a packed (kc, MR),
// b (kc, NR). `acc += x * y` is one expression, which clang and GCC contract into an FMA where the
// build has it. The rows past a product's last whole panel take a tile of their own height: a full
// MR tile for them cost 3 % of every product of 64 or 128 rows (m mod 6 = 4 or 2).
template <int rows>
void tile(Index kc, const float* __restrict a, const float* __restrict b, float* __restrict c, Index ldc, bool load) {
    Vec acc[rows][NV];
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < NV; ++v) acc[r][v] = load ? Vec(*reinterpret_cast<const VecU*>(c + r * ldc + v * lanes)) : Vec{};
    for (Index p = 0; p < kc; ++p, a += MR, b += NR) {
        Vec bv[NV];
        for (int v = 0; v < NV; ++v) bv[v] = *reinterpret_cast<const Vec*>(b + v * lanes);
        for (int r = 0; r < rows; ++r) {
            const Vec ar = splat(a[r]);
            for (int v = 0; v < NV; ++v) acc[r][v] += ar * bv[v];
        }
    }
    for (int r = 0; r < rows; ++r)
        for (int v = 0; v < NV; ++v) *reinterpret_cast<VecU*>(c + r * ldc + v * lanes) = acc[r][v];
}

template <int rows>
void tile_of_height(Index height, Index kc, const float* a, const float* b, float* c, Index ldc, bool load) {
    if constexpr (rows > 1) {
        if (height < rows) return tile_of_height<rows - 1>(height, kc, a, b, c, ldc, load);
    }
    tile<rows>(kc, a, b, c, ldc, load);
}

// A tile of `rows` ≤ MR rows; where it has fewer than NR columns (C's edge), the same arithmetic on
// a buffer of NR columns, then its first `cols` written back.
void any_tile(Index kc, const float* a, const float* b, float* c, Index ldc, bool load, Index rows, Index cols) {
    if (cols == NR) return tile_of_height<MR>(rows, kc, a, b, c, ldc, load);
    alignas(64) float t[MR * NR] = {};
    if (load)
        for (Index r = 0; r < rows; ++r) std::copy(c + r * ldc, c + r * ldc + cols, t + r * NR);
    tile_of_height<MR>(rows, kc, a, b, t, NR, load);
    for (Index r = 0; r < rows; ++r) std::copy(t + r * NR, t + r * NR + cols, c + r * ldc);
}

// count floats at a 64-byte boundary in buffer, and at least 2 more after them (pack_a's).
float* aligned(std::vector<float>& buffer, Index count) {
    const std::size_t want = static_cast<std::size_t>(count) + 16 + 2;
    if (buffer.size() < want) buffer.resize(want);
    const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
    return buffer.data() + (64 - address % 64) % 64 / sizeof(float);
}

#if defined(__AVX__)
// Depths p … p+7 of the rows rows[0 … count−1] (zeros for the rows past count, up to 8) as 8 rows
// of 8 floats at out, out + stride, …, written in that order. Each register is loaded as two
// halves, rows i and i+4, so that the transpose takes two rounds of shuffles within the halves and
// not a third across them (vperm2f128): on Intel's cores shuffles share one port. The scalar copy
// wrote a float at a time 64 bytes apart, a sixth of the LM head's product at t = 128.
inline void transpose8(const float* const* rows, int count, Index p, float* out, Index stride) {
    const auto half = [&](int i, Index at) { return i < count ? _mm_loadu_ps(rows[i] + at) : _mm_setzero_ps(); };
    __m256 r[8], t[8];
    for (int i = 0; i < 4; ++i) {
        r[i] = _mm256_insertf128_ps(_mm256_castps128_ps256(half(i, p)), half(i + 4, p), 1);
        r[i + 4] = _mm256_insertf128_ps(_mm256_castps128_ps256(half(i, p + 4)), half(i + 4, p + 4), 1);
    }
    for (int i = 0; i < 8; i += 2) {
        t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
        t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 8; i += 4) {
        _mm256_storeu_ps(out + (i + 0) * stride, _mm256_shuffle_ps(t[i], t[i + 2], 0x44));
        _mm256_storeu_ps(out + (i + 1) * stride, _mm256_shuffle_ps(t[i], t[i + 2], 0xee));
        _mm256_storeu_ps(out + (i + 2) * stride, _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44));
        _mm256_storeu_ps(out + (i + 3) * stride, _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee));
    }
}
#endif

// B's rows p0 … p0+kc−1, columns j0 … j0+cols−1 as panels of NR columns (kc, NR), zeros past cols.
// Here and in pack_a the values and the zeros past an edge are written by two loops, never as one
// `j < w ? src[j] : 0`: compilers turn that into masked loads, whose masked-off lanes QEMU 7.2
// (tests/emulated_cpu.py) reads and faults on past the end of B, where the hardware reads nothing.
// B (k, n) is read 16 rows at a time across every panel, each panel's 16 rows written as one 1 KB
// run: a panel's column of 16 floats down 512 rows touched 512 pages (packing GPT-2's c_attn at
// t = 128 that way took a fifth of the product's time), and one row at a time wrote a line into
// each of the panels, 16 KB apart, for every row (c_proj and mlp.c_proj at t = 128 ran 5-13 %
// slower on two cores). Each line read asks for the line 16 rows below it: B comes from memory,
// and GPT-2's forward at t = 128 ran 1 % faster (x86-64-v3; two groups ahead, no faster).
void pack_b(const Gemm& g, Index p0, Index kc, Index j0, Index cols, float* __restrict dst) {
    const Index panels = (cols + NR - 1) / NR, full = cols / NR;
    if (g.b_transposed) { // B (n, k): column j of the product is row j of B
        for (Index q = 0; q < panels; ++q) {
            float* panel = dst + q * kc * NR;
            const Index w = std::min<Index>(NR, cols - q * NR);
            const float* rows[NR];
            for (Index j = 0; j < NR; ++j) rows[j] = j < w ? g.B + (j0 + q * NR + j) * g.ldb + p0 : nullptr;
            Index p = 0;
#if defined(__AVX__)
            if (w == NR)
                for (; p + 8 <= kc; p += 8)
                    for (int half = 0; half < NR; half += 8) transpose8(rows + half, 8, p, panel + p * NR + half, NR);
#endif
            for (; p < kc; ++p) {
                for (Index j = 0; j < w; ++j) panel[p * NR + j] = rows[j][p];
                for (Index j = w; j < NR; ++j) panel[p * NR + j] = 0.0f;
            }
        }
        return;
    }
    constexpr Index group = 16;
    for (Index p1 = 0; p1 < kc; p1 += group) {
        const Index p2 = std::min(kc, p1 + group);
        const Index next_rows = std::min(kc, p2 + group) - p2; // the next group's, asked for line by line
        for (Index q = 0; q < full; ++q)
            for (Index p = p1; p < p2; ++p) {
                const float* src = g.B + (p0 + p) * g.ldb + j0 + q * NR;
                if (p - p1 < next_rows) __builtin_prefetch(src + group * g.ldb);
                float* out = dst + q * kc * NR + p * NR;
                for (int j = 0; j < NR; ++j) out[j] = src[j]; // constant length: a vector copy
            }
        const Index w = cols - full * NR; // the last panel's columns, then zeros (see pack_b)
        for (Index p = p1; full < panels && p < p2; ++p) {
            const float* src = g.B + (p0 + p) * g.ldb + j0 + full * NR;
            float* out = dst + full * kc * NR + p * NR;
            std::copy(src, src + w, out);
            std::fill(out + w, out + NR, 0.0f);
        }
    }
}

// The panels of a block of m rows, q = 0 … count−1, each packed as (kc, MR): MR rows each, except
// that where the rows past the last whole panel would be 1 or 2, the last MR + that many go as two
// panels of 3 or 4. A tile of 2 rows has 4 chains of multiply-adds, too few to hide an FMA's latency:
// a 128-token prompt's last 2 rows cost about 1.5 times a whole tile's per row, and split this way
// GPT-2's products at t = 128 ran 2-7 % faster (x86-64-v3, two cores).
struct Panels {
    Index m, count;
    bool split;
    explicit Panels(Index rows) : m(rows), count((rows + MR - 1) / MR), split(count >= 2 && rows % MR != 0 && rows % MR <= 2) {}
    Index start(Index q) const { // q ≤ count
        if (q >= count) return m;
        if (split && q == count - 1) return (count - 2) * MR + (MR + m % MR + 1) / 2;
        return q * MR;
    }
    Index height(Index q) const { return start(q + 1) - start(q); }
};

// A's rows i0 … i0+panels.m−1, depths p0 … p0+kc−1 as `panels` (the ones its tiles run on), zeros
// past each panel's height; writes up to 2 floats past the panels (aligned() leaves room). A whole
// panel goes 8 depths at a time through a register transpose, each depth's 8 floats stored over the
// next one's first 2: the scalar copy was 3 % of the products at t = 128.
void pack_a(const Gemm& g, Index i0, const Panels& panels, Index p0, Index kc, float* __restrict dst) {
    for (Index q = 0; q < panels.count; ++q, dst += kc * MR) {
        const Index h = panels.height(q), first = i0 + panels.start(q);
        const float* src[MR];
        for (Index r = 0; r < MR; ++r) src[r] = r < h ? g.A + (first + r) * g.lda + p0 : nullptr;
        Index p = 0;
#if defined(__AVX__)
        static_assert(MR <= 8, "a panel's rows fit one transpose");
        if (h == MR)
            for (; p + 8 <= kc; p += 8) transpose8(src, MR, p, dst + p * MR, MR);
#endif
        for (; p < kc; ++p) {
            for (Index r = 0; r < h; ++r) dst[p * MR + r] = src[r][p];
            for (Index r = h; r < MR; ++r) dst[p * MR + r] = 0.0f;
        }
    }
}

// The next tile's rows of C asked into the cache while this tile runs: C's rows lie n floats apart
// and out of the caches, and each tile otherwise waited on them at its start and its end.
inline void prefetch_tile(const Gemm& g, const float* c, Index rows) {
    for (Index r = 0; r < rows; ++r) {
        __builtin_prefetch(c + r * g.ldc, 1);
        __builtin_prefetch(c + r * g.ldc + NR - 1, 1);
    }
}

// The tile of C for panel q of A's block a (rows from i0), B's panel bp at column j with `cols`
// columns: a full tile, or one of fewer rows or columns (any_tile). The next panel's rows of C are
// asked for.
inline void tile_at(const Gemm& g, Index kc, const float* a, const Panels& panels, Index q, Index i0, const float* bp, Index j, Index cols, bool load) {
    const Index rows = panels.height(q);
    float* c = g.C + (i0 + panels.start(q)) * g.ldc + j;
    prefetch_tile(g, c + rows * g.ldc, panels.height(q + 1));
    const float* ap = a + q * kc * MR;
    if (rows == MR && cols == NR) tile<MR>(kc, ap, bp, c, g.ldc, load);
    else any_tile(kc, ap, bp, c, g.ldc, load, rows, cols);
}

// The lines of `rows` rows of B as it lies in memory (row stride ld, `floats` floats from `first` in
// each) asked into the cache a few at a time, spread over `calls` calls of step(): B comes from
// memory, and a block's rows asked for while the tiles before it run are in the cache when packed.
class Ahead {
public:
    Ahead(const float* first, Index ld, Index rows, Index floats, Index calls)
        : first_(first), ld_(ld), per_row_((floats + 15) / 16), lines_(rows * per_row_), per_call_((lines_ + calls - 1) / std::max<Index>(calls, 1)) {}
    void step() {
        for (const Index end = std::min(lines_, line_ + per_call_); line_ < end; ++line_)
            __builtin_prefetch(first_ + line_ / per_row_ * ld_ + line_ % per_row_ * 16);
    }

private:
    const float* first_;
    Index ld_, per_row_, lines_, per_call_, line_ = 0;
};

// Depths pc … pc+kc−1 of columns jc … jc+nc−1 where B is (n, k) and A is one block of at most
// MC_FEW rows, packed as `panels`: each panel of B packed into a buffer that stays in L1 just before its tiles run,
// while the rows of the next one are asked for. Packed a whole block at a time, the panel's 16 rows
// of B (16 streams from memory, each kc floats) kept the LM head's product at t = 128 waiting: this
// way it runs 10 % faster on one core. The chains are the same.
void panel_by_panel(const Gemm& g, Index pc, Index kc, Index jc, Index nc, const float* a, const Panels& panels, float* b, bool load) {
    for (Index jr = 0; jr < nc; jr += NR) {
        const Index cols = std::min<Index>(NR, nc - jr);
        pack_b(g, pc, kc, jc + jr, cols, b);
        const Index next_rows = std::max<Index>(0, std::min<Index>(NR, nc - jr - NR));
        Ahead next(next_rows ? g.B + (jc + jr + NR) * g.ldb + pc : g.B, g.ldb, next_rows, kc, panels.count);
        for (Index q = 0; q < panels.count; ++q) {
            next.step();
            tile_at(g, kc, a, panels, q, 0, b, jc + jr, cols, load);
        }
    }
}

thread_local std::vector<float> a_buffer, b_buffer; // this thread's packed blocks

constexpr Index A_WHOLE = 512 * 1024 / sizeof(float); // floats of a packed A that whole_panels keeps in L2

// Columns c0 … c1−1 where B is (n, k) and all of A, packed for every depth, fits in A_WHOLE: each
// panel of B packed for every depth at once, then its blocks of depth one after another, while the
// next panel's rows are asked for. Each panel's 16 rows are read whole (3 KB each for GPT-2's LM
// head) rather than a block of depth at a time, and its tiles of C come back once per block of
// depth in a row rather than once per pass over every column. GPT-2 small's LM head at t = 128 took 57.0 -> 53.2 ms
// (x86-64-v3, two cores, four runs each); a Llama-1B-sized q_proj and up_proj at 32 rows ran 9 %
// faster. The chains are the same.
void whole_panels(const Gemm& g, Index c0, Index c1, const Panels& panels) {
    const Index per_depth = panels.count * MR, blocks = (g.k + KC - 1) / KC;
    float* a = aligned(a_buffer, per_depth * g.k); // block pc's panels from a + pc · per_depth
    for (Index pc = 0; pc < g.k; pc += KC) pack_a(g, 0, panels, pc, std::min(KC, g.k - pc), a + pc * per_depth);
    float* b = aligned(b_buffer, NR * g.k); // (k, NR)
    for (Index j = c0; j < c1; j += NR) {
        const Index cols = std::min<Index>(NR, c1 - j);
        pack_b(g, 0, g.k, j, cols, b);
        const Index next_rows = std::max<Index>(0, std::min<Index>(NR, c1 - j - NR));
        Ahead next(next_rows ? g.B + (j + NR) * g.ldb : g.B, g.ldb, next_rows, g.k, panels.count * blocks);
        for (Index pc = 0; pc < g.k; pc += KC)
            for (Index q = 0; q < panels.count; ++q) {
                next.step();
                tile_at(g, std::min(KC, g.k - pc), a + pc * per_depth, panels, q, 0, b + pc * NR, j, cols, pc > 0 || g.accumulate);
            }
    }
}

// Columns c0 … c1−1 of C where A has at most MC_FEW rows: where B is (n, k), whole_panels when all
// of A packed fits in A_WHOLE. Else per block of depth, A packed once (it stays in L2), then B in
// blocks of NC_FEW columns that stay in L2 beside it, or panel by panel where B is (n, k). Against
// the blocks of the larger products (B's 1.5 MB block in L3, A in blocks of 96 rows), GPT-2's
// products at t = 128 ran 4-14 % faster on two cores. B (k, n) is left to the hardware's
// prefetchers: asking for the next block's 256 KB ahead (Ahead) cost more than it saved, and
// without it GPT-2's forward at t = 128 ran 5 % faster (x86-64-v3, two cores).
void few_rows(const Gemm& g, Index c0, Index c1) {
    const Panels panels(g.m);
    if (g.b_transposed && panels.count * MR * g.k <= A_WHOLE) return whole_panels(g, c0, c1, panels);
    for (Index pc = 0; pc < g.k; pc += KC) {
        const Index kc = std::min(KC, g.k - pc);
        const bool load = pc > 0 || g.accumulate;
        float* a = aligned(a_buffer, panels.count * MR * kc);
        pack_a(g, 0, panels, pc, kc, a);
        if (g.b_transposed) {
            panel_by_panel(g, pc, kc, c0, c1 - c0, a, panels, aligned(b_buffer, NR * kc), load);
            continue;
        }
        for (Index jc = c0; jc < c1; jc += NC_FEW) {
            const Index nc = std::min(NC_FEW, c1 - jc);
            float* b = aligned(b_buffer, (nc + NR - 1) / NR * NR * kc);
            pack_b(g, pc, kc, jc, nc, b);
            for (Index jr = 0; jr < nc; jr += NR)
                for (Index q = 0; q < panels.count; ++q) tile_at(g, kc, a, panels, q, 0, b + jr * kc, jc + jr, std::min<Index>(NR, nc - jr), load);
        }
    }
}

// Columns c0 … c1−1 of C, on the calling thread.
void columns(const Gemm& g, Index c0, Index c1) {
    if (g.k == 0) {
        if (!g.accumulate)
            for (Index i = 0; i < g.m; ++i) std::fill(g.C + i * g.ldc + c0, g.C + i * g.ldc + c1, 0.0f);
        return;
    }
    if (g.m <= MC_FEW) return few_rows(g, c0, c1);
    for (Index jc = c0; jc < c1; jc += NC) {
        const Index nc = std::min(NC, c1 - jc), panels = (nc + NR - 1) / NR;
        for (Index pc = 0; pc < g.k; pc += KC) {
            const Index kc = std::min(KC, g.k - pc);
            const bool load = pc > 0 || g.accumulate;
            float* b = aligned(b_buffer, panels * NR * kc);
            pack_b(g, pc, kc, jc, nc, b);
            for (Index ic = 0; ic < g.m; ic += MC) {
                const Panels block(std::min(MC, g.m - ic));
                float* a = aligned(a_buffer, block.count * MR * kc);
                pack_a(g, ic, block, pc, kc, a);
                for (Index jr = 0; jr < nc; jr += NR) {
                    const float* bp = b + jr / NR * kc * NR;
                    for (Index q = 0; q < block.count; ++q)
                        tile_at(g, kc, a, block, q, ic, bp, jc + jr, std::min<Index>(NR, nc - jr), load);
                }
            }
        }
    }
}

struct Blocks {
    const Gemm* g;
    Index width; // a multiple of NR
    static void one(void* context, std::ptrdiff_t i) {
        const auto& b = *static_cast<Blocks*>(context);
        const Index c0 = i * b.width;
        columns(*b.g, c0, std::min(b.g->n, c0 + b.width));
    }
};

// C (+)= A · B; with `parallel` and a product worth sharing, a block of columns per thread of
// core::parallel (the bits are the same either way).
void product(const Gemm& g, bool parallel) {
    if (g.m == 0 || g.n == 0) return;
    const double flops = static_cast<double>(g.m) * static_cast<double>(g.n) * static_cast<double>(g.k);
    const Index threads = parallel && flops >= 1e6 ? std::min<Index>(core::parallel::threads(), g.n / NR) : 1;
    if (threads < 2) return columns(g, 0, g.n);
    Blocks job{&g, (g.n + threads - 1) / threads + NR - 1};
    job.width -= job.width % NR;
    core::parallel::for_each((g.n + job.width - 1) / job.width, &Blocks::one, &job);
}

} // namespace
} // namespace core::model::ops::chain
