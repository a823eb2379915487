// core/train/gpt2.h — a GPT-2 (transformers' GPT2LMHeadModel) that attnviz trains: its parameters
// under GPT-2's own names and layouts, its forward pass and its hand-written backward pass.
//
//   x₀ = wte[token] + wpe[position]                                        (N, C), N = B·T
//   per block h.l (pre-LN, layer_norm_epsilon 1e-5):
//     q, k, v = split(LN₁(x) · c_attn.weight + c_attn.bias)                Conv1D (C, 3C)
//     x ← x + concat_h(softmax_causal(q_h k_hᵀ / √(C/H)) v_h) · attn.c_proj   Conv1D (C, C)
//     x ← x + gelu_new(LN₂(x) · mlp.c_fc) · mlp.c_proj                     Conv1D (C, 4C), (4C, C)
//   logits = LN_f(x) · wteᵀ                                                the head tied to wte
//
// The passes are numbered, and each backward sits beside its forward in the same order (llm.c).
// Templated on the scalar: float for training, double for the gradient check.
#pragma once

#include "core/train/gpt2_ops.h"

#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

namespace core::train {

// 64-byte aligned storage: Eigen's vectorised sums start at the same place in every buffer, so the
// same inputs give the same bits whichever buffer a chunk of the batch lands in.
template <class T>
struct Aligned64 {
    using value_type = T;
    Aligned64() = default;
    template <class U>
    Aligned64(const Aligned64<U>&) {}
    T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
    void deallocate(T* p, std::size_t) { ::operator delete(p, std::align_val_t(64)); }
    template <class U>
    bool operator==(const Aligned64<U>&) const { return true; }
    template <class U>
    bool operator!=(const Aligned64<U>&) const { return false; }
};
template <class T>
using Buffer = std::vector<T, Aligned64<T>>;

struct Gpt2Config {
    int vocab = 0;     // vocab_size
    int n_ctx = 128;   // n_positions (= n_ctx): rows of wpe
    int n_embd = 128;  // C
    int n_head = 4;    // H; head size C / H
    int n_layer = 4;   // L
    int head_size() const { return n_embd / n_head; }
    bool operator==(const Gpt2Config& o) const {
        return vocab == o.vocab && n_ctx == o.n_ctx && n_embd == o.n_embd && n_head == o.n_head && n_layer == o.n_layer;
    }
};

constexpr double gpt2_layer_norm_epsilon = 1e-5;

// Empty when the model can be built, else the first problem ("n_embd = 30 is not a multiple of n_head = 4").
std::string validate(const Gpt2Config& c);

// One tensor as GPT-2's checkpoint names and shapes it (vectors 1-D), and where it is in the flat vector.
struct Gpt2Tensor {
    std::string name;                 // "h.0.attn.c_attn.weight"
    std::vector<std::int64_t> shape;  // (768, 2304) for that one in gpt2
    std::size_t offset = 0, size = 0;
    bool decay = false;               // weight decay applies: the matrices
};

struct Gpt2Layout {
    struct Block {
        int ln_1_w, ln_1_b, c_attn_w, c_attn_b, attn_proj_w, attn_proj_b;
        int ln_2_w, ln_2_b, c_fc_w, c_fc_b, mlp_proj_w, mlp_proj_b;
    };
    Gpt2Config config;
    std::vector<Gpt2Tensor> tensors; // wte, wpe, h.0 … h.{L-1}, ln_f
    std::vector<Block> blocks;
    int wte = 0, wpe = 0, ln_f_w = 0, ln_f_b = 0;
    std::size_t total = 0;

    explicit Gpt2Layout(const Gpt2Config& c);
    int find(const std::string& name) const; // -1 when absent
};

// GPT-2's initialisation: matrices N(0, 0.02²), the two residual projections of each block
// N(0, (0.02/√(2L))²), biases 0, LN gains 1.
template <class T>
std::vector<T> gpt2_initial_params(const Gpt2Layout& layout, std::uint64_t seed);

// What the forward pass keeps for the backward pass and for the attention pictures, for B × T tokens.
template <class T>
struct Gpt2Activations {
    struct Block {
        Buffer<T> ln1, ln1_mean, ln1_rstd;  // (N, C), (N), (N)
        Buffer<T> qkv;                      // (N, 3C)
        Buffer<T> att;                      // (B, H, T, T)
        Buffer<T> atty;                     // (N, C) the heads concatenated
        Buffer<T> res_attn;                 // (N, C) x after the attention
        Buffer<T> ln2, ln2_mean, ln2_rstd;  // (N, C), (N), (N)
        Buffer<T> fch, fch_gelu;            // (N, 4C)
        Buffer<T> res_mlp;                  // (N, C) x after the MLP
    };
    int B = 0, T_ = 0;
    Buffer<T> encoded;                      // (N, C)
    std::vector<Block> blocks;
    Buffer<T> lnf, lnf_mean, lnf_rstd;      // (N, C), (N), (N)
    Buffer<T> logits;                       // (N, V); the backward turns it into dlogits
    Buffer<T> losses;                       // (N)
    Buffer<T> dres, dbuf, dqkv, datty, dfch, scratch; // backward scratch

    void resize(const Gpt2Config& c, int batch, int len);
    // The attention of layer l, sequence b, head h: (T, T) row-major.
    const T* attention(int l, int b, int h) const;
};

// Forward pass over B sequences of T tokens (inputs (B, T)); targets (B, T) with -1 where not scored,
// or null. Returns the loss summed over the scored positions; logits stay in acts.logits.
template <class T>
double gpt2_forward(const Gpt2Layout& layout, const T* params, const int* inputs, const int* targets, int B, int T_,
                    Gpt2Activations<T>& acts, const gpt2_ops::Set<T>& ops);

// After gpt2_forward with the same inputs and targets: adds d(loss_sum · scale)/dθ to grads (layout.total).
template <class T>
void gpt2_backward(const Gpt2Layout& layout, const T* params, T* grads, const int* inputs, const int* targets,
                   Gpt2Activations<T>& acts, T scale, const gpt2_ops::Set<T>& ops);

} // namespace core::train
