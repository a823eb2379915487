// core/model/format/blocks.cpp — dequantizing ggml's blocks: the layouts of ggml-common.h, the
// arithmetic of ggml-quants.c's dequantize_row_* (same operations in the same order, so the same bits).
#include "core/model/format/blocks.h"

#include "core/kernels.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace core::model {

namespace {

std::uint16_t u16(const unsigned char* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
float f16(const unsigned char* p) { return half_to_float(u16(p)); }
float bf16(const unsigned char* p) { // the top half of a float32
    const std::uint32_t wide = static_cast<std::uint32_t>(u16(p)) << 16;
    float f;
    std::memcpy(&f, &wide, 4);
    return f;
}

// Q8_0: d (f16), then 32 signed bytes: value = q · d.
void block_q8_0(const unsigned char* b, float* y) {
    const float d = f16(b);
    for (int j = 0; j < 32; ++j) y[j] = static_cast<float>(static_cast<std::int8_t>(b[2 + j])) * d;
}

// Q4_0: d (f16), then 16 bytes: value j is the low nibble of byte j, value j + 16 its high
// nibble, both offset by 8.
void block_q4_0(const unsigned char* b, float* y) {
    const float d = f16(b);
    const unsigned char* q = b + 2;
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>((q[j] & 0x0f) - 8) * d;
        y[j + 16] = static_cast<float>((q[j] >> 4) - 8) * d;
    }
}

// The K-quants' 8 sub-block scales and mins, 6 bits each in 12 bytes: sub-blocks 0–3 in the low
// 6 bits of bytes 0–3 (scale) and 4–7 (min); sub-blocks 4–7 in the nibbles of bytes 8–11, their
// top 2 bits in the top 2 bits of bytes 0–3 (scale) and 4–7 (min).
void scale_min(int j, const unsigned char* s, int& scale, int& min) {
    if (j < 4) {
        scale = s[j] & 63;
        min = s[j + 4] & 63;
    } else {
        scale = (s[j + 4] & 0x0f) | ((s[j - 4] >> 6) << 4);
        min = (s[j + 4] >> 4) | ((s[j] >> 6) << 4);
    }
}

// Q4_K: d, dmin (f16), 12 bytes of scales, 128 bytes of nibbles. Each 64 values: 32 low nibbles
// (sub-block 2i), then the same bytes' 32 high nibbles (sub-block 2i+1): value = d·sc·q − dmin·m.
// Q5_K (qh non-null) adds a fifth bit: bit 2i (low nibbles) or 2i+1 (high) of qh[l].
void block_k4(const unsigned char* b, const unsigned char* qh, const unsigned char* qs, float* y) {
    const float d = f16(b), dmin = f16(b + 2);
    const unsigned char* scales = b + 4;
    for (int i = 0; i < 4; ++i, qs += 32, y += 64) {
        for (int half = 0; half < 2; ++half) {
            int sc, m;
            scale_min(2 * i + half, scales, sc, m);
            const float d1 = d * static_cast<float>(sc), m1 = dmin * static_cast<float>(m);
            const int shift = 4 * half, bit = 2 * i + half;
            for (int l = 0; l < 32; ++l) {
                const int q = ((qs[l] >> shift) & 0x0f) + (qh && ((qh[l] >> bit) & 1) ? 16 : 0);
                y[32 * half + l] = d1 * static_cast<float>(q) - m1;
            }
        }
    }
}

// Q6_K: 128 bytes of low nibbles, 64 bytes of 2-bit highs, 16 signed scales, d (f16). Each 128
// values: four runs of 32 (low nibbles of ql[0..31], of ql[32..63], high nibbles of each) whose
// highs are bit pairs 0, 2, 4, 6 of qh[l]; value = d · scale[16-value sub-block] · (q − 32).
void block_q6_K(const unsigned char* b, float* y) {
    const unsigned char *ql = b, *qh = b + 128;
    const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192);
    const float d = f16(b + 208);
    for (int n = 0; n < 2; ++n, ql += 64, qh += 32, sc += 8, y += 128)
        for (int l = 0; l < 32; ++l) {
            const int s = l / 16;
            const int q0 = ((ql[l] & 0x0f) | ((qh[l] & 3) << 4)) - 32, q1 = ((ql[l + 32] & 0x0f) | (((qh[l] >> 2) & 3) << 4)) - 32;
            const int q2 = ((ql[l] >> 4) | (((qh[l] >> 4) & 3) << 4)) - 32, q3 = ((ql[l + 32] >> 4) | ((qh[l] >> 6) << 4)) - 32;
            y[l] = d * static_cast<float>(sc[s]) * static_cast<float>(q0);
            y[l + 32] = d * static_cast<float>(sc[s + 2]) * static_cast<float>(q1);
            y[l + 64] = d * static_cast<float>(sc[s + 4]) * static_cast<float>(q2);
            y[l + 96] = d * static_cast<float>(sc[s + 6]) * static_cast<float>(q3);
        }
}

