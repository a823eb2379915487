// core/model/fast_product.h — the opt-in fast products (ForwardOptions::fast_products).
//
// Q8_0 weights (out, in) times activations quantized as llama.cpp quantizes them for such a
// product: per row, per block of 32 values, d = max|x| / 127 and q = round(x / d) in int8 (d kept in
// float32 here, not rounded to half as ggml stores it). The block's integer dot product runs on
// AVX512-VNNI (vpdpbusd), and y = Σ_blocks d_w · d_x · Σ q_w q_x accumulates in float32. Other
// weight types, and CPUs without the instructions, take the exact products.
#pragma once

#include "core/model/format/weights.h"
#include "core/model/ops.h"

#include <string>

namespace core::model::fast {

// True where the CPU and the OS run the fast kernels (AVX-512 with VNNI; cpuid and xgetbv) and
// the kernels in use (core::kernel_build, ATTNVIZ_KERNELS) are x86-64-v4's.
bool available();
// "" when available(), else one line saying what the CPU lacks.
std::string unavailable_reason();

// y (m, n) row stride ldy, = or += x (m, k) row stride ldx times Wᵀ, W (n, k) as stored.
struct Product {
    const float* x;
    ops::Index ldx, m;
    const Weights::Tensor* W;
    float* y;
    ops::Index ldy;
    bool accumulate;
};

// Whether the fast kernels take W (n, k) stored (out, in): available(), Q8_0, rows of whole blocks.
bool covers(const Weights::Tensor& W);

// As core::model::product (every column, shared across the cores) and product_columns (columns
// c0 … c1−1 on the calling thread, y pointing at column c0), for a W that covers() takes.
void product(const Product& p);
void product_columns(const Product& p, ops::Index c0, ops::Index c1);

} // namespace core::model::fast
