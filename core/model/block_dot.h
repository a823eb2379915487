// core/model/block_dot.h — x · Wᵀ for ggml-block weights stored (out, in), each block dequantized
// into L1 just before its multiply-adds, for any number of rows of x: one row (a decoding step), a
// few (an expert that a few tokens chose) or a prompt's. Only core/model/ops_impl.h includes it
// (compiled once per level, so everything here has internal linkage).
//
// The order of the sums is the dot product's, not a broadcast's: each output keeps `lanes` partial
// sums (16 at x86-64-v4, 8 at x86-64-v3, 4 generic), lane l taking the depths d ≡ l (mod lanes) in
// order with one fused multiply-add each (a multiply then an add where the build has no FMA); the
// lanes are then added in halves (l + lanes/2 onto l, and so on down to one), and that sum is added
// to y where accumulating. Blocking only stores a lane's float32 value and reads it back, which is
// exact, so an output's bits depend on its row of x, its weight row and k alone: not on how many
// rows of x are computed beside it, on the columns a thread takes, on the threads or on addresses.
// One row of x then runs as a dot product per output over weights read in their stored order, as
// llama.cpp's does, instead of a broadcast kernel that would fill one lane in 16.
//
// Tiles: R weight rows × M rows of x in registers, R·M vectors of lanes; per step of `lanes`
// depths, R loads of dequantized weights (in L1), M of x and R·M multiply-adds.
#pragma once

#include "core/model/format/blocks.h"
#include "core/model/ops.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

namespace core::model::ops::block_dot {
namespace {

// NB weight rows are dequantized at once (a block), KC depths of them. At x86-64-v4 a block is one
// tile's R rows, in L1, and each tile streams its M rows of x from L2: with 32 registers a tile
// has 24 sums to 10 loads. With 16 registers a tile has 12 sums to 7 loads, and streaming x that
// way held x86-64-v3 to 70 % of its multiply-adds' rate; there a block is 48 rows in L2 and each M
// rows of x stay in L1 while the block's tiles go past them.
#if defined(__AVX512F__)
constexpr int lanes = 16; // a zmm register of floats
constexpr int R = 4, M = 6; // 24 sums + 4 weights + 1 of x of the 32 zmm registers
constexpr Index KC = 512, NB = R;
#elif defined(__AVX__)
constexpr int lanes = 8; // a ymm register
constexpr int R = 3, M = 4; // 12 sums + 3 + 1 of the 16 ymm registers
constexpr Index KC = 256, NB = 16 * R;
#else
constexpr int lanes = 4; // an xmm register
constexpr int R = 3, M = 4;
constexpr Index KC = 256, NB = 16 * R;
#endif
constexpr Index w_stride = KC + 16; // the block's rows' stride: not a multiple of 4 KiB apart, which stalled loads behind stores
constexpr Index row_block = 128; // rows of x per pass over the weights: 128 · KC floats of x in L2

typedef float Vec __attribute__((vector_size(lanes * sizeof(float)), aligned(lanes * sizeof(float))));
typedef float VecU __attribute__((vector_size(lanes * sizeof(float)), aligned(alignof(float))));

// c + a · b, one rounding where the build has FMA.
inline Vec madd(Vec a, Vec b, Vec c) {
#if defined(__AVX512F__)
    return reinterpret_cast<Vec>(_mm512_fmadd_ps(reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b), reinterpret_cast<__m512>(c)));
#elif defined(__FMA__)
    return reinterpret_cast<Vec>(_mm256_fmadd_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b), reinterpret_cast<__m256>(c)));
#else
    const Vec product = a * b; // a statement of its own: no contraction
    return c + product;
#endif
}

