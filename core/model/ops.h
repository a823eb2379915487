// core/model/ops.h — the float32 loops of the model forwards, built once per instruction set.
//
// As core/kernels.h does for compute_into: core/model/ops_impl.h is compiled once per x86-64
// level (ops_generic.cpp, ops_x86_64_v3.cpp, ops_x86_64_v4.cpp) with Eigen's namespace renamed,
// and the best build the CPU runs is picked at run time (the same choice as core::kernel_build()).
// A gemm of two or more rows is oneDNN's (core/model/sgemm.h) in the x86-64-v4 build and our own
// (core/model/chain_gemm.h) in the others, so that ATTNVIZ_KERNELS also chooses the product's
// kernel; one row streams B through this build's own loops. Plain pointers only: no Eigen type
// crosses this header.
#pragma once

#include <cstddef>

namespace core::model::ops {

using Index = std::ptrdiff_t;

// C = A · B (+ C when accumulate). A (m, k) row-major with row stride lda. B is (k, n) row-major
// with row stride ldb (GPT-2's Conv1D weights, V), or with b_transposed (n, k) row-major with row
// stride ldb (nn.Linear weights, Kᵀ). C (m, n) row-major with row stride ldc.
struct Gemm {
    const float* A;
    Index lda;
    const float* B;
    Index ldb;
    bool b_transposed;
    float* C;
    Index ldc;
    Index m, k, n;
    bool accumulate = false;
};

// One head of attention over the cache: rows are queries at positions first_pos … first_pos+m-1,
// keys at 0 … keys-1. Key j is visible to query p when (!causal || j <= p) and
// (window == 0 || p - j < window). Scores are q · kᵀ · scale, then (Gemma 2) softcap · tanh(score /
// softcap) where softcap > 0, then masked and softmaxed. With a learned sink (gpt-oss) one more
// logit, `*sink` as it is (no scale, no mask), joins each row's softmax and passes no value: the row's
// key weights then sum to 1 − its sink share.
struct Attend {
    const float* q;  // (m, d) row stride ldq
    Index ldq;
    const float* k;  // (keys, d) row stride ldk
    const float* v;  // (keys, d) row stride ldk
    Index ldk;
    Index m, keys, d;
    Index first_pos;
    bool causal;
    Index window;
    float scale;     // scores · scale before the softmax
    float* weights;  // (m, keys) contiguous: the softmax, exactly 0 where masked
    float* out;      // (m, d) row stride ldo: weights · v; null: the weights alone (v unread)
    Index ldo;
    float* entropy = nullptr; // (m) where given: each row's −Σ w ln w (nats), from the softmax itself
    float softcap = 0.0f;     // 0: none
    const float* sink = nullptr; // the head's learned sink logit, or null: none
    float* sink_share = nullptr; // (m) where given with a sink: each row's weight on the sink
};

// y (+)= x · Wᵀ for weights stored (out, in) that `read` dequantizes: core/model/block_dot.h.
struct BlockProduct {
    const float* x; // (m, k) row stride ldx; k a multiple of 32
    Index ldx, m, k;
    // Weight rows j … j+count−1 at depths k0 … k0+kc−1 (whole blocks) as float32 into dst, rows ld apart.
    void (*read)(const void* tensor, Index j, Index count, Index k0, Index kc, float* dst, Index ld);
    const void* tensor;
    Index block_values, block_bytes; // a block's values and bytes
    const unsigned char* (*row)(const void* tensor, Index j); // weight row j's bytes as stored
    float* y;       // (m, n) row stride ldy, pointing at column c0
    Index ldy;
    bool accumulate; // y += instead of y =
    // Blocks whose values the kernel dequantizes itself, in registers, for a few rows of x (the same
    // values as `read`'s): ggml's Q8_0 and MXFP4.
    enum class Fused { none, q8_0, mxfp4 } fused = Fused::none;
};

enum class Activation { gelu_tanh, gelu_erf, relu, silu, quick_gelu };

struct Set {
    const char* name;
    // With `parallel`, column blocks of C are shared out by core::parallel::for_each.
    void (*gemm)(const Gemm& g, bool parallel);
    // Single-threaded: the caller shares heads out.
    void (*attend)(const Attend& a);
    // The next four share their values or rows between the cores (core::parallel::for_each) in
    // pieces computed as each would be alone: the same bits on any number of threads.
    // x ← act(x), n values.
    void (*activate)(float* x, Index n, Activation act);
    // gate ← act(gate) · up, n values (the SwiGLU MLP).
    void (*gated)(float* gate, const float* up, Index n, Activation act);
    // y = (x − mean) / √(var + eps) · w + b per row of d values; x and y may be the same.
    void (*layer_norm)(const float* x, float* y, Index rows, Index d, const float* w, const float* b, float eps);
    // y = x / √(mean(x²) + eps) · w per row.
    void (*rms_norm)(const float* x, float* y, Index rows, Index d, const float* w, float eps);
    // The largest of n > 0 values and Σ exp(x − largest) in double: one block's share of a softmax.
    void (*max_exp_sum)(const float* x, Index n, float* max, double* sum);
    // Columns c0 … c1−1 of a BlockProduct, on the calling thread: the same bits for an output at any m.
    void (*block_product)(const BlockProduct& p, Index c0, Index c1);
};

const Set* generic();
const Set* x86_64_v3();
const Set* x86_64_v4();

// The build matching core::kernel_build().
const Set& active();

// C = A · B, single-threaded, on active()'s gemm: core::heads::FloatProduct, for the rollout.
void product(const float* A, Index lda, const float* B, Index ldb, float* C, Index ldc, Index m, Index k, Index n);

} // namespace core::model::ops
