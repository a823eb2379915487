// core/model/fast_product_avx512.cpp — the Q8_0 × q8 micro-kernel on AVX512-VNNI, and the bf16
// one on AVX512-BF16.
//
// vpdpbusd multiplies unsigned by signed bytes, four to a 32-bit lane. The weights go in as unsigned
// (Q8_0's value + 128, Q4_0's nibble, which is its value + 8; packed once per group) and the
// activations as signed, broadcast four at a time, so each lane is one output column:
// Σ (w + o) · x = Σ w · x + o · Σ x, and the accumulator starts at the row's −o · Σ x for the block
// (QuantizedRows::bias), which leaves the exact Σ w · x.
#include "core/model/fast_product_avx512.h"

#include <immintrin.h>

// GCC 12 takes the undefined pass-through register of _mm512_cvtepi32_ps and _mm512_cvtepi64_epi32
// for an uninitialised variable.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <algorithm>
#include <cstring>

namespace core::model::fast {

namespace {

using ops::Index;

__m512i four_bytes(const std::int8_t* p) {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return _mm512_set1_epi32(v);
}

// MR rows × 16 columns: the block's 8 weight vectors loaded once and used for every row.
template <int MR>
void rows_of_group(const QuantizedRows& x, Index row0, const unsigned char* group, Index blocks, float* y, Index ldy, __mmask16 keep,
                   bool accumulate) {
    const Index width = x.blocks * 32;
    __m512 acc[MR];
    for (int i = 0; i < MR; ++i) acc[i] = _mm512_setzero_ps();
    for (Index b = 0; b < blocks; ++b) {
        const unsigned char* block = group + b * packed_block_bytes;
        __m512i w[8];
        for (int r = 0; r < 8; ++r) w[r] = _mm512_load_si512(block + 64 * r);
        const __m512 dw = _mm512_load_ps(block + 512);
        for (int i = 0; i < MR; ++i) {
            const Index row = row0 + i;
            const std::int8_t* q = x.q.data() + row * width + b * 32;
            __m512i s = _mm512_set1_epi32(x.bias[static_cast<std::size_t>(row * x.blocks + b)]);
            for (int r = 0; r < 8; ++r) s = _mm512_dpbusd_epi32(s, w[r], four_bytes(q + 4 * r));
            const __m512 scale = _mm512_mul_ps(dw, _mm512_set1_ps(x.d[static_cast<std::size_t>(row * x.blocks + b)]));
            acc[i] = _mm512_fmadd_ps(_mm512_cvtepi32_ps(s), scale, acc[i]);
        }
    }
    for (int i = 0; i < MR; ++i) {
        float* out = y + static_cast<Index>(i) * ldy;
        const __m512 v = accumulate ? _mm512_add_ps(_mm512_maskz_loadu_ps(keep, out), acc[i]) : acc[i];
        _mm512_mask_storeu_ps(out, keep, v);
    }
}

} // namespace

void vnni_group(const QuantizedRows& x, Index row0, Index rows, const unsigned char* group, Index blocks, float* y, Index ldy, int cols,
                bool accumulate) {
    const __mmask16 keep = static_cast<__mmask16>((1u << cols) - 1u);
    constexpr int mr = 8;
    Index i = 0;
    for (; i + mr <= rows; i += mr) rows_of_group<mr>(x, row0 + i, group, blocks, y + i * ldy, ldy, keep, accumulate);
    for (; i < rows; ++i) rows_of_group<1>(x, row0 + i, group, blocks, y + i * ldy, ldy, keep, accumulate);
}

} // namespace core::model::fast