// The 5-bit legacy blocks' fifth bits: 4 bytes, little-endian, bit j for value j.
std::uint32_t u32(const unsigned char* p) {
    return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) | (static_cast<std::uint32_t>(p[2]) << 16) |
           (static_cast<std::uint32_t>(p[3]) << 24);
}

// Q4_1: d, m (f16), then Q4_0's 16 bytes of nibbles without the offset: value = q · d + m.
void block_q4_1(const unsigned char* b, float* y) {
    const float d = f16(b), m = f16(b + 2);
    const unsigned char* q = b + 4;
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>(q[j] & 0x0f) * d + m;
        y[j + 16] = static_cast<float>(q[j] >> 4) * d + m;
    }
}

// Q5_0: d (f16), qh (4 bytes), then Q4_0's nibbles; bit j of qh is value j's fifth bit:
// value = (q − 16) · d.
void block_q5_0(const unsigned char* b, float* y) {
    const float d = f16(b);
    const std::uint32_t qh = u32(b + 2);
    const unsigned char* q = b + 6;
    for (int j = 0; j < 16; ++j) {
        const int q0 = ((q[j] & 0x0f) | (((qh >> j) & 1) << 4)) - 16, q1 = ((q[j] >> 4) | (((qh >> (j + 16)) & 1) << 4)) - 16;
        y[j] = static_cast<float>(q0) * d;
        y[j + 16] = static_cast<float>(q1) * d;
    }
}

// Q5_1: d, m (f16), qh (4 bytes), nibbles, as Q5_0 without the offset: value = q · d + m.
void block_q5_1(const unsigned char* b, float* y) {
    const float d = f16(b), m = f16(b + 2);
    const std::uint32_t qh = u32(b + 4);
    const unsigned char* q = b + 8;
    for (int j = 0; j < 16; ++j) {
        const int q0 = (q[j] & 0x0f) | (((qh >> j) & 1) << 4), q1 = (q[j] >> 4) | (((qh >> (j + 16)) & 1) << 4);
        y[j] = static_cast<float>(q0) * d + m;
        y[j + 16] = static_cast<float>(q1) * d + m;
    }
}

// Q2_K: 16 bytes of scales (low nibble scale, high nibble min, per 16 values), 64 bytes of 2-bit
// values, d, dmin (f16). Each 128 values: four runs of 32 (bit pairs 0, 2, 4, 6 of qs[0..31]), each
// run two sub-blocks of 16: value = (d · scale) · q − dmin · min.
void block_q2_K(const unsigned char* b, float* y) {
    const unsigned char *sc = b, *qs = b + 16;
    const float d = f16(b + 80), dmin = f16(b + 82);
    for (int n = 0; n < 2; ++n, qs += 32)
        for (int r = 0; r < 4; ++r)
            for (int l = 0; l < 32; ++l, ++y) {
                const int s = sc[8 * n + 2 * r + l / 16];
                const float dl = d * static_cast<float>(s & 0x0f), ml = dmin * static_cast<float>(s >> 4);
                *y = dl * static_cast<float>((qs[l] >> (2 * r)) & 3) - ml;
            }
}

// Q3_K's 16 scales, 6 bits each in 12 bytes: the low 4 bits of scale j in the low (j < 8) or high
// nibble of byte j mod 8, its top 2 bits at bits 2·(j / 4) of byte 8 + j mod 4; stored plus 32.
int q3_K_scale(const unsigned char* s, int j) {
    const int low = j < 8 ? s[j] & 0x0f : s[j - 8] >> 4;
    return (low | (((s[8 + j % 4] >> (2 * (j / 4))) & 3) << 4)) - 32;
}

