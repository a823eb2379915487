// core/model/weight_product.h — products with a weight matrix as it lies in its file.
//
// A float32 weight in place goes straight to the float32 kernel (ops::Gemm). ggml's blocks, at any
// number of rows and every level, go to ops::Set::block_product (core/model/block_dot.h): a dot
// product per output, each block dequantized into L1 just before its multiply-adds, in an order that
// gives a row the same bits alone or among others. F16 or BF16 weights stored (out, in): one row of x
// is a dot product per output over its weight row as it lies (a decoding step reads each weight
// once); more rows go to core/model/weight_rows.h, which widens each weight as it multiplies, where
// the AVX-512 build runs. Any other (float32 in a row order, 16-bit (in, out) or without AVX-512) is
// read a panel of output columns at a time: its weights widened into a thread-local buffer, then the
// float32 kernel on that panel. No whole float32 copy of the matrix is ever made.
#pragma once

#include "core/model/format/weights.h"
#include "core/model/ops.h"

namespace core::model {

// How a weight matrix is stored: GPT-2's Conv1D keeps (in, out), nn.Linear keeps (out, in).
enum class Layout { in_out, out_in };

struct WeightProduct {
    const float* x;           // (m, k) row stride ldx
    ops::Index ldx, m;
    const Weights::Tensor* W; // (n, k) for out_in, (k, n) for in_out
    Layout layout;
    float* y;                 // (m, n) row stride ldy
    ops::Index ldy;
    bool accumulate = false;  // y += instead of y =
    bool fast = false;        // the fast products where they take W (core/model/fast_product.h)
};

// While one lives, the products this thread calls run fast (as WeightProduct::fast): the forward
// opens one on its own thread for ForwardOptions::fast_products. A body that core::parallel runs on
// a helper thread sees no scope (it is per thread): its job passes WeightProduct::fast itself.
class FastScope {
public:
    explicit FastScope(bool on);
    ~FastScope();
    FastScope(const FastScope&) = delete;
    FastScope& operator=(const FastScope&) = delete;
    static bool open(); // on this thread

private:
    bool before_;
};

// Output columns c0 … c1−1 of the product, on the calling thread; y points at column c0.
void product_columns(const WeightProduct& p, ops::Index c0, ops::Index c1);

// All n columns, panels shared out across the cores (core::parallel; not from inside for_each).
void product(const WeightProduct& p);

// Output columns per panel. Measured on oneDNN's sgemm at a Llama-1B-sized layer's shapes from BF16
// (q, k, up, down at t = 32 and 128, bench/bench_products.cpp's forward/llama/BF16, one thread, CPU
// time): 64 columns cost 13–40 % more than 128, 256 and 512 within ±10 % of 128; with 128, the up
// and down products at t = 128 take the F32 kernel's time on weights in place + 5 %. The panel is
// 4 MB at a depth of 8192.
constexpr ops::Index panel_columns = 128;

} // namespace core::model
