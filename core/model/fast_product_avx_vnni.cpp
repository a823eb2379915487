// core/model/fast_product_avx_vnni.cpp — the fast products' int8 micro-kernel on AVX-VNNI (see
// core/model/fast_product_avx2.h): vpdpbusd on 256-bit registers, as Intel's cores since Alder Lake
// have it without AVX-512.
//
// As the AVX512-VNNI kernel: weights packed unsigned (value + offset), activations signed and
// broadcast four at a time, each accumulator starting at the block's −offset · Σ x
// (QuantizedRows::bias), so each lane ends at the exact Σ w · x. 16 columns are two registers.
#include "core/model/fast_product_avx2.h"

#include <immintrin.h>

#include <cstring>

namespace core::model::fast::avx2 {

namespace {

using ops::Index;

__m256i four_bytes(const std::int8_t* p) {
    std::int32_t v;
    std::memcpy(&v, p, 4);
    return _mm256_set1_epi32(v);
}

// MR rows × 16 columns: each of the block's 16 weight vectors loaded once for all MR rows, each
// row's four activations broadcast once for both halves.
template <int MR>
void rows_of_group(const QuantizedRows& x, Index row0, const unsigned char* group, Index blocks, float* y, Index ldy, int cols,
                   bool accumulate) {
    const Index width = x.blocks * 32;
    __m256 acc[MR][2];
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    for (Index b = 0; b < blocks; ++b) {
        const unsigned char* block = group + b * packed_block_bytes;
        __m256i s[MR][2];
        for (int i = 0; i < MR; ++i) s[i][0] = s[i][1] = _mm256_set1_epi32(x.bias[static_cast<std::size_t>((row0 + i) * x.blocks + b)]);
        for (int r = 0; r < 8; ++r) {
            const __m256i w0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(block + 64 * r));
            const __m256i w1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(block + 64 * r + 32));
            for (int i = 0; i < MR; ++i) {
                const __m256i four = four_bytes(x.q.data() + (row0 + i) * width + b * 32 + 4 * r);
                s[i][0] = _mm256_dpbusd_avx_epi32(s[i][0], w0, four);
                s[i][1] = _mm256_dpbusd_avx_epi32(s[i][1], w1, four);
            }
        }
        const __m256 dw[2] = {_mm256_load_ps(reinterpret_cast<const float*>(block + 512)),
                              _mm256_load_ps(reinterpret_cast<const float*>(block + 544))};
        for (int i = 0; i < MR; ++i) {
            const __m256 dx = _mm256_set1_ps(x.d[static_cast<std::size_t>((row0 + i) * x.blocks + b)]);
            for (int h = 0; h < 2; ++h) acc[i][h] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(s[i][h]), _mm256_mul_ps(dw[h], dx), acc[i][h]);
        }
    }
    for (int i = 0; i < MR; ++i) {
        alignas(32) float out[16];
        _mm256_store_ps(out, acc[i][0]);
        _mm256_store_ps(out + 8, acc[i][1]);
        float* to = y + static_cast<Index>(i) * ldy;
        for (int c = 0; c < cols; ++c) to[c] = accumulate ? to[c] + out[c] : out[c];
    }
}

} // namespace

void avx_vnni_group(const QuantizedRows& x, Index row0, Index rows, const unsigned char* group, Index blocks, float* y, Index ldy, int cols,
                    bool accumulate) {
    constexpr int mr = 3;
    Index i = 0;
    for (; i + mr <= rows; i += mr) rows_of_group<mr>(x, row0 + i, group, blocks, y + i * ldy, ldy, cols, accumulate);
    for (; i < rows; ++i) rows_of_group<1>(x, row0 + i, group, blocks, y + i * ldy, ldy, cols, accumulate);
}

} // namespace core::model::fast::avx2