// Q3_K: hmask (32 bytes), 64 bytes of 2-bit values, 12 bytes of scales, d (f16). Value
// 128n + 32r + l takes bit pair r of qs[32n + l] and, as its third bit, bit 4n + r of hmask[l]; a clear
// bit means less 4: value = (d · scale) · (q − 4 or q).
void block_q3_K(const unsigned char* b, float* y) {
    const unsigned char *hmask = b, *qs = b + 32, *scales = b + 96;
    const float d = f16(b + 108);
    for (int n = 0; n < 2; ++n, qs += 32)
        for (int r = 0; r < 4; ++r)
            for (int l = 0; l < 32; ++l, ++y) {
                const float dl = d * static_cast<float>(q3_K_scale(scales, 8 * n + 2 * r + l / 16));
                const int q = ((qs[l] >> (2 * r)) & 3) - ((hmask[l] >> (4 * n + r)) & 1 ? 0 : 4);
                *y = dl * static_cast<float>(q);
            }
}

// IQ4_NL and IQ4_XS: each nibble picks one of 16 levels, denser near zero (ggml's kvalues_iq4nl).
constexpr std::int8_t iq4_levels[16] = {-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113};

// IQ4_NL: d (f16), then Q4_0's nibbles: value = d · level.
void block_iq4_nl(const unsigned char* b, float* y) {
    const float d = f16(b);
    const unsigned char* q = b + 2;
    for (int j = 0; j < 16; ++j) {
        y[j] = d * static_cast<float>(iq4_levels[q[j] & 0x0f]);
        y[j + 16] = d * static_cast<float>(iq4_levels[q[j] >> 4]);
    }
}

// IQ4_XS: d (f16), scales_h (u16), scales_l (4 bytes), 128 bytes of nibbles. Sub-block i of 32 has
// the 6-bit scale nibble i mod 2 of scales_l[i / 2] with bits 2i, 2i+1 of scales_h on top, stored plus
// 32, and IQ4_NL's layout in qs[16i..16i+15]: value = (d · scale) · level.
void block_iq4_xs(const unsigned char* b, float* y) {
    const float d = f16(b);
    const unsigned scales_h = u16(b + 2);
    const unsigned char *scales_l = b + 4, *q = b + 8;
    for (int i = 0; i < 8; ++i, q += 16, y += 32) {
        const int scale = (((scales_l[i / 2] >> (4 * (i % 2))) & 0x0f) | (((scales_h >> (2 * i)) & 3) << 4)) - 32;
        const float dl = d * static_cast<float>(scale);
        for (int j = 0; j < 16; ++j) {
            y[j] = dl * static_cast<float>(iq4_levels[q[j] & 0x0f]);
            y[j + 16] = dl * static_cast<float>(iq4_levels[q[j] >> 4]);
        }
    }
}

// MXFP4 (OCP microscaling): the E2M1 values 0, ±0.5, ±1, ±1.5, ±2, ±3, ±4, ±6 doubled to integers,
// sign in the nibble's top bit, as ggml's kvalues_mxfp4.
constexpr std::int8_t e2m1_doubled[16] = {0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12};

