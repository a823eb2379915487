// core/model/fast_product.h — the opt-in fast products (ForwardOptions::fast_products).
//
// Q8_0 and Q4_0 weights (out, in) times activations quantized as llama.cpp quantizes them for such
// a product: per row, per block of 32 values, d = max|x| / 127 and q = round(x / d) in int8 (d kept
// in float32 here, not rounded to half as ggml stores it). The block's integer dot product runs on
// AVX512-VNNI (vpdpbusd), or where the CPU lacks it or the kernels in use are x86-64-v3's on
// AVX-VNNI (vpdpbusd on 256 bits) or AVX2 (vpmaddubsw, core/model/fast_product_avx2.h), to the same
// bits; and y = Σ_blocks d_w · d_x · Σ q_w q_x accumulates in float32. F32, F16 and BF16 weights,
// either layout, where the CPU has AVX512-BF16: weights and activations rounded to bf16 (nearest
// even) and multiplied into float32 sums, 32 rows at a time by AMX's tdpbf16ps where the CPU has
// AMX-BF16, the others by vdpbf16ps. (On a Sapphire-Rapids-class CPU vdpbf16ps runs no more sums a
// cycle than FMA, and AMX is what makes bf16 faster; AMD's Zen 4 runs vdpbf16ps at twice FMA's
// sums.) Without AMX, weights stored (out, in) take core/model/weight_rows.h's kernel in bf16
// instead, which packs no panel of weights; one row stays exact. The K-quants, and CPUs without the
// instructions, take the exact products.
#pragma once

#include "core/model/format/weights.h"
#include "core/model/ops.h"

#include <string>

namespace core::model::fast {

// True where the kernels in use (core::kernel_build, ATTNVIZ_KERNELS) are x86-64-v3's or v4's: the
// int8 products of Q8_0 and Q4_0 weights, on AVX512-VNNI where the CPU has it and the level is v4,
// else on AVX-VNNI where the CPU has that (Intel's cores since Alder Lake), else on AVX2.
bool available();
// "" when available(), else one line saying why not: what the CPU lacks, or the level in use.
std::string unavailable_reason();
// available(), the kernels in use x86-64-v4's and the CPU with AVX512-BF16: the 16- and 32-bit
// weights' bf16 products.
bool bf16_available();
// "" when bf16_available(), else one line saying why F32, F16 and BF16 weights stay exact.
std::string bf16_unavailable_reason();
// What --fast does on this CPU at the kernel level in use, in one line (--version).
std::string summary();
// bf16_available() and AMX-BF16: the bf16 products on AMX's tiles (product() below). Without them
// core/model/weight_rows.h runs the bf16 products of weights stored (out, in).
bool tiles_available();
// Whether x86-64-v3's int8 products may take AVX-VNNI's kernel where the CPU has it (true unless
// told otherwise): false keeps them on AVX2's, to test and time that kernel on such a CPU. Returns
// the previous setting.
bool use_avx_vnni(bool on);

// y (m, n) row stride ldy, = or += x (m, k) row stride ldx times W (n, k)ᵀ or W (k, n).
struct Product {
    const float* x;
    ops::Index ldx, m;
    const Weights::Tensor* W;
    float* y;
    ops::Index ldy;
    bool accumulate;
    bool out_in = true; // W (n, k) as stored; false: (k, n)
};

// Whether the fast kernels take W times m rows: Q8_0 or Q4_0 stored (out, in) with rows of whole
// blocks where available(); F32, F16 or BF16 either way where bf16_available(), for two or more
// rows (one row is bound by reading the weights, which rounding them into a panel first only slows:
// a Llama-1B-sized BF16 forward at t = 1 took 968 ms that way against 132 exact on AMD's Zen 4).
bool covers(const Weights::Tensor& W, bool out_in, ops::Index m);

// As core::model::product (every column, shared across the cores) and product_columns (columns
// c0 … c1−1 on the calling thread, y pointing at column c0), for a W that covers() takes.
void product(const Product& p);
void product_columns(const Product& p, ops::Index c0, ops::Index c1);

} // namespace core::model::fast
