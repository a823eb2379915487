// core/model/weight_rows_avx512.cpp — core/model/weight_rows.h's kernel (built with -march=x86-64-v4).
//
// For a block of output columns j … j+13 and of x's rows i … i+31: the sums s[r][i] of
// w[j+r][k] · x[i][k] over k, as 28 zmm accumulators (14 rows × 2 vectors of 16 rows of x). Per k,
// two loads of x's packed column and 14 broadcasts of a widened weight, 28 multiply-adds.
#include "core/model/weight_rows.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

namespace core::model::weight_rows {

namespace {

using ops::Index;

constexpr int rows_per_tile = 14;  // weight rows broadcast per tile
constexpr Index depth_step = 512;  // k per widened block: 14 × 512 floats stay in L1
constexpr Index depth_block = 2048; // k per packed block of x
constexpr Index row_block = 128;   // rows of x packed at once: 128 × 2048 floats stay in L2

// The next block of weight rows, asked into L2 a line at a time while this block's tiles run. Without
// it each row waited on memory as it was widened: 19 % of a Llama-1B-sized forward at t = 128 went to
// widening and packing, 13 % with it.
struct Ahead {
    std::array<const char*, rows_per_tile> rows{};
    Index count, bytes, every, r = 0, at = 0, wait;
    // Rows j … j+count−1 (count may be ≤ 0: none) at depths k0 … k0+kc−1, over `steps` k steps.
    Ahead(const Product& p, Index j, Index n, Index k0, Index kc, Index steps)
        : count(std::max<Index>(n, 0)), bytes((kc + p.block_values - 1) / p.block_values * p.block_bytes) {
        const Index from = k0 / p.block_values * p.block_bytes;
        for (Index i = 0; i < count; ++i) rows[static_cast<std::size_t>(i)] = reinterpret_cast<const char*>(p.row(p.tensor, j + i) + from);
        const Index lines = count * ((bytes + 63) / 64);
        every = wait = lines ? std::max<Index>(1, steps / lines) : steps + 1;
    }
    void step() {
        if (--wait > 0) return;
        wait = every;
        if (r == count) return;
        _mm_prefetch(rows[static_cast<std::size_t>(r)] + at, _MM_HINT_T1);
        if ((at += 64) >= bytes) at = 0, ++r;
    }
};

// acc (R weight rows, 16·V rows of x) (+)= w (R, kc; row stride ldw) · xt (kc, 16·V), kept in t.
template <int R, int V>
void tile(const float* __restrict w, Index ldw, const float* __restrict xt, Index kc, float* __restrict t, bool carry, Ahead& ahead) {
    __m512 acc[R][V];
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) acc[r][v] = carry ? _mm512_load_ps(t + (r * V + v) * 16) : _mm512_setzero_ps();
#pragma clang loop unroll_count(2)
    for (Index k = 0; k < kc; ++k) {
        ahead.step();
        __m512 b[V];
        for (int v = 0; v < V; ++v) b[v] = _mm512_load_ps(xt + k * 16 * V + 16 * v);
#pragma clang loop unroll(full)
        for (int r = 0; r < R; ++r) {
            const __m512 a = _mm512_set1_ps(w[r * ldw + k]);
            for (int v = 0; v < V; ++v) acc[r][v] = _mm512_fmadd_ps(a, b[v], acc[r][v]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) _mm512_store_ps(t + (r * V + v) * 16, acc[r][v]);
}

using Tile = void (*)(const float*, Index, const float*, Index, float*, bool, Ahead&);
template <int V, std::size_t... I>
constexpr std::array<Tile, rows_per_tile + 1> tiles_of(std::index_sequence<I...>) {
    return {nullptr, &tile<static_cast<int>(I) + 1, V>...};
}
constexpr auto tiles16 = tiles_of<1>(std::make_index_sequence<rows_per_tile>{});
constexpr auto tiles32 = tiles_of<2>(std::make_index_sequence<rows_per_tile>{});

float* aligned(std::vector<float>& v, std::size_t floats) {
    v.resize(floats + 16);
    return reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(v.data()) + 63) & ~std::uintptr_t{63});
}

// Rows i0 … i0+rows−1 of x at depths k0 … k0+kc−1, transposed into panels of 32 rows of x (16 for a
// last panel of 16 or fewer): panel p at xt + p·32·kc, (kc, width) row-major, zero past the rows.
struct Packed {
    const float* xt;
    Index rows, kc;
    Index panels() const { return (rows + 31) / 32; }
    Index width(Index p) const { return p == panels() - 1 && rows - p * 32 <= 16 ? 16 : 32; }
    const float* panel(Index p) const { return xt + p * 32 * kc; }
};

Packed pack(const Product& p, Index i0, Index rows, Index k0, Index kc) {
    thread_local std::vector<float> buffer;
    Packed out{nullptr, rows, kc};
    float* xt = aligned(buffer, static_cast<std::size_t>(out.panels() * 32 * kc));
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i stride = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(static_cast<int>(p.ldx)));
    for (Index q = 0; q < out.panels(); ++q) {
        const Index width = out.width(q);
        float* dst = xt + q * 32 * kc;
        for (Index half = 0; half < width; half += 16) { // 16 rows of x, gathered down each depth
            const Index first = q * 32 + half, filled = std::clamp<Index>(rows - first, 0, 16);
            const __mmask16 keep = static_cast<__mmask16>((1u << filled) - 1);
            const float* src = p.x + (i0 + first) * p.ldx + k0;
            for (Index k = 0; k < kc; ++k)
                _mm512_store_ps(dst + k * width + half, filled ? _mm512_mask_i32gather_ps(_mm512_setzero_ps(), keep, stride, src + k, 4) : _mm512_setzero_ps());
        }
    }
    out.xt = xt;
    return out;
}