// sums (Mr rows of x, Rr weight rows, lanes) (+)= w (Rr, kc; row stride ldw, aligned) · x (Mr, kc; row stride ldx).
template <int Rr, int Mr>
void tile(const float* __restrict w, Index ldw, const float* __restrict x, Index ldx, Index kc, float* __restrict sums, bool load) {
    Vec acc[Mr][Rr];
    for (int i = 0; i < Mr; ++i)
        for (int r = 0; r < Rr; ++r) acc[i][r] = load ? *reinterpret_cast<const Vec*>(sums + (i * R + r) * lanes) : Vec{};
    for (Index d = 0; d < kc; d += lanes) {
        Vec wv[Rr];
        for (int r = 0; r < Rr; ++r) wv[r] = *reinterpret_cast<const Vec*>(w + r * ldw + d);
        for (int i = 0; i < Mr; ++i) {
            const Vec xv = *reinterpret_cast<const VecU*>(x + i * ldx + d);
            for (int r = 0; r < Rr; ++r) acc[i][r] = madd(wv[r], xv, acc[i][r]);
        }
    }
    for (int i = 0; i < Mr; ++i)
        for (int r = 0; r < Rr; ++r) *reinterpret_cast<Vec*>(sums + (i * R + r) * lanes) = acc[i][r];
}

using Tile = void (*)(const float*, Index, const float*, Index, Index, float*, bool);
template <int Rr, std::size_t... I>
constexpr std::array<Tile, M> tiles_of(std::index_sequence<I...>) {
    return {&tile<Rr, static_cast<int>(I) + 1>...};
}
template <std::size_t... I>
constexpr std::array<std::array<Tile, M>, R> all_tiles(std::index_sequence<I...>) {
    return {tiles_of<static_cast<int>(I) + 1>(std::make_index_sequence<M>{})...};
}
// tiles[Rr − 1][Mr − 1]
constexpr std::array<std::array<Tile, M>, R> tiles = all_tiles(std::make_index_sequence<R>{});

// [SECTION] Blocks dequantized in registers (BlockProduct::fused), for a few rows of x
//
// Each block's values as the dequantizers of core/model/format/blocks.cpp give them (q · d, one
// rounding, exact for both types), straight into the multiply-adds: no store to L1 and no call per
// row. The order of the sums is the tile's above.

inline Vec splat(float v) {
    Vec out;
    for (int l = 0; l < lanes; ++l) out[l] = v;
    return out;
}

inline float half_scale(const unsigned char* b) {
    const auto bits = static_cast<std::uint16_t>(b[0] | (b[1] << 8));
#if defined(__F16C__)
    return _cvtsh_ss(bits);
#else
    return half_to_float(bits);
#endif
}

typedef std::int8_t Bytes __attribute__((vector_size(lanes)));

// Q8_0: an f16 d, then 32 signed bytes q: value q · d.
struct Q8_0 {
    static constexpr Index bytes = 34;
    static float scale(const unsigned char* b) { return half_scale(b); }
    static Vec values(const unsigned char* b, int at, Vec d) {
        Bytes q;
        std::memcpy(&q, b + 2 + at, sizeof q);
        return __builtin_convertvector(q, Vec) * d;
    }
};

#if defined(__AVX__)
// MXFP4: an E8M0 e, then 16 bytes whose low nibbles are values 0–15 and high nibbles 16–31, each
// an E2M1 value doubled (ggml's kvalues_mxfp4) · 2^(e − 128).
struct Mxfp4 {
    static constexpr Index bytes = 17;
    static float scale(const unsigned char* b) {
        const std::uint32_t bits = b[0] < 2 ? 0x00200000u << b[0] : static_cast<std::uint32_t>(b[0] - 1) << 23;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    static Vec values(const unsigned char* b, int at, Vec d) {
        const __m128i table = _mm_setr_epi8(0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12);
        const __m128i q = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 1)), nibble = _mm_set1_epi8(0x0f);
        const __m128i half = at < 16 ? _mm_and_si128(q, nibble) : _mm_and_si128(_mm_srli_epi16(q, 4), nibble);
        const __m128i v = _mm_shuffle_epi8(table, half); // values at − at % 16 … + 15
#if defined(__AVX512F__)
        return reinterpret_cast<Vec>(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v))) * d;
#else
        const __m128i part = at % 16 ? _mm_srli_si128(v, 8) : v;
        return reinterpret_cast<Vec>(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(part))) * d;
#endif
    }
};
#endif

