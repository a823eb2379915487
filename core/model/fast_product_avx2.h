// core/model/fast_product_avx2.h — the fast products' int8 micro-kernels for x86-64-v3, for CPUs
// without AVX512-VNNI and for ATTNVIZ_KERNELS=x86-64-v3: AVX2's (fast_product_avx2.cpp, built with
// -march=x86-64-v3) and AVX-VNNI's where the CPU has it (fast_product_avx_vnni.cpp, built with
// -march=x86-64-v3 -mavxvnni); called only where the kernels in use are x86-64-v3's or x86-64-v4's.
//
// It computes what vnni_group computes (core/model/fast_product_avx512.h), to the bit: each block's
// integer sum Σ w · x exactly, then acc = fma(float(Σ), d_w · d_x, acc) over the blocks in order.
// AVX2 has no vpdpbusd; vpmaddubsw multiplies unsigned by signed bytes into saturating 16-bit pair
// sums, so the weights are packed signed and the product taken as |w| · (x with w's sign) (llama.cpp's
// AVX2 dot products take |x| · (w with x's sign), which is wrong for a weight of −128): |w| ≤ 128 as
// an unsigned byte and |x| ≤ 127 keep each pair sum within 32512, so every sum is exact.
#pragma once

#include "core/model/fast_product_avx512.h" // QuantizedRows, group_columns, packed_block_bytes

namespace core::model::fast::avx2 {

// Columns c0 … c0+cols−1 (cols ≤ 16) of W (out, in) in Q8_0 or Q4_0 packed as int8_group (offset 0)
// and avx_vnni_group (offset fast::weight_offset) read them: per block of 32 depths, 8 × 64 bytes
// (byte 64·r + 4·c + e is column c's value at depth 4·r + e plus offset, as a byte) and then the 16
// columns' scales in float32; the missing columns are bytes 0 at scale 0.
void pack_group(const Weights::Tensor& W, ops::Index c0, int cols, ops::Index blocks, int offset, unsigned char* group);

// As fast::quantize_rows, to the bit (the same rounding of the same float32 operations).
void quantize_rows(const float* x, ops::Index ldx, ops::Index m, ops::Index k, int offset, QuantizedRows& out);

// As fast::vnni_group, to the bit, on a group packed by avx2::pack_group with offset 0.
void int8_group(const QuantizedRows& x, ops::Index row0, ops::Index rows, const unsigned char* group, ops::Index blocks, float* y,
                ops::Index ldy, int cols, bool accumulate);

// As fast::vnni_group, to the bit, on a group packed with offset fast::weight_offset (AVX-VNNI's
// vpdpbusd on 256-bit registers; only where the CPU has AVX-VNNI).
void avx_vnni_group(const QuantizedRows& x, ops::Index row0, ops::Index rows, const unsigned char* group, ops::Index blocks, float* y,
                    ops::Index ldy, int cols, bool accumulate);

} // namespace core::model::fast::avx2
