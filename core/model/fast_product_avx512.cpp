// core/model/fast_product_avx512.cpp — the Q8_0 × q8 micro-kernel on AVX512-VNNI.
//
// vpdpbusd multiplies unsigned by signed bytes, four to a 32-bit lane. The weights go in as unsigned
// (value + 128, packed once per group) and the activations as signed, broadcast four at a time, so
// each lane is one output column: Σ (w + 128) · x = Σ w · x + 128 · Σ x, and the accumulator starts
// at the row's −128 · Σ x for the block (QuantizedRows::bias), which leaves the exact Σ w · x.
#include "core/model/fast_product_avx512.h"

#include <immintrin.h>

// GCC 12 takes _mm512_cvtepi32_ps's undefined pass-through register for an uninitialised variable.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

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
    const unsigned char* base = W.stored_row(c0);
    alignas(64) std::int64_t offset[group_columns];
    for (int c = 0; c < group_columns; ++c) offset[c] = c < cols ? W.stored_row(c0 + c) - base : 0;
    const __m512i low = _mm512_load_si512(offset), high = _mm512_load_si512(offset + 8);
    const __mmask16 keep = static_cast<__mmask16>((1u << cols) - 1u);
    const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
    for (Index b = 0; b < blocks; ++b) {
        unsigned char* block = group + b * packed_block_bytes;
        const unsigned char* at = base + b * 34; // a block: half d, then 32 int8
        auto words = [&](Index byte) {
            const __m256i a = _mm512_i64gather_epi32(low, at + byte, 1), c = _mm512_i64gather_epi32(high, at + byte, 1);
            return _mm512_inserti64x4(_mm512_castsi256_si512(a), c, 1);
        };
        for (int r = 0; r < 8; ++r) // a missing column: byte 0x80, weight 0
            _mm512_store_si512(block + 64 * r, _mm512_mask_xor_epi32(flip, keep, words(2 + 4 * r), flip));
        const __m256i halves = _mm512_cvtepi32_epi16(words(0));
        _mm512_store_ps(block + 512, _mm512_maskz_mov_ps(keep, _mm512_cvtph_ps(halves)));
    }
}

// As ggml's quantize_row_q8_0 (its vector path: round half to even), with d kept in float32.
void quantize_rows(const float* x, Index ldx, Index m, Index k, QuantizedRows& out) {
    out.m = m;
    out.blocks = k / 32;
    out.q.resize(static_cast<std::size_t>(m * k));
    out.d.resize(static_cast<std::size_t>(m * out.blocks));
    out.bias.resize(out.d.size());
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
            out.bias[at] = -128 * _mm512_reduce_add_epi32(_mm512_add_epi32(q0, q1));
        }
}

} // namespace core::model::fast