namespace core::model::fast {

// Word r (bytes 4r … 4r+3) of each column's block is gathered into one vector, lane c from column c.
void pack_group(const Weights::Tensor& W, Index c0, int cols, Index blocks, unsigned char* group) {
    const bool four_bits = W.type() == WeightType::q4_0;
    const Index block_bytes = four_bits ? 18 : 34; // half d, then 32 int8 or 16 bytes of nibbles
    const unsigned char* base = W.stored_row(c0);
    alignas(64) std::int64_t offset[group_columns];
    for (int c = 0; c < group_columns; ++c) offset[c] = c < cols ? W.stored_row(c0 + c) - base : 0;
    const __m512i low = _mm512_load_si512(offset), high = _mm512_load_si512(offset + 8);
    // One 32-bit gather a word where the 16 rows lie within ±2 GB of the first (always but for a
    // row order that scatters a huge tensor's rows), else two 64-bit ones.
    const bool near = std::all_of(offset, offset + group_columns, [](std::int64_t o) { return o == static_cast<std::int32_t>(o); });
    const __m512i index = _mm512_inserti64x4(_mm512_castsi256_si512(_mm512_cvtepi64_epi32(low)), _mm512_cvtepi64_epi32(high), 1);
    const __mmask16 keep = static_cast<__mmask16>((1u << cols) - 1u);
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
    for (Index b = 0; b < blocks; ++b) {
        unsigned char* block = group + b * packed_block_bytes;
        const unsigned char* at = base + b * block_bytes;
        auto words = [&](Index byte) {
            if (near) return _mm512_i32gather_epi32(index, at + byte, 1);
            const __m256i a = _mm512_i64gather_epi32(low, at + byte, 1), c = _mm512_i64gather_epi32(high, at + byte, 1);
            return _mm512_inserti64x4(_mm512_castsi256_si512(a), c, 1);
        };
        if (four_bits) { // byte e holds depth e (low nibble) and e + 16 (high); a missing column: 8, weight 0
            const __m512i nibble = _mm512_set1_epi8(0x0f), eights = _mm512_set1_epi8(8);
            for (int r = 0; r < 4; ++r) {
                const __m512i bytes = words(2 + 4 * r);
                _mm512_store_si512(block + 64 * r, _mm512_mask_mov_epi32(eights, keep, _mm512_and_si512(bytes, nibble)));
                _mm512_store_si512(block + 64 * (r + 4), _mm512_mask_mov_epi32(eights, keep, _mm512_and_si512(_mm512_srli_epi16(bytes, 4), nibble)));
            }
        } else {
            for (int r = 0; r < 8; ++r) // a missing column: byte 0x80, weight 0
                _mm512_store_si512(block + 64 * r, _mm512_mask_xor_epi32(flip, keep, words(2 + 4 * r), flip));
        }
        const __m256i halves = _mm512_cvtepi32_epi16(words(0));
        _mm512_store_ps(block + 512, _mm512_maskz_mov_ps(keep, _mm512_cvtph_ps(halves)));
    }
}

// As ggml's quantize_row_q8_0 (its vector path: round half to even), with d kept in float32.
void quantize_rows(const float* x, Index ldx, Index m, Index k, int offset, QuantizedRows& out) {
    out.resize(m, k);
    for (Index i = 0; i < m; ++i)
        for (Index b = 0; b < out.blocks; ++b) {
            const float* v = x + i * ldx + b * 32;
            const __m512 v0 = _mm512_loadu_ps(v), v1 = _mm512_loadu_ps(v + 16);
            const float amax = _mm512_reduce_max_ps(_mm512_max_ps(_mm512_abs_ps(v0), _mm512_abs_ps(v1)));
            const __m512 inverse = _mm512_set1_ps(amax > 0.0f ? 127.0f / amax : 0.0f);
            const __m512i q0 = _mm512_cvtps_epi32(_mm512_mul_ps(v0, inverse)), q1 = _mm512_cvtps_epi32(_mm512_mul_ps(v1, inverse));
            std::int8_t* q = out.q.data() + i * k + b * 32;
            _mm_storeu_si128(reinterpret_cast<__m128i*>(q), _mm512_cvtsepi32_epi8(q0));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(q + 16), _mm512_cvtsepi32_epi8(q1));
            const auto at = static_cast<std::size_t>(i * out.blocks + b);
            out.d[at] = amax / 127.0f;
            out.bias[at] = -offset * _mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1));
        }
}

} // namespace core::model::fast