// As tile, the weights' Rr rows read from their blocks at `rows` (the block of depth 0 of this
// chunk) instead of a dequantized buffer.
template <class Block, int Rr, int Mr>
void fused_tile(const unsigned char* const* rows, const float* __restrict x, Index ldx, Index kc, float* __restrict sums, bool load) {
    Vec acc[Mr][Rr];
    for (int i = 0; i < Mr; ++i)
        for (int r = 0; r < Rr; ++r) acc[i][r] = load ? *reinterpret_cast<const Vec*>(sums + (i * R + r) * lanes) : Vec{};
    for (Index b = 0; b < kc / 32; ++b) {
        const unsigned char* block[Rr];
        Vec d[Rr];
        for (int r = 0; r < Rr; ++r) {
            block[r] = rows[r] + b * Block::bytes;
            d[r] = splat(Block::scale(block[r]));
        }
        for (int at = 0; at < 32; at += lanes) {
            Vec wv[Rr];
            for (int r = 0; r < Rr; ++r) wv[r] = Block::values(block[r], at, d[r]);
            for (int i = 0; i < Mr; ++i) {
                const Vec xv = *reinterpret_cast<const VecU*>(x + i * ldx + b * 32 + at);
                for (int r = 0; r < Rr; ++r) acc[i][r] = madd(wv[r], xv, acc[i][r]);
            }
        }
    }
    for (int i = 0; i < Mr; ++i)
        for (int r = 0; r < Rr; ++r) *reinterpret_cast<Vec*>(sums + (i * R + r) * lanes) = acc[i][r];
}

using FusedTile = void (*)(const unsigned char* const*, const float*, Index, Index, float*, bool);
template <class Block, int Rr, std::size_t... I>
constexpr std::array<FusedTile, M> fused_of(std::index_sequence<I...>) {
    return {&fused_tile<Block, Rr, static_cast<int>(I) + 1>...};
}
template <class Block, std::size_t... I>
constexpr std::array<std::array<FusedTile, M>, R> all_fused(std::index_sequence<I...>) {
    return {fused_of<Block, static_cast<int>(I) + 1>(std::make_index_sequence<M>{})...};
}
// fused_tiles<Block>[Rr − 1][Mr − 1]
template <class Block>
constexpr std::array<std::array<FusedTile, M>, R> fused_tiles = all_fused<Block>(std::make_index_sequence<R>{});

// Rows' depths k0 … k0+kc−1 (blocks at rows[r] + k0 / 32 · bytes) as float32 into w, rows w_stride
// apart: the values the fused tiles multiply, with no call per block.
template <class Block>
void dequantize(const unsigned char* const* rows, Index count, Index k0, Index kc, float* __restrict w) {
    for (Index r = 0; r < count; ++r)
        for (Index b = 0; b < kc / 32; ++b) {
            const unsigned char* block = rows[r] + (k0 / 32 + b) * Block::bytes;
            const Vec d = splat(Block::scale(block));
            for (int at = 0; at < 32; at += lanes) *reinterpret_cast<Vec*>(w + r * w_stride + b * 32 + at) = Block::values(block, at, d);
        }
}

using Dequantize = void (*)(const unsigned char* const*, Index, Index, Index, float*);

// What the build does itself for a block type: its fused tiles (fused_tiles<Block>[Rr − 1][Mr − 1])
// and its dequantizer.
struct OwnBlocks {
    const std::array<std::array<FusedTile, M>, R>* tiles;
    Dequantize dequantize;
};
template <class Block>
constexpr OwnBlocks own_blocks = {&fused_tiles<Block>, &dequantize<Block>};

// p's type's, or null where this build has none (p.read dequantizes, and no tile is fused).
const OwnBlocks* own_blocks_for(const BlockProduct& p) {
    switch (p.fused) {
    case BlockProduct::Fused::q8_0: return &own_blocks<Q8_0>;
#if defined(__AVX__)
    case BlockProduct::Fused::mxfp4: return &own_blocks<Mxfp4>;
#endif
    default: return nullptr;
    }
}

// [SECTION] The driver

