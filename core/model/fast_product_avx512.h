// core/model/fast_product_avx512.h — the fast products' AVX512-VNNI and AVX512-BF16 micro-kernels
// (their own file, built with -march=x86-64-v4 -mavx512vnni -mavx512bf16; called only where
// fast::available(), and the bf16 ones where fast::bf16_available()).
#pragma once

#include "core/model/format/weights.h"
#include "core/model/ops.h"

#include <cstdint>
#include <vector>

namespace core::model::fast {

// Activations (m, k) quantized per block of 32 (k a multiple of 32).
struct QuantizedRows {
    ops::Index m = 0, blocks = 0;
    std::vector<std::int8_t> q;     // (m, blocks · 32)
    std::vector<float> d;           // (m, blocks) the block scales
    std::vector<std::int32_t> bias; // (m, blocks) −offset · Σ q of the block (the unsigned weights' correction)
    // Sized for (m, k) activations. Defined in core/model/fast_product.cpp, built for any x86-64: an
    // inline function here would be compiled by each kernel file with its own -march, and the linker
    // could keep the AVX-512 copy for the AVX2 kernel.
    void resize(ops::Index rows, ops::Index k);
};

// A group of 16 output columns of a Q8_0 or Q4_0 weight, packed for the kernel: per block of 32 depths,
// 8 × 64 bytes (byte 64·r + 4·c + e is column c's value at depth 4·r + e, plus 128 as an unsigned
// byte) and then the 16 columns' scales in float32.
constexpr int group_columns = 16;
constexpr int packed_block_bytes = 8 * 64 + group_columns * 4;

// [SECTION] bf16 (AVX512-BF16)

// Activations (m, k) rounded to bf16 (nearest even), each row padded with a zero to an even width.
struct Bf16Rows {
    ops::Index m = 0, width = 0;
    std::vector<std::uint16_t> values; // (m, width)
};
void bf16_rows(const float* x, ops::Index ldx, ops::Index m, ops::Index k, Bf16Rows& out);

// A group of up to 16 columns of float32 values (column c, depth d at panel[c · column_stride +
// d · depth_stride]) rounded to bf16 and packed for bf16_group: per pair of depths p, 64 bytes,
// lane c holding (depth 2p, depth 2p+1); missing columns and the odd depth's pair are zeros.
void pack_bf16_group(const float* panel, ops::Index column_stride, ops::Index depth_stride, int cols, ops::Index k, unsigned char* group);

// As vnni_group, for a bf16 group of `pairs` pairs of depths: y = Σ over the pairs, 32 rows at a
// time by AMX's tdpbf16ps where `amx`, the others by vdpbf16ps.
void bf16_group(const Bf16Rows& x, ops::Index row0, ops::Index rows, const unsigned char* group, ops::Index pairs, float* y, ops::Index ldy,
                int cols, bool accumulate, bool amx);

// [SECTION] Q8_0 and Q4_0 (AVX512-VNNI)

// The unsigned weights' offset from the signed values: Q8_0 q + 128, Q4_0's nibble q + 8. Defined
// in core/model/fast_product.cpp, built for any x86-64, as the AVX2 and AVX-VNNI packing use it too.
int weight_offset(WeightType t);

// Columns c0 … c0+cols−1 (cols ≤ 16) of W (out, in) in Q8_0 or Q4_0 packed as vnni_group reads
// them into `group` (64-byte aligned, blocks · packed_block_bytes); the missing columns are weights
// 0 at scale 0.
void pack_group(const Weights::Tensor& W, ops::Index c0, int cols, ops::Index blocks, unsigned char* group);

// x (m, k) row stride ldx quantized per block of 32 (k a multiple of 32), as QuantizedRows says,
// for weights stored as value + offset.
void quantize_rows(const float* x, ops::Index ldx, ops::Index m, ops::Index k, int offset, QuantizedRows& out);

// y (rows, cols ≤ 16) row stride ldy, = or += the product of x's rows row0 … row0+rows−1 with one
// packed group of `blocks` blocks. Per block the integer sums are exact; their scaled sum
// acc = fma(float(Σ), d_w · d_x, acc) runs over the blocks in order.
void vnni_group(const QuantizedRows& x, ops::Index row0, ops::Index rows, const unsigned char* group, ops::Index blocks,
                float* y, ops::Index ldy, int cols, bool accumulate);

} // namespace core::model::fast