// 16 values (fewer where `keep` says) of a stored row as float32.
__m512 widen16(const Product& p, const unsigned char* src, __mmask16 keep) {
    const __m256i h = _mm256_maskz_loadu_epi16(keep, src);
    return p.stored == Product::Stored::bf16 ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)) : _mm512_cvtph_ps(h);
}

// Weight rows j … j+count−1 at depths k0 … k0+kc−1 as float32, rows depth_step apart.
void widen(const Product& p, Index j, Index count, Index k0, Index kc, float* w) {
    if (p.stored == Product::Stored::blocks) return p.read(p.tensor, j, count, k0, kc, w, depth_step);
    const __mmask16 tail = static_cast<__mmask16>((1u << (kc % 16)) - 1);
    for (Index r = 0; r < count; ++r) {
        const unsigned char* src = p.row(p.tensor, j + r) + 2 * k0;
        float* dst = w + r * depth_step;
        for (Index k = 0; k < kc; k += 16) _mm512_store_ps(dst + k, widen16(p, src + 2 * k, kc - k >= 16 ? static_cast<__mmask16>(0xFFFF) : tail));
    }
}

// Columns j … j+count−1 (count ≤ 14, the block's last column c1 − 1) for the packed rows: the sums
// over this depth block into y, added to what y holds when `add`.
void columns(const Product& p, const Packed& a, Index i0, Index k0, Index j, Index count, Index c1, Index y_col, bool add) {
    thread_local std::vector<float> wide, sums;
    Ahead ahead(p, j + count, std::min<Index>(rows_per_tile, c1 - j - count), k0, a.kc, a.panels() * a.kc);
    float* w = aligned(wide, static_cast<std::size_t>(rows_per_tile * depth_step));
    float* t = aligned(sums, static_cast<std::size_t>(a.panels() * rows_per_tile * 32));
    for (Index d = 0; d < a.kc; d += depth_step) {
        const Index kc = std::min(depth_step, a.kc - d);
        widen(p, j, count, k0 + d, kc, w);
        for (Index q = 0; q < a.panels(); ++q)
            (a.width(q) == 32 ? tiles32 : tiles16)[count](w, depth_step, a.panel(q) + d * a.width(q), kc, t + q * rows_per_tile * 32, d > 0, ahead);
    }
    const __mmask16 keep = static_cast<__mmask16>((1u << count) - 1);
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    for (Index q = 0; q < a.panels(); ++q) {
        const Index width = a.width(q), filled = std::min(width, a.rows - q * 32);
        const float* s = t + q * rows_per_tile * 32; // (count, width): row r of y is column r
        const __m512i down = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(static_cast<int>(width)));
        for (Index r = 0; r < filled; ++r) {
            float* out = p.y + (i0 + q * 32 + r) * p.ldy + y_col;
            __m512 v = _mm512_mask_i32gather_ps(_mm512_setzero_ps(), keep, down, s + r, 4);
            if (add) v = _mm512_add_ps(_mm512_maskz_loadu_ps(keep, out), v);
            _mm512_mask_storeu_ps(out, keep, v);
        }
    }
}

} // namespace

void product_columns(const Product& p, Index c0, Index c1) {
    for (Index i0 = 0; i0 < p.m; i0 += row_block) {
        const Index rows = std::min(row_block, p.m - i0);
        for (Index k0 = 0; k0 < p.k; k0 += depth_block) {
            const Packed a = pack(p, i0, rows, k0, std::min(depth_block, p.k - k0));
            for (Index j = c0; j < c1; j += rows_per_tile)
                columns(p, a, i0, k0, j, std::min<Index>(rows_per_tile, c1 - j), c1, j - c0, p.accumulate || k0 > 0);
        }
    }
}

} // namespace core::model::weight_rows
