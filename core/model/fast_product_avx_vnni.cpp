// core/model/fast_product_avx_vnni.cpp — the fast products' int8 micro-kernel on AVX-VNNI (see
// core/model/fast_product_avx2.h): vpdpbusd on 256-bit registers, as Intel's cores since Alder Lake
// have it without AVX-512.
//
// As the AVX512-VNNI kernel: weights packed unsigned (value + offset), activations signed and
// broadcast four at a time, each accumulator starting at the block's −offset · Σ x
// (QuantizedRows::bias), so each lane ends at the exact Σ w · x. 16 columns are two registers.
#include "core/model/fast_product_avx2.h"
#include "core/model/fast_product_ymm.h"

#include <immintrin.h>

namespace core::model::fast::avx2 {

namespace {

using ops::Index;

// MR rows × 16 columns: each of the block's 16 weight vectors loaded once for all MR rows, each
// row's four activations broadcast once for both halves.
template <int MR>
void vnni_rows(const QuantizedRows& x, Index row0, const unsigned char* group, Index blocks, float* y, Index ldy, int cols, bool accumulate) {
    rows_of_group<MR>(x, row0, group, blocks, y, ldy, cols, accumulate, [&](const unsigned char* block, Index b, __m256i (&s)[MR][2]) {
        for (int i = 0; i < MR; ++i) s[i][0] = s[i][1] = _mm256_set1_epi32(x.bias[static_cast<std::size_t>((row0 + i) * x.blocks + b)]);
        for (int r = 0; r < 8; ++r) {
            const __m256i w0 = _mm256_load_si256(reinterpret_cast<const __m256i*>(block + 64 * r));
            const __m256i w1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(block + 64 * r + 32));
            for (int i = 0; i < MR; ++i) {
                const __m256i four = four_bytes(x, row0 + i, b, r);
                s[i][0] = _mm256_dpbusd_avx_epi32(s[i][0], w0, four);
                s[i][1] = _mm256_dpbusd_avx_epi32(s[i][1], w1, four);
            }
        }
    });
}

} // namespace

void avx_vnni_group(const QuantizedRows& x, Index row0, Index rows, const unsigned char* group, Index blocks, float* y, Index ldy, int cols,
                    bool accumulate) {
    constexpr int mr = 3;
    Index i = 0;
    for (; i + mr <= rows; i += mr) vnni_rows<mr>(x, row0 + i, group, blocks, y + i * ldy, ldy, cols, accumulate);
    for (; i < rows; ++i) vnni_rows<1>(x, row0 + i, group, blocks, y + i * ldy, ldy, cols, accumulate);
}

} // namespace core::model::fast::avx2
