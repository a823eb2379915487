// core/model/fast_product_ymm.h — what the two int8 kernels on 256-bit registers share
// (core/model/fast_product_avx2.cpp and core/model/fast_product_avx_vnni.cpp): the walk over a
// group's blocks, and each block's exact integer sums scaled into float32. Internal linkage: each
// kernel file compiles its own copy with its own -march, so that no copy can stand in for another.
#pragma once

#include "core/model/fast_product_avx512.h" // QuantizedRows, packed_block_bytes

#include <immintrin.h>

#include <cstdint>
#include <cstring>

namespace core::model::fast::avx2 {
namespace {

// y (MR rows from row0, cols ≤ 16 columns, row stride ldy) = or += the group's product: per block b,
// block_sums(block, b, s) leaves in s[i][h] row i's exact integer sums Σ w · x for columns
// 8h … 8h+7, and acc = fma(float(Σ), d_w · d_x, acc) takes them, the blocks in order.
template <int MR, class BlockSums>
void rows_of_group(const QuantizedRows& x, ops::Index row0, const unsigned char* group, ops::Index blocks, float* y, ops::Index ldy,
                   int cols, bool accumulate, BlockSums block_sums) {
    __m256 acc[MR][2];
    for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = _mm256_setzero_ps();
    for (ops::Index b = 0; b < blocks; ++b) {
        const unsigned char* block = group + b * packed_block_bytes;
        __m256i s[MR][2];
        block_sums(block, b, s);
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
        float* to = y + static_cast<ops::Index>(i) * ldy;
        for (int c = 0; c < cols; ++c) to[c] = accumulate ? to[c] + out[c] : out[c];
    }
}

// Row i's four activations at depths 4r … 4r+3 of block b, in every 32-bit lane.
inline __m256i four_bytes(const QuantizedRows& x, ops::Index row, ops::Index b, int r) {
    std::int32_t v;
    std::memcpy(&v, x.q.data() + row * x.blocks * 32 + b * 32 + 4 * r, 4);
    return _mm256_set1_epi32(v);
}

} // namespace
} // namespace core::model::fast::avx2
