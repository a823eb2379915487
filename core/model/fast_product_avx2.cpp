// core/model/fast_product_avx2.cpp — the int8 micro-kernel of the fast products on AVX2 (see
// core/model/fast_product_avx2.h).
#include "core/model/fast_product_avx2.h"
#include "core/model/fast_product_ymm.h"

#include "core/model/format/blocks.h"

#include <immintrin.h>

#include <algorithm>
#include <cmath>
#include <cstring>

namespace core::model::fast::avx2 {

namespace {

using ops::Index;

// A row's 32 values of block b: Q8_0's int8 as they lie, Q4_0's nibbles less 8 (byte e holds depth e
// in its low nibble and depth e + 16 in its high one).
void block_values(const unsigned char* block, bool four_bits, std::int8_t* out) {
    if (!four_bits) {
        std::memcpy(out, block + 2, 32);
        return;
    }
    for (int e = 0; e < 16; ++e) {
        out[e] = static_cast<std::int8_t>((block[2 + e] & 0x0f) - 8);
        out[e + 16] = static_cast<std::int8_t>((block[2 + e] >> 4) - 8);
    }
}

// MR rows × 16 columns (two vectors of 8): each weight vector loaded once a block for all MR rows.
template <int MR>
void avx2_rows(const QuantizedRows& x, Index row0, const unsigned char* group, Index blocks, float* y, Index ldy, int cols, bool accumulate) {
    const __m256i ones = _mm256_set1_epi16(1);
    rows_of_group<MR>(x, row0, group, blocks, y, ldy, cols, accumulate, [&](const unsigned char* block, Index b, __m256i (&s)[MR][2]) {
        for (int i = 0; i < MR; ++i) s[i][0] = s[i][1] = _mm256_setzero_si256();
        for (int r = 0; r < 8; ++r)
            for (int h = 0; h < 2; ++h) {
                const __m256i w = _mm256_load_si256(reinterpret_cast<const __m256i*>(block + 64 * r + 32 * h));
                const __m256i magnitude = _mm256_abs_epi8(w); // −128 becomes the unsigned byte 128, as it should
                for (int i = 0; i < MR; ++i) {
                    const __m256i pairs = _mm256_maddubs_epi16(magnitude, _mm256_sign_epi8(four_bytes(x, row0 + i, b, r), w));
                    s[i][h] = _mm256_add_epi32(s[i][h], _mm256_madd_epi16(pairs, ones));
                }
            }
    });
}

} // namespace

void pack_group(const Weights::Tensor& W, Index c0, int cols, Index blocks, int offset, unsigned char* group) {
    const bool four_bits = W.type() == WeightType::q4_0;
    const Index block_bytes = four_bits ? 18 : 34; // half d, then 32 int8 or 16 bytes of nibbles
    std::memset(group, 0, static_cast<std::size_t>(blocks * packed_block_bytes));
    for (int c = 0; c < cols; ++c) {
        const unsigned char* row = W.stored_row(c0 + c);
        for (Index b = 0; b < blocks; ++b) {
            const unsigned char* at = row + b * block_bytes;
            unsigned char* block = group + b * packed_block_bytes;
            std::int8_t values[32];
            block_values(at, four_bits, values);
            for (int j = 0; j < 32; ++j) block[64 * (j / 4) + 4 * c + j % 4] = static_cast<unsigned char>(values[j] + offset);
            std::uint16_t half;
            std::memcpy(&half, at, 2);
            const float d = half_to_float(half);
            std::memcpy(block + 512 + 4 * c, &d, 4);
        }
    }
}

// ggml's quantize_row_q8_0 (its vector path: round half to even), d in float32: fast::quantize_rows's
// operations on 8 lanes instead of 16, which give the same values.
void quantize_rows(const float* x, Index ldx, Index m, Index k, int offset, QuantizedRows& out) {
    out.resize(m, k);
    const __m256 sign = _mm256_set1_ps(-0.0f);
    for (Index i = 0; i < m; ++i)
        for (Index b = 0; b < out.blocks; ++b) {
            const float* v = x + i * ldx + b * 32;
            __m256 v4[4], top = _mm256_setzero_ps();
            for (int l = 0; l < 4; ++l) {
                v4[l] = _mm256_loadu_ps(v + 8 * l);
                top = _mm256_max_ps(top, _mm256_andnot_ps(sign, v4[l]));
            }
            alignas(32) float lanes[8];
            _mm256_store_ps(lanes, top);
            const float amax = *std::max_element(lanes, lanes + 8);
            const __m256 inverse = _mm256_set1_ps(amax > 0.0f ? 127.0f / amax : 0.0f);
            std::int8_t* q = out.q.data() + i * k + b * 32;
            int sum = 0;
            for (int l = 0; l < 4; ++l) {
                alignas(32) std::int32_t rounded[8];
                _mm256_store_si256(reinterpret_cast<__m256i*>(rounded), _mm256_cvtps_epi32(_mm256_mul_ps(v4[l], inverse)));
                for (int e = 0; e < 8; ++e) {
                    const std::int32_t r = std::clamp(rounded[e], -128, 127); // as vpmovsdb saturates
                    q[8 * l + e] = static_cast<std::int8_t>(r);
                    sum += rounded[e];
                }
            }
            const auto at = static_cast<std::size_t>(i * out.blocks + b);
            out.d[at] = amax / 127.0f;
            out.bias[at] = -offset * sum;
        }
}

void int8_group(const QuantizedRows& x, Index row0, Index rows, const unsigned char* group, Index blocks, float* y, Index ldy, int cols,
                bool accumulate) {
    constexpr int mr = 4;
    Index i = 0;
    for (; i + mr <= rows; i += mr) avx2_rows<mr>(x, row0 + i, group, blocks, y + i * ldy, ldy, cols, accumulate);
    for (; i < rows; ++i) avx2_rows<1>(x, row0 + i, group, blocks, y + i * ldy, ldy, cols, accumulate);
}

} // namespace core::model::fast::avx2
