// core/model/format/blocks.h — the storage types of weights and their blocks, as ggml lays them out.
//
// A tensor row is a run of blocks; each block holds block_shape(t).values values in
// block_shape(t).bytes bytes, little-endian. F32, F16 and BF16 are blocks of one value.
#pragma once

#include <cstdint>

namespace core::model {

enum class WeightType { f32, f16, bf16, q8_0, q4_0, q4_K, q5_K, q6_K, q4_1, q5_0, q5_1, q2_K, q3_K, iq4_nl, iq4_xs, mxfp4 };

struct BlockShape {
    int values;
    int bytes;
};

// f32 {1,4} f16 {1,2} bf16 {1,2} q8_0 {32,34} q4_0 {32,18} q4_K {256,144} q5_K {256,176} q6_K {256,210}
// q4_1 {32,20} q5_0 {32,22} q5_1 {32,24} q2_K {256,84} q3_K {256,110} iq4_nl {32,18} iq4_xs {256,136}
// mxfp4 {32,17}
BlockShape block_shape(WeightType t);

// ggml's names: "F32" "F16" "BF16" "Q8_0" "Q4_0" "Q4_K" "Q5_K" "Q6_K" "Q4_1" "Q5_0" "Q5_1" "Q2_K"
// "Q3_K" "IQ4_NL" "IQ4_XS" "MXFP4".
const char* type_name(WeightType t);

// n values (a multiple of block_shape(t).values) from the blocks at src into dst, as ggml's
// dequantize_row_* computes them, to the bit.
void dequantize(WeightType t, const unsigned char* src, float* dst, std::int64_t n);

// n values (a multiple of 32) of MXFP4 as the Hub's gpt-oss checkpoints lay them out: the E8M0 scales
// apart (one byte a block, at scales), and byte j of a block's 16 at values holding value 2j in its
// low nibble and 2j + 1 in its high one. The same numbers as dequantize(mxfp4, …) of ggml's block
// of that scale and those values, to the bit.
void dequantize_mxfp4_pairs(const unsigned char* values, const unsigned char* scales, float* dst, std::int64_t n);

// Σ x[i] · v_i over a row of n F16 or BF16 values at src (t is one of the two), in float32 and in
// a fixed order (8 lanes, 4 partial sums on x86-64-v3), the row widened in registers: one output of a
// one-row product.
float dot_row(WeightType t, const unsigned char* src, const float* x, std::int64_t n);

// IEEE half (binary16) bits to float32, exactly.
float half_to_float(std::uint16_t h);

} // namespace core::model