// An E8M0 scale 2^(e − 127), halved to undo the doubled values: 2^(e − 128) as float32 bits, the
// two smallest as subnormals.
float e8m0_half(unsigned char e) {
    const std::uint32_t bits = e < 2 ? 0x00200000u << e : static_cast<std::uint32_t>(e - 1) << 23;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

// MXFP4: e (E8M0), then Q4_0's nibbles: value = doubled E2M1 value · 2^(e − 128).
void block_mxfp4(const unsigned char* b, float* y) {
    const float d = e8m0_half(b[0]);
    const unsigned char* q = b + 1;
    for (int j = 0; j < 16; ++j) {
        y[j] = static_cast<float>(e2m1_doubled[q[j] & 0x0f]) * d;
        y[j + 16] = static_cast<float>(e2m1_doubled[q[j] >> 4]) * d;
    }
}

// The Hub's MXFP4 block: scale e apart, byte j holding values 2j (low) and 2j + 1 (high).
void block_mxfp4_pairs(const unsigned char* q, unsigned char e, float* y) {
    const float d = e8m0_half(e);
    for (int j = 0; j < 16; ++j) {
        y[2 * j] = static_cast<float>(e2m1_doubled[q[j] & 0x0f]) * d;
        y[2 * j + 1] = static_cast<float>(e2m1_doubled[q[j] >> 4]) * d;
    }
}

#if defined(__x86_64__)
// Values i … i + 7 of a row of 16-bit values, as float32: BF16 as the top half of a float32, F16 by
// the CPU's own conversion (exact, as every half is a float32).
template <bool bf16_values>
__attribute__((target("avx2,f16c"), always_inline)) inline __m256 widen8(const unsigned char* src, std::int64_t i) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + 2 * i));
    if constexpr (bf16_values) return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
    else return _mm256_cvtph_ps(h);
}
// A row of 16-bit values widened 8 at a time.
template <bool bf16_values>
__attribute__((target("avx2,f16c"))) void widen_avx2(const unsigned char* src, float* dst, std::int64_t n) {
    std::int64_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, widen8<bf16_values>(src, i));
    for (; i < n; ++i) dst[i] = bf16_values ? bf16(src + 2 * i) : f16(src + 2 * i);
}
// x · a row of 16-bit values: 8 lanes in 4 partial sums, widened in registers (x86-64-v3 has FMA).
template <bool bf16_values>
__attribute__((target("avx2,fma,f16c"))) float dot_16_avx2(const unsigned char* src, const float* x, std::int64_t n) {
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    std::int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        s0 = _mm256_fmadd_ps(widen8<bf16_values>(src, i), _mm256_loadu_ps(x + i), s0);
        s1 = _mm256_fmadd_ps(widen8<bf16_values>(src, i + 8), _mm256_loadu_ps(x + i + 8), s1);
        s2 = _mm256_fmadd_ps(widen8<bf16_values>(src, i + 16), _mm256_loadu_ps(x + i + 16), s2);
        s3 = _mm256_fmadd_ps(widen8<bf16_values>(src, i + 24), _mm256_loadu_ps(x + i + 24), s3);
    }
    for (; i + 8 <= n; i += 8) s0 = _mm256_fmadd_ps(widen8<bf16_values>(src, i), _mm256_loadu_ps(x + i), s0);
    const __m256 s = _mm256_add_ps(_mm256_add_ps(s0, s1), _mm256_add_ps(s2, s3));
    __m128 q = _mm_add_ps(_mm256_castps256_ps128(s), _mm256_extractf128_ps(s, 1));
    q = _mm_add_ps(q, _mm_movehl_ps(q, q));
    float total = _mm_cvtss_f32(_mm_add_ss(q, _mm_movehdup_ps(q)));
    for (; i < n; ++i) total += x[i] * (bf16_values ? bf16(src + 2 * i) : f16(src + 2 * i));
    return total;
}
// block_q8_0 and block_q4_0 8 values at a time: the signed bytes (or nibbles less 8) widened, then
// times d, one rounding as in the scalar code.
__attribute__((target("avx2"))) void block_q8_0_avx2(const unsigned char* b, float* y) {
    const __m256 d = _mm256_set1_ps(f16(b));
    for (int k = 0; k < 4; ++k) {
        const __m128i eight = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + 2 + 8 * k));
        _mm256_storeu_ps(y + 8 * k, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(eight)), d));
    }
}
__attribute__((target("avx2"))) void block_q4_0_avx2(const unsigned char* b, float* y) {
    const __m256 d = _mm256_set1_ps(f16(b));
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 2)), nibble = _mm_set1_epi8(0x0f);
    const __m128i halves[2] = {_mm_and_si128(bytes, nibble), _mm_and_si128(_mm_srli_epi16(bytes, 4), nibble)}; // values 0–15, 16–31
    for (int k = 0; k < 4; ++k) {
        const __m128i eight = k % 2 ? _mm_srli_si128(halves[k / 2], 8) : halves[k / 2];
        const __m256i q = _mm256_sub_epi32(_mm256_cvtepu8_epi32(eight), _mm256_set1_epi32(8));
        _mm256_storeu_ps(y + 8 * k, _mm256_mul_ps(_mm256_cvtepi32_ps(q), d));
    }
}
// block_mxfp4 8 values at a time: each nibble looked up in e2m1_doubled by a byte shuffle, widened,
// then times the scale, one rounding as in the scalar code.
__attribute__((target("avx2"))) void block_mxfp4_avx2(const unsigned char* b, float* y) {
    const __m256 d = _mm256_set1_ps(e8m0_half(b[0]));
    const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e2m1_doubled));
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 1)), nibble = _mm_set1_epi8(0x0f);
    const __m128i halves[2] = {_mm_shuffle_epi8(table, _mm_and_si128(bytes, nibble)),                       // values 0–15
                               _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(bytes, 4), nibble))}; // values 16–31
    for (int k = 0; k < 4; ++k) {
        const __m128i eight = k % 2 ? _mm_srli_si128(halves[k / 2], 8) : halves[k / 2];
        _mm256_storeu_ps(y + 8 * k, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(eight)), d));
    }
}
// block_mxfp4_pairs 8 values at a time: the nibbles looked up as block_mxfp4_avx2 does, low and high
// put back in the order of the values by interleaving the bytes.
__attribute__((target("avx2"))) void block_mxfp4_pairs_avx2(const unsigned char* q, unsigned char e, float* y) {
    const __m256 d = _mm256_set1_ps(e8m0_half(e));
    const __m128i table = _mm_loadu_si128(reinterpret_cast<const __m128i*>(e2m1_doubled));
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)), nibble = _mm_set1_epi8(0x0f);
    const __m128i low = _mm_shuffle_epi8(table, _mm_and_si128(bytes, nibble));                       // values 0, 2, 4, …
    const __m128i high = _mm_shuffle_epi8(table, _mm_and_si128(_mm_srli_epi16(bytes, 4), nibble));  // values 1, 3, 5, …
    const __m128i ordered[2] = {_mm_unpacklo_epi8(low, high), _mm_unpackhi_epi8(low, high)};         // values 0–15, 16–31
    for (int k = 0; k < 4; ++k) {
        const __m128i eight = k % 2 ? _mm_srli_si128(ordered[k / 2], 8) : ordered[k / 2];
        _mm256_storeu_ps(y + 8 * k, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(eight)), d));
    }
}
// block_k4 32 values at a time: the nibbles (and Q5_K's fifth bits) picked out of whole bytes,
// widened to float32, then d1 · q − m1 as two roundings, as the scalar code does.
__attribute__((target("avx2"))) void block_k4_avx2(const unsigned char* b, const unsigned char* qh, const unsigned char* qs, float* y) {
    const float d = f16(b), dmin = f16(b + 2);
    const unsigned char* scales = b + 4;
    const __m256i nibble = _mm256_set1_epi8(0x0f), one = _mm256_set1_epi8(1);
    const __m256i fifth = qh ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qh)) : _mm256_setzero_si256();
    for (int i = 0; i < 4; ++i, qs += 32, y += 64) {
        const __m256i bytes = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qs));
        for (int half = 0; half < 2; ++half) {
            int sc, m;
            scale_min(2 * i + half, scales, sc, m);
            const __m256 d1 = _mm256_set1_ps(d * static_cast<float>(sc)), m1 = _mm256_set1_ps(dmin * static_cast<float>(m));
            __m256i q = _mm256_and_si256(half ? _mm256_srli_epi16(bytes, 4) : bytes, nibble); // a 16-bit shift, then each byte masked
            if (qh) q = _mm256_or_si256(q, _mm256_slli_epi16(_mm256_and_si256(_mm256_srl_epi16(fifth, _mm_cvtsi32_si128(2 * i + half)), one), 4));
            const __m128i lanes[2] = {_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1)};
            for (int k = 0; k < 4; ++k) {
                const __m128i eight = k % 2 ? _mm_srli_si128(lanes[k / 2], 8) : lanes[k / 2];
                const __m256 f = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(eight));
                _mm256_storeu_ps(y + 32 * half + 8 * k, _mm256_sub_ps(_mm256_mul_ps(d1, f), m1));
            }
        }
    }
}
// block_q6_K 32 values at a time: each run's 6-bit values assembled in whole bytes, widened, then
// (d · scale) · (q − 32) as the scalar code rounds it.
__attribute__((target("avx2"))) void block_q6_K_avx2(const unsigned char* b, float* y) {
    const unsigned char *ql = b, *qh = b + 128;
    const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192);
    const float d = f16(b + 208);
    const __m256i nibble = _mm256_set1_epi8(0x0f), two = _mm256_set1_epi8(3), offset = _mm256_set1_epi32(32);
    for (int n = 0; n < 2; ++n, ql += 64, qh += 32, sc += 8, y += 128) {
        const __m256i low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql)), high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(ql + 32));
        const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(qh));
        const __m256i runs[4] = {
            _mm256_or_si256(_mm256_and_si256(low, nibble), _mm256_slli_epi16(_mm256_and_si256(h, two), 4)),
            _mm256_or_si256(_mm256_and_si256(high, nibble), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 2), two), 4)),
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(low, 4), nibble), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 4), two), 4)),
            _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(high, 4), nibble), _mm256_slli_epi16(_mm256_and_si256(_mm256_srli_epi16(h, 6), two), 4))};
        for (int r = 0; r < 4; ++r) {
            const __m128i lanes[2] = {_mm256_castsi256_si128(runs[r]), _mm256_extracti128_si256(runs[r], 1)};
            for (int k = 0; k < 4; ++k) {
                const __m256 ds = _mm256_set1_ps(d * static_cast<float>(sc[2 * r + k / 2]));
                const __m128i eight = k % 2 ? _mm_srli_si128(lanes[k / 2], 8) : lanes[k / 2];
                const __m256 q = _mm256_cvtepi32_ps(_mm256_sub_epi32(_mm256_cvtepu8_epi32(eight), offset));
                _mm256_storeu_ps(y + 32 * r + 8 * k, _mm256_mul_ps(ds, q));
            }
        }
    }
}
// The AVX2 loops where the kernel level in use (core::kernel_level, ATTNVIZ_KERNELS) is x86-64-v3 or
// v4: the dequantizers give the same bits either way, dot_row sums in another order.
bool has_x86_64_v3() { return core::kernel_level() != core::KernelLevel::generic; }
#endif

