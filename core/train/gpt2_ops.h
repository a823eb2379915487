// core/train/gpt2_ops.h — the numbered passes of GPT-2's forward and backward (core/train/gpt2.h),
// each built once per instruction set and picked at run time, as core/kernels.h does for attention.
//
// In the style of llm.c: plain pointers, row-major, shapes in the names. N = B·T rows (tokens),
// C = n_embd, OC = the output width of a Conv1D, H = n_head. A "Conv1D" weight is stored (in, out),
// as GPT-2 stores it: out = inp · W + b. Backward functions ADD into the gradients they are given
// (so a tied or reused weight sums its parts) except where it says "overwrites".
#pragma once

#include <cstddef>

namespace core::train::gpt2_ops {

template <class T>
struct Set {
    const char* name; // "generic", "x86-64-v3", "x86-64-v4"
    // out (N, OC) = inp (N, C) · W (C, OC) + bias (OC); bias may be null. Overwrites out.
    void (*matmul_forward)(T* out, const T* inp, const T* W, const T* bias, int N, int C, int OC);
    // dinp (N, C) += dout · Wᵀ; dW (C, OC) += inpᵀ · dout; dbias (OC) += Σ_rows dout (when not null).
    void (*matmul_backward)(T* dinp, T* dW, T* dbias, const T* dout, const T* inp, const T* W, int N, int C, int OC);
    // The tied LM head: logits (N, V) = inp (N, C) · wteᵀ, wte (V, C). Overwrites logits.
    void (*unembed_forward)(T* logits, const T* inp, const T* wte, int N, int C, int V);
    // dinp (N, C) overwritten with dlogits · wte; dwte (V, C) += dlogitsᵀ · inp.
    void (*unembed_backward)(T* dinp, T* dwte, const T* dlogits, const T* inp, const T* wte, int N, int C, int V);
    // out = (inp - mean) · rstd · w + b per row, rstd = 1 / √(var + eps) with the biased variance.
    void (*layernorm_forward)(T* out, T* mean, T* rstd, const T* inp, const T* w, const T* b, int N, int C, T eps);
    void (*layernorm_backward)(T* dinp, T* dw, T* db, const T* dout, const T* inp, const T* w, const T* mean, const T* rstd,
                               int N, int C);
    // Causal self-attention of B sequences of T_ tokens. qkv (B·T_, 3C): q, k and v side by side,
    // head h in columns [h·C/H, (h+1)·C/H) of each. out (B·T_, C) the heads concatenated;
    // att (B, H, T_, T_) the softmax weights, zero above the diagonal.
    void (*attention_forward)(T* out, T* att, const T* qkv, int B, int T_, int C, int H);
    // dqkv (B·T_, 3C) overwritten; scratch holds T_·T_ values.
    void (*attention_backward)(T* dqkv, T* scratch, const T* dout, const T* qkv, const T* att, int B, int T_, int C, int H);
    // GELU with the tanh approximation (transformers' "gelu_new"), n values.
    void (*gelu_forward)(T* out, const T* inp, std::ptrdiff_t n);
    // dinp = dout · GELU'(inp), overwrites dinp (may be dout itself).
    void (*gelu_backward)(T* dinp, const T* inp, const T* dout, std::ptrdiff_t n);
    // Per row of logits (N, V): the loss -log softmax[target] in losses (N); with dlogits, writes
    // (softmax - onehot) · scale there (may be logits itself). Rows with target < 0 get loss 0, grad 0.
    void (*crossentropy)(T* losses, T* dlogits, const T* logits, const int* targets, int N, int V, T scale);
};

const Set<float>* generic_f32();
const Set<double>* generic_f64(); // the double path, for the gradient check
const Set<float>* x86_64_v3_f32(); // only in x86-64 builds (ATTNVIZ_X86_KERNELS), only on such CPUs
const Set<float>* x86_64_v4_f32();

// The float32 build for this CPU: the one core::kernel_build() names, else generic.
const Set<float>& best_f32();

} // namespace core::train::gpt2_ops
