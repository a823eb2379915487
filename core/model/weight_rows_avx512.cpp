// core/model/weight_rows_avx512.cpp — core/model/weight_rows.h's kernel (built with -march=x86-64-v4
// -mavx512bf16; the bf16 one runs only where the CPU has AVX512-BF16).
//
// For a block of output columns j … j+13 and of x's rows i … i+31: the sums s[r][i] of
// w[j+r][k] · x[i][k] over k, as 28 zmm accumulators (14 rows × 2 vectors of 16 rows of x). Per k,
// two loads of x's packed column and 14 broadcasts of a widened weight, 28 multiply-adds. In bf16
// a "word" is a pair of depths (2k, 2k+1) rounded to bf16, and vdpbf16ps adds both products.
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

// Words of 32 bits: a float32 value, or in bf16 a pair of depths. Depths per word:
template <bool Bf16>
constexpr Index per_word = Bf16 ? 2 : 1;

constexpr int rows_per_tile = 14;  // weight rows broadcast per tile
constexpr Index depth_step = 512;  // words per widened block: 14 × 512 words stay in L1
constexpr Index depth_block = 2048; // words per packed block of x
constexpr Index row_block = 128;   // rows of x packed at once: 128 × 2048 words stay in L2

// The next block of weight rows, asked into L2 a line at a time while this block's tiles run. Without
// it each row waited on memory as it was widened: 19 % of a Llama-1B-sized forward at t = 128 went to
// widening and packing, 13 % with it.
struct Ahead {
    std::array<const char*, rows_per_tile> rows{};
    Index count, bytes, every, r = 0, at = 0, wait;
    // Rows j … j+count−1 (count may be ≤ 0: none) at depths k0 … k0+kc−1, over `steps` word steps.
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

// acc (R weight rows, 16·V rows of x) (+)= w (R, kc words; row stride ldw) · xt (kc, 16·V), kept in t.
template <bool Bf16, int R, int V>
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
            for (int v = 0; v < V; ++v)
                acc[r][v] = Bf16 ? _mm512_dpbf16_ps(acc[r][v], reinterpret_cast<__m512bh>(a), reinterpret_cast<__m512bh>(b[v]))
                                 : _mm512_fmadd_ps(a, b[v], acc[r][v]);
        }
    }
    for (int r = 0; r < R; ++r)
        for (int v = 0; v < V; ++v) _mm512_store_ps(t + (r * V + v) * 16, acc[r][v]);
}

using Tile = void (*)(const float*, Index, const float*, Index, float*, bool, Ahead&);
template <bool Bf16, int V, std::size_t... I>
constexpr std::array<Tile, rows_per_tile + 1> tiles_of(std::index_sequence<I...>) {
    return {nullptr, &tile<Bf16, static_cast<int>(I) + 1, V>...};
}
// tiles[Bf16][V − 1][R]: R weight rows against 16·V rows of x.
constexpr std::array<std::array<std::array<Tile, rows_per_tile + 1>, 2>, 2> tiles = {{
    {tiles_of<false, 1>(std::make_index_sequence<rows_per_tile>{}), tiles_of<false, 2>(std::make_index_sequence<rows_per_tile>{})},
    {tiles_of<true, 1>(std::make_index_sequence<rows_per_tile>{}), tiles_of<true, 2>(std::make_index_sequence<rows_per_tile>{})},
}};

float* aligned(std::vector<float>& v, std::size_t floats) {
    v.resize(floats + 16);
    return reinterpret_cast<float*>((reinterpret_cast<std::uintptr_t>(v.data()) + 63) & ~std::uintptr_t{63});
}

// 16 values rounded to bf16 (nearest even, as vcvtneps2bf16), each in the low half of a 32-bit lane.
__m512i bf16_lanes(__m512 v) { return _mm512_cvtepu16_epi32(reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v))); }

// Rows i0 … i0+rows−1 of x at depths k0 … k0+kc−1, transposed into panels of 32 rows of x (16 for a
// last panel of 16 or fewer): panel p at xt + p·32·words, (words, width) row-major, zero past the
// rows and (in bf16) past depth kc.
struct Packed {
    const float* xt;
    Index rows, kc; // kc in words
    Index panels() const { return (rows + 31) / 32; }
    Index width(Index p) const { return p == panels() - 1 && rows - p * 32 <= 16 ? 16 : 32; }
    const float* panel(Index p) const { return xt + p * 32 * kc; }
};

// Word k of 16 rows of x (src their depth k0, `stride` apart): a value, or in bf16 depths 2k, 2k+1.
template <bool Bf16>
__m512 packed_word(const float* src, Index k, Index kc, __m512i stride, __mmask16 keep) {
    const auto at = [&](Index d) { return _mm512_mask_i32gather_ps(_mm512_setzero_ps(), keep, stride, src + d, 4); };
    if constexpr (!Bf16) return at(k);
    const __m512i odd = 2 * k + 1 < kc ? bf16_lanes(at(2 * k + 1)) : _mm512_setzero_si512();
    return _mm512_castsi512_ps(_mm512_or_si512(bf16_lanes(at(2 * k)), _mm512_slli_epi32(odd, 16)));
}