// The lanes of one output added in halves (l + lanes/2 onto l, …), in registers.
float lane_sum(const float* s) {
#if !defined(__SSE2__)
    float v[lanes];
    std::copy(s, s + lanes, v);
    for (int half = lanes / 2; half > 0; half /= 2)
        for (int l = 0; l < half; ++l) v[l] += v[l + half];
    return v[0];
#else
    const Vec v = *reinterpret_cast<const Vec*>(s);
#if defined(__AVX512F__)
    const __m256 h8 = _mm256_add_ps(_mm512_castps512_ps256(reinterpret_cast<__m512>(v)), _mm512_extractf32x8_ps(reinterpret_cast<__m512>(v), 1));
#elif defined(__AVX__)
    const __m256 h8 = reinterpret_cast<__m256>(v);
#endif
#if defined(__AVX__)
    const __m128 h4 = _mm_add_ps(_mm256_castps256_ps128(h8), _mm256_extractf128_ps(h8, 1));
#else
    const __m128 h4 = reinterpret_cast<__m128>(v);
#endif
    const __m128 h2 = _mm_add_ps(h4, _mm_movehl_ps(h4, h4));
    return _mm_cvtss_f32(_mm_add_ss(h2, _mm_shuffle_ps(h2, h2, 1)));
#endif
}