namespace core::model::fast {

//-----------------------------------------------------------------------------
// [SECTION] bf16 products (AVX512-BF16)
//-----------------------------------------------------------------------------

namespace {

// 16 floats rounded to bf16 (nearest even, as vcvtneps2bf16), each in the low half of a 32-bit lane.
__m512i bf16_lanes(__m512 v) { return _mm512_cvtepu16_epi32(reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(v))); }

// MR rows × 16 columns; two accumulators a row (even and odd pairs) so that 2·MR sums run at once.
template <int MR>
void bf16_rows_of_group(const Bf16Rows& x, Index row0, const unsigned char* group, Index pairs, float* y, Index ldy, __mmask16 keep,
                        bool accumulate) {
    __m512 even[MR], odd[MR];
    for (int i = 0; i < MR; ++i) even[i] = odd[i] = _mm512_setzero_ps();
    auto step = [&](__m512* acc, Index p) {
        const __m512bh w = reinterpret_cast<__m512bh>(_mm512_load_si512(group + 64 * p));
        for (int i = 0; i < MR; ++i) {
            std::int32_t two;
            std::memcpy(&two, x.values.data() + (row0 + i) * x.width + 2 * p, 4);
            acc[i] = _mm512_dpbf16_ps(acc[i], w, reinterpret_cast<__m512bh>(_mm512_set1_epi32(two)));
        }
    };
    Index p = 0;
    for (; p + 2 <= pairs; p += 2) {
        step(even, p);
        step(odd, p + 1);
    }
    if (p < pairs) step(even, p);
    for (int i = 0; i < MR; ++i) {
        float* out = y + static_cast<Index>(i) * ldy;
        const __m512 sum = _mm512_add_ps(even[i], odd[i]);
        _mm512_mask_storeu_ps(out, keep, accumulate ? _mm512_add_ps(_mm512_maskz_loadu_ps(keep, out), sum) : sum);
    }
}

} // namespace

void bf16_rows(const float* x, Index ldx, Index m, Index k, Bf16Rows& out) {
    out.m = m;
    out.width = (k + 31) / 32 * 32; // whole AMX tiles of 32 depths
    out.values.assign(static_cast<std::size_t>(m * out.width), 0);
    for (Index i = 0; i < m; ++i) {
        const float* row = x + i * ldx;
        std::uint16_t* to = out.values.data() + i * out.width;
        for (Index d = 0; d < k; d += 16) {
            const __mmask16 keep = static_cast<__mmask16>(k - d >= 16 ? 0xffffu : (1u << (k - d)) - 1u);
            const __m256i v = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(keep, row + d)));
            _mm256_mask_storeu_epi16(to + d, keep, v);
        }
    }
}

void pack_bf16_group(const float* panel, Index column_stride, Index depth_stride, int cols, Index k, unsigned char* group) {
    const __mmask16 keep = static_cast<__mmask16>((1u << cols) - 1u);
    const Index used = (k + 1) / 2, pairs = (k + 31) / 32 * 16;
    for (Index p = used; p < pairs; ++p) _mm512_store_si512(group + 64 * p, _mm512_setzero_si512());
    if (column_stride == 1) { // (k, n): a pair's two depths are 16 columns of two rows
        for (Index p = 0; p < used; ++p) {
            const __m512 even = _mm512_maskz_loadu_ps(keep, panel + 2 * p * depth_stride);
            const __m512 odd = 2 * p + 1 < k ? _mm512_maskz_loadu_ps(keep, panel + (2 * p + 1) * depth_stride) : _mm512_setzero_ps();
            _mm512_store_si512(group + 64 * p, _mm512_or_si512(bf16_lanes(even), _mm512_slli_epi32(bf16_lanes(odd), 16)));
        }
        return;
    }
    // (n, k): each column's depths rounded to bf16 in a row of `words`, whose 32-bit word p is its
    // pair p; a pair's 16 words then gathered across the rows.
    thread_local std::vector<std::uint32_t> words; // (16, pairs)
    words.assign(static_cast<std::size_t>(16 * pairs), 0u);
    for (int c = 0; c < cols; ++c) {
        auto* row = reinterpret_cast<std::uint16_t*>(words.data() + c * pairs);
        for (Index d = 0; d < k; d += 16) {
            const __mmask16 part = static_cast<__mmask16>(k - d >= 16 ? 0xffffu : (1u << (k - d)) - 1u);
            const __m256i v = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(_mm512_maskz_loadu_ps(part, panel + c * column_stride + d)));
            _mm256_mask_storeu_epi16(row + d, part, v);
        }
    }
    const __m512i index = _mm512_mullo_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
                                             _mm512_set1_epi32(static_cast<int>(pairs)));
    for (Index p = 0; p < used; ++p) _mm512_store_si512(group + 64 * p, _mm512_i32gather_epi32(index, words.data() + p, 4));
}

