// core/model/weight_rows.h — x · Wᵀ for F16 or BF16 weights stored (out, in), each weight widened
// to float32 as the kernel takes it: no panel of float32 weights is written and then packed again,
// as for oneDNN's sgemm. (ggml's blocks have their own kernel at every level: core/model/block_dot.h.)
//
// An AVX-512 micro-kernel (core/model/weight_rows_avx512.cpp) broadcasts 14 weight rows, widened
// into a buffer of 14 × 512 floats that stays in L1, against x's rows packed transposed 32 at a
// time, and keeps 14 × 32 sums in registers. For float32 weights in place oneDNN stays: this
// kernel took 314 against its 408 GFLOP/s on GPT-2's LM head at 1024 rows (330 against 360 at 128),
// and one kernel for every count of rows keeps a row's bits the same alone or in a batch. Each
// output is one chain of float32 multiply-adds over k in order (for k past 2048, one such chain per
// 2048 added up in order), so its bits do not depend on m, on the row's place among them, on the
// columns a thread takes or on the number of threads. The fast products' bf16 runs the same
// kernel on pairs of depths rounded to bf16 (vdpbf16ps), F32 weights included.
//
// Measured against the path it replaces (a 128-column panel widened to float32, then oneDNN's
// sgemm), 2 threads, same minutes: bench/RESULTS.md.
#pragma once

#include "core/model/ops.h"

#include <cstdint>

namespace core::model::weight_rows {

struct Product {
    const float* x;  // (m, k) row stride ldx
    ops::Index ldx, m, k;
    enum class Stored { f32, f16, bf16 } stored;
    // Weight row j's bytes as stored (any alignment): block_bytes a value (block_values is 1).
    const unsigned char* (*row)(const void* tensor, ops::Index j);
    ops::Index block_values, block_bytes;
    const void* tensor;
    float* y;        // (m, n) row stride ldy, pointing at column c0
    ops::Index ldy;
    bool accumulate; // y += instead of y =
    // The fast products' bf16 (F32, F16 and BF16 only, where fast::bf16_available()): weights and x
    // rounded to bf16 (nearest even), pairs of depths multiplied by vdpbf16ps into float32 sums.
    bool bf16 = false;
};

// Columns c0 … c1−1 on the calling thread. Only where core::kernel_build() is x86-64-v4.
void product_columns(const Product& p, ops::Index c0, ops::Index c1);

} // namespace core::model::weight_rows
