// core/train/model_f32.h — the tiny transformer's training pass in float32: forward and backward
// of core/train/model.h, the same passes on the same parameters, run by the float32 loops of
// core/train/gpt2_ops.h that are built for this CPU (AVX2 or AVX-512 where it has them).
//
// The double pass (model.h) stays the reference: it is checked against finite differences, and this
// one against it. The trainer keeps its parameters, AdamW and clipping in double either way.
#pragma once

#include "core/train/gpt2.h" // Buffer: 64-byte aligned, so that a seed gives the same bits in any buffer
#include "core/train/model.h"

#include <vector>

namespace core::train {

// A Model's parameters in float32, in its layout; and per layer W_Q, W_K, W_V side by side as one
// (D, 3·HK) matrix, so that one product gives q, k and v packed as gpt2_ops' attention reads them.
struct ParamsF32 {
    Buffer<float> flat;             // layout.total
    std::vector<Buffer<float>> qkv; // L × (D, 3·HK)
    void load(const Model& model);
};

// The activations of B sequences of t tokens, and the float32 gradients; reused from step to step.
struct WorkspaceF32 {
    struct Layer {
        Buffer<float> resid_in, a1, mean1, rstd1, qkv, att, y, resid_mid; // (N, D) … (B, H, t, t)
        Buffer<float> a2, mean2, rstd2, hpre, hact;                       // the MLP's
        Buffer<float> dqkv_W;                                             // (D, 3·HK) gradient
    };
    int B = 0, t = 0;
    std::vector<Layer> layers;
    Buffer<float> resid_out, af, meanf, rstdf, logits, losses; // (N, D) … (N)
    Buffer<float> dresid, da, dy, dqkv, dh, scratch, branch;   // backward scratch
    Buffer<float> grad;                                        // layout.total

    void resize(const ModelConfig& m, int B, int t);
};

// The forward pass over sequences [first, first + ws.B) of `batch`, with those heads knocked out
// (model.h's Knockouts) if given: the summed loss, its argmax hits and the logits in ws.logits.
LossSum forward_f32(const Model& model, const ParamsF32& params, const Batch& batch, int first, WorkspaceF32& ws,
                    const Knockouts* knockouts = nullptr, const gpt2_ops::Set<float>& ops = gpt2_ops::best_f32());

// Forward and backward over sequences [first, first + B) of `batch`, ws resized to B × t: overwrites
// `grad` (layout.total values, double) with d(loss_sum / normaliser)/dθ and returns the loss sum.
LossSum forward_backward_f32(const Model& model, const ParamsF32& params, const Batch& batch, int first, WorkspaceF32& ws,
                             double normaliser, std::vector<double>& grad,
                             const gpt2_ops::Set<float>& ops = gpt2_ops::best_f32());

} // namespace core::train