namespace {

// AMX's tile configuration (palette 1): tiles 0 and 1 the sums of two blocks of 16 rows, 2 and 3
// their activations, 4 the weights: each 16 rows of 64 bytes.
struct alignas(64) TileConfig {
    std::uint8_t palette = 1, start_row = 0, reserved[14] = {};
    std::uint16_t colsb[16] = {64, 64, 64, 64, 64};
    std::uint8_t rows[16] = {16, 16, 16, 16, 16};
};

// y (16, cols) = or += a tile of sums (16, 16).
void store_sums(const float* sums, float* y, Index ldy, __mmask16 keep, bool accumulate) {
    for (int i = 0; i < 16; ++i) {
        float* out = y + i * ldy;
        const __m512 s = _mm512_load_ps(sums + 16 * i);
        _mm512_mask_storeu_ps(out, keep, accumulate ? _mm512_add_ps(_mm512_maskz_loadu_ps(keep, out), s) : s);
    }
}

// Rows row0 … row0+31 against the group: per 32 depths the weights' tile loaded once for both blocks.
void amx_32_rows(const Bf16Rows& x, Index row0, const unsigned char* group, float* y, Index ldy, __mmask16 keep, bool accumulate) {
    const auto stride = static_cast<long>(x.width * 2);
    const std::uint16_t* top = x.values.data() + row0 * x.width;
    _tile_zero(0);
    _tile_zero(1);
    for (Index d = 0; d < x.width; d += 32) {
        _tile_loadd(4, group + 64 * (d / 2), 64);
        _tile_loadd(2, top + d, stride);
        _tile_loadd(3, top + 16 * x.width + d, stride);
        _tile_dpbf16ps(0, 2, 4);
        _tile_dpbf16ps(1, 3, 4);
    }
    alignas(64) float sums[2][256];
    _tile_stored(0, sums[0], 64);
    _tile_stored(1, sums[1], 64);
    store_sums(sums[0], y, ldy, keep, accumulate);
    store_sums(sums[1], y + 16 * ldy, ldy, keep, accumulate);
}

} // namespace

void bf16_group(const Bf16Rows& x, Index row0, Index rows, const unsigned char* group, Index pairs, float* y, Index ldy, int cols, bool accumulate,
                bool amx) {
    const __mmask16 keep = static_cast<__mmask16>((1u << cols) - 1u);
    Index i = 0;
    if (amx && rows >= 32) {
        static const TileConfig config;
        _tile_loadconfig(&config);
        for (; i + 32 <= rows; i += 32) amx_32_rows(x, row0 + i, group, y + i * ldy, ldy, keep, accumulate);
        _tile_release();
    }
    constexpr int mr = 8;
    for (; i + mr <= rows; i += mr) bf16_rows_of_group<mr>(x, row0 + i, group, pairs, y + i * ldy, ldy, keep, accumulate);
    for (; i < rows; ++i) bf16_rows_of_group<1>(x, row0 + i, group, pairs, y + i * ldy, ldy, keep, accumulate);
}

} // namespace core::model::fast