template <bool Bf16>
Packed pack(const Product& p, Index i0, Index rows, Index k0, Index kc) {
    thread_local std::vector<float> buffer;
    Packed out{nullptr, rows, (kc + per_word<Bf16> - 1) / per_word<Bf16>};
    float* xt = aligned(buffer, static_cast<std::size_t>(out.panels() * 32 * out.kc));
    const __m512i lanes = _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
    const __m512i stride = _mm512_mullo_epi32(lanes, _mm512_set1_epi32(static_cast<int>(p.ldx)));
    for (Index q = 0; q < out.panels(); ++q) {
        const Index width = out.width(q);
        float* dst = xt + q * 32 * out.kc;
        for (Index half = 0; half < width; half += 16) { // 16 rows of x, gathered down each depth
            const Index first = q * 32 + half, filled = std::clamp<Index>(rows - first, 0, 16);
            const __mmask16 keep = static_cast<__mmask16>((1u << filled) - 1);
            const float* src = p.x + (i0 + first) * p.ldx + k0;
            for (Index k = 0; k < out.kc; ++k)
                _mm512_store_ps(dst + k * width + half, filled ? packed_word<Bf16>(src, k, kc, stride, keep) : _mm512_setzero_ps());
        }
    }
    out.xt = xt;
    return out;
}

// 16 values (fewer where `keep` says) of a stored F32, F16 or BF16 row as float32.
__m512 widen16(const Product& p, const unsigned char* src, __mmask16 keep) {
    if (p.stored == Product::Stored::f32) return _mm512_maskz_loadu_ps(keep, src);
    const __m256i h = _mm256_maskz_loadu_epi16(keep, src);
    return p.stored == Product::Stored::bf16 ? _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16)) : _mm512_cvtph_ps(h);
}

__mmask16 first(Index n) { return n >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << std::max<Index>(n, 0)) - 1); }

// Weight rows j … j+count−1 at depths k0 … k0+kc−1 as words, rows depth_step words apart: float32,
// or bf16 pairs (BF16 as stored, the others rounded; zero past kc).
template <bool Bf16>
void widen(const Product& p, Index j, Index count, Index k0, Index kc, float* w) {
    const Index bytes = p.stored == Product::Stored::f32 ? 4 : 2;
    for (Index r = 0; r < count; ++r) {
        const unsigned char* src = p.row(p.tensor, j + r) + bytes * k0;
        float* dst = w + r * depth_step;
        if constexpr (!Bf16) {
            for (Index k = 0; k < kc; k += 16) _mm512_store_ps(dst + k, widen16(p, src + bytes * k, first(kc - k)));
        } else if (p.stored == Product::Stored::bf16) {
            for (Index k = 0; k < kc; k += 32)
                _mm512_store_si512(dst + k / 2, _mm512_maskz_loadu_epi16(kc - k >= 32 ? ~__mmask32{0} : (__mmask32{1} << (kc - k)) - 1, src + 2 * k));
        } else {
            for (Index k = 0; k < kc; k += 32) {
                const __m512 low = widen16(p, src + bytes * k, first(kc - k)), high = widen16(p, src + bytes * (k + 16), first(kc - k - 16));
                _mm512_store_si512(dst + k / 2, reinterpret_cast<__m512i>(_mm512_cvtne2ps_pbh(high, low)));
            }
        }
    }
}

// Columns j … j+count−1 (count ≤ 14, the block's last column c1 − 1) for the packed rows (depths
// from k0): the sums over this depth block into y, added to what y holds when `add`.
template <bool Bf16>
void columns(const Product& p, const Packed& a, Index i0, Index k0, Index j, Index count, Index c1, Index y_col, bool add) {
    thread_local std::vector<float> wide, sums;
    Ahead ahead(p, j + count, std::min<Index>(rows_per_tile, c1 - j - count), k0, a.kc * per_word<Bf16>, a.panels() * a.kc);
    float* w = aligned(wide, static_cast<std::size_t>(rows_per_tile * depth_step));
    float* t = aligned(sums, static_cast<std::size_t>(a.panels() * rows_per_tile * 32));
    for (Index d = 0; d < a.kc; d += depth_step) {
        const Index kc = std::min(depth_step, a.kc - d);
        widen<Bf16>(p, j, count, k0 + d * per_word<Bf16>, std::min(kc * per_word<Bf16>, p.k - k0 - d * per_word<Bf16>), w);
        for (Index q = 0; q < a.panels(); ++q)
            tiles[Bf16][a.width(q) / 16 - 1][count](w, depth_step, a.panel(q) + d * a.width(q), kc, t + q * rows_per_tile * 32, d > 0, ahead);
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

template <bool Bf16>
void columns_of(const Product& p, Index c0, Index c1) {
    const Index block = depth_block * per_word<Bf16>;
    for (Index i0 = 0; i0 < p.m; i0 += row_block) {
        const Index rows = std::min(row_block, p.m - i0);
        for (Index k0 = 0; k0 < p.k; k0 += block) {
            const Packed a = pack<Bf16>(p, i0, rows, k0, std::min(block, p.k - k0));
            for (Index j = c0; j < c1; j += rows_per_tile)
                columns<Bf16>(p, a, i0, k0, j, std::min<Index>(rows_per_tile, c1 - j), c1, j - c0, p.accumulate || k0 > 0);
        }
    }
}

} // namespace

void product_columns(const Product& p, Index c0, Index c1) { p.bf16 ? columns_of<true>(p, c0, c1) : columns_of<false>(p, c0, c1); }

} // namespace core::model::weight_rows