void widen_bf16(const unsigned char* src, float* dst, std::int64_t n) {
#if defined(__x86_64__)
    if (has_x86_64_v3()) return widen_avx2<true>(src, dst, n);
#endif
    for (std::int64_t i = 0; i < n; ++i) dst[i] = bf16(src + 2 * i);
}

void widen_f16(const unsigned char* src, float* dst, std::int64_t n) {
#if defined(__x86_64__)
    if (has_x86_64_v3()) return widen_avx2<false>(src, dst, n);
#endif
    for (std::int64_t i = 0; i < n; ++i) dst[i] = f16(src + 2 * i);
}

} // namespace

float dot_row(WeightType t, const unsigned char* src, const float* x, std::int64_t n) {
    const bool brain = t == WeightType::bf16;
#if defined(__x86_64__)
    if (has_x86_64_v3()) return brain ? dot_16_avx2<true>(src, x, n) : dot_16_avx2<false>(src, x, n);
#endif
    float total = 0.0f;
    for (std::int64_t i = 0; i < n; ++i) total += x[i] * (brain ? bf16(src + 2 * i) : f16(src + 2 * i));
    return total;
}

float half_to_float(std::uint16_t h) {
    const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
    std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu, bits;
    if (exponent == 0x1f) bits = sign | 0x7f800000u | (mantissa << 13); // inf, NaN
    else if (exponent != 0) bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    else if (mantissa == 0) bits = sign;
    else { // subnormal: normalise
        exponent = 113;
        while (!(mantissa & 0x400u)) { mantissa <<= 1; --exponent; }
        bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

BlockShape block_shape(WeightType t) {
    switch (t) {
    case WeightType::f32: return {1, 4};
    case WeightType::f16: return {1, 2};
    case WeightType::bf16: return {1, 2};
    case WeightType::q8_0: return {32, 34};
    case WeightType::q4_0: return {32, 18};
    case WeightType::q4_K: return {256, 144};
    case WeightType::q5_K: return {256, 176};
    case WeightType::q6_K: return {256, 210};
    case WeightType::q4_1: return {32, 20};
    case WeightType::q5_0: return {32, 22};
    case WeightType::q5_1: return {32, 24};
    case WeightType::q2_K: return {256, 84};
    case WeightType::q3_K: return {256, 110};
    case WeightType::iq4_nl: return {32, 18};
    case WeightType::iq4_xs: return {256, 136};
    case WeightType::mxfp4: return {32, 17};
    }
    return {1, 4};
}

const char* type_name(WeightType t) {
    switch (t) {
    case WeightType::f32: return "F32";
    case WeightType::f16: return "F16";
    case WeightType::bf16: return "BF16";
    case WeightType::q8_0: return "Q8_0";
    case WeightType::q4_0: return "Q4_0";
    case WeightType::q4_K: return "Q4_K";
    case WeightType::q5_K: return "Q5_K";
    case WeightType::q6_K: return "Q6_K";
    case WeightType::q4_1: return "Q4_1";
    case WeightType::q5_0: return "Q5_0";
    case WeightType::q5_1: return "Q5_1";
    case WeightType::q2_K: return "Q2_K";
    case WeightType::q3_K: return "Q3_K";
    case WeightType::iq4_nl: return "IQ4_NL";
    case WeightType::iq4_xs: return "IQ4_XS";
    case WeightType::mxfp4: return "MXFP4";
    }
    return "?";
}

namespace {

// The blocks with no AVX2 loop: the same scalar code at every kernel level.
using BlockFunction = void (*)(const unsigned char*, float*);
BlockFunction scalar_block(WeightType t) {
    switch (t) {
    case WeightType::q4_1: return &block_q4_1;
    case WeightType::q5_0: return &block_q5_0;
    case WeightType::q5_1: return &block_q5_1;
    case WeightType::q2_K: return &block_q2_K;
    case WeightType::q3_K: return &block_q3_K;
    case WeightType::iq4_nl: return &block_iq4_nl;
    case WeightType::iq4_xs: return &block_iq4_xs;
    default: return nullptr;
    }
}

} // namespace

void dequantize(WeightType t, const unsigned char* src, float* dst, std::int64_t n) {
    const BlockShape s = block_shape(t);
    switch (t) {
    case WeightType::f32: std::memcpy(dst, src, static_cast<std::size_t>(n) * 4); return;
    case WeightType::f16: widen_f16(src, dst, n); return;
    case WeightType::bf16: widen_bf16(src, dst, n); return;
    default: break;
    }
    if (const BlockFunction block = scalar_block(t)) {
        for (std::int64_t i = 0; i < n / s.values; ++i, src += s.bytes, dst += s.values) block(src, dst);
        return;
    }
    auto *q8_0 = &block_q8_0, *q4_0 = &block_q4_0, *q6_K = &block_q6_K, *mxfp4 = &block_mxfp4;
    auto* k4 = &block_k4;
#if defined(__x86_64__)
    if (has_x86_64_v3()) {
        q8_0 = &block_q8_0_avx2;
        q4_0 = &block_q4_0_avx2;
        k4 = &block_k4_avx2;
        q6_K = &block_q6_K_avx2;
        mxfp4 = &block_mxfp4_avx2;
    }
#endif
    for (std::int64_t i = 0; i < n / s.values; ++i, src += s.bytes, dst += s.values) {
        if (t == WeightType::q8_0) q8_0(src, dst);
        else if (t == WeightType::q4_0) q4_0(src, dst);
        else if (t == WeightType::mxfp4) mxfp4(src, dst);
        else if (t == WeightType::q4_K) k4(src, nullptr, src + 16, dst);
        else if (t == WeightType::q5_K) k4(src, src + 16, src + 48, dst);
        else q6_K(src, dst);
    }
}

void dequantize_mxfp4_pairs(const unsigned char* values, const unsigned char* scales, float* dst, std::int64_t n) {
    auto* block = &block_mxfp4_pairs;
#if defined(__x86_64__)
    if (has_x86_64_v3()) block = &block_mxfp4_pairs_avx2;
#endif
    for (std::int64_t i = 0; i < n / 32; ++i) block(values + 16 * i, scales[i], dst + 32 * i);
}

} // namespace core::model