#if defined(__AVX__)
// lane_sum of the 8 outputs whose lanes are at s[0 … 7], the same additions in the same order, a
// register of each step's results at a time: one output at a time, the sums of a prompt's tiles
// took a tenth of its products at x86-64-v3.
inline __m256 lane_sums8(const float* const* s) {
    __m256 h[8];
    for (int o = 0; o < 8; ++o) {
#if defined(__AVX512F__)
        const __m512 v = _mm512_load_ps(s[o]);
        h[o] = _mm256_add_ps(_mm512_castps512_ps256(v), _mm512_extractf32x8_ps(v, 1));
#else
        h[o] = _mm256_load_ps(s[o]);
#endif
    }
    __m256 q[4]; // l + 4 onto l: output 2i in the low half, 2i + 1 in the high
    for (int i = 0; i < 4; ++i)
        q[i] = _mm256_add_ps(_mm256_permute2f128_ps(h[2 * i], h[2 * i + 1], 0x20), _mm256_permute2f128_ps(h[2 * i], h[2 * i + 1], 0x31));
    __m256 d[2]; // l + 2 onto l: outputs 0, 2 | 1, 3 and 4, 6 | 5, 7
    for (int i = 0; i < 2; ++i) d[i] = _mm256_add_ps(_mm256_shuffle_ps(q[2 * i], q[2 * i + 1], 0x44), _mm256_shuffle_ps(q[2 * i], q[2 * i + 1], 0xee));
    const __m256 e = _mm256_add_ps(_mm256_shuffle_ps(d[0], d[1], 0x88), _mm256_shuffle_ps(d[0], d[1], 0xdd)); // 0, 2, 4, 6 | 1, 3, 5, 7
    return _mm256_permutevar8x32_ps(e, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}
#endif

float* aligned(std::vector<float>& buffer, Index count) {
    const std::size_t want = static_cast<std::size_t>(count) + 16;
    if (buffer.size() < want) buffer.resize(want);
    const auto address = reinterpret_cast<std::uintptr_t>(buffer.data());
    return buffer.data() + (64 - address % 64) % 64 / sizeof(float);
}

// Where tile (row tile t, weight row r of a block of `groups` tiles' rows) keeps its lanes: each
// tile's sums lie together, as tile() indexes them.
inline float* sums_at(float* sums, Index groups, Index t, Index r) { return sums + ((t * groups + r / R) * M * R + r % R) * lanes; }

// The block's count ≤ NB rows (bytes at `at`) at depths k0 … k0+kc−1 dequantized into w (by `own`'s
// dequantizer, else p.read), then every M rows of x past each R of them.
void block_chunk(const BlockProduct& p, const OwnBlocks* own, Index i0, Index rows, Index j, const unsigned char* const* at, Index count, Index k0,
                 Index kc, float* w, float* sums) {
    if (own) own->dequantize(at, count, k0, kc, w);
    else p.read(p.tensor, j, count, k0, kc, w, w_stride);
    const Index groups = (count + R - 1) / R;
    for (Index i = 0; i < rows; i += M) {
        const Index m = std::min<Index>(M, rows - i);
        for (Index g = 0; g < groups; ++g)
            tiles[std::min<Index>(R, count - g * R) - 1][m - 1](w + g * R * w_stride, w_stride, p.x + (i0 + i) * p.ldx + k0, p.ldx, kc,
                                                                 sums_at(sums, groups, i / M, g * R), k0 > 0);
    }
}

// Each output's lanes added (lane_sum) into y, or onto it where accumulating.
void into_y(const BlockProduct& p, Index i0, Index rows, Index count, Index y_col, float* sums) {
    const Index groups = (count + R - 1) / R;
    for (Index i = 0; i < rows; ++i) {
        float* y = p.y + (i0 + i) * p.ldy + y_col;
        Index r = 0;
#if defined(__AVX__)
        for (; r + 8 <= count; r += 8) {
            const float* s[8];
            for (int o = 0; o < 8; ++o) s[o] = sums_at(sums, groups, i / M, r + o) + i % M * R * lanes;
            const __m256 v = lane_sums8(s);
            _mm256_storeu_ps(y + r, p.accumulate ? _mm256_add_ps(_mm256_loadu_ps(y + r), v) : v);
        }
#endif
        for (; r < count; ++r) {
            const float s = lane_sum(sums_at(sums, groups, i / M, r) + i % M * R * lanes);
            y[r] = p.accumulate ? y[r] + s : s;
        }
    }
}

// Rows i0 … i0+rows−1 of x, weight rows j … j+count−1 (count ≤ NB; ≤ R where fused): every depth,
// then into y. Up to M rows of x with weights the build dequantizes itself take its fused tiles:
// the weights are read once either way.
//
// The next chunk's bytes of each row (or the next block's first) are asked into the cache while
// this one runs: R rows read a chunk at a time are R short runs that the CPU's own prefetcher did not
// follow, and a decoding step, bound by reading the weights, took 1.5× the time without.
void block(const BlockProduct& p, Index i0, Index rows, Index j, Index count, Index last, Index y_col, float* w, float* sums) {
    const OwnBlocks* own = own_blocks_for(p);
    const auto* fused = rows <= M && own ? own->tiles : nullptr;
    const unsigned char* at[2 * NB] = {}; // this block's rows, then the next block's
    const Index next = std::min<Index>(count, last - j - count);
    for (Index r = 0; r < count + next; ++r) at[r] = p.row(p.tensor, j + r);
    const Index chunk_bytes = KC / p.block_values * p.block_bytes;
    for (Index k0 = 0; k0 < p.k; k0 += KC) {
        const Index kc = std::min(KC, p.k - k0);
        const bool more = k0 + KC < p.k;
        for (Index r = more ? 0 : count; r < (more ? count : count + next); ++r)
            for (Index b = 0; b < chunk_bytes; b += 64) __builtin_prefetch(at[r] + (more ? k0 + KC : 0) / p.block_values * p.block_bytes + b);
        if (!fused) {
            block_chunk(p, own, i0, rows, j, at, count, k0, kc, w, sums);
            continue;
        }
        const unsigned char* chunk[R] = {};
        for (Index r = 0; r < count; ++r) chunk[r] = at[r] + k0 / 32 * p.block_bytes;
        (*fused)[count - 1][rows - 1](chunk, p.x + i0 * p.ldx + k0, p.ldx, kc, sums, k0 > 0);
    }
    into_y(p, i0, rows, count, y_col, sums);
}

// Columns c0 … c1−1 on the calling thread, y pointing at column c0.
void product_columns(const BlockProduct& p, Index c0, Index c1) {
    thread_local std::vector<float> weights, partial;
    float* w = aligned(weights, NB * w_stride);
    float* sums = aligned(partial, ((std::min(row_block, p.m) + M - 1) / M * M) * NB * lanes);
    for (Index i0 = 0; i0 < p.m; i0 += row_block) {
        const Index rows = std::min(row_block, p.m - i0), width = rows <= M && own_blocks_for(p) ? R : NB;
        for (Index j = c0; j < c1; j += width) block(p, i0, rows, j, std::min<Index>(width, c1 - j), c1, j - c0, w, sums);
    }
}

} // namespace
} // namespace core::model::ops::block_dot
