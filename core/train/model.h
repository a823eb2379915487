// core/train/model.h — the parameters of the tiny transformer, its forward pass and its hand-written
// backward pass (in the style of llm.c: numbered passes, each backward beside its forward, shapes in
// comments). Row vectors throughout: one token is one row, x · W.
//
//   x₀ = W_E[token] + W_pos[position]                                   (N, D), N = B·t
//   per layer:  x ← x + concat_h(softmax_causal(q_h k_hᵀ / √d_head) v_h) · W_O,
//               q_h, k_h, v_h = LN₁(x) · W_Q[h], W_K[h], W_V[h]
//               x ← x + GELU_tanh(LN₂(x) · W_in + b_in) · W_out + b_out   (with the MLP)
//   logits = LN_f(x) · W_U                                               (N, vocab)
//   loss = mean cross-entropy over the scored positions
#pragma once

#include "core/heads/head.h"
#include "core/scenario.h" // core::Matrix (row-major)
#include "core/train/config.h"
#include "core/train/rng.h"
#include "core/train/tasks.h"

#include <Eigen/Core>
#include <string>
#include <vector>

namespace core::train {

using MatrixMap = Eigen::Map<Matrix>;
using ConstMatrixMap = Eigen::Map<const Matrix>;

// One tensor in the flat parameter vector. W_Q, W_K and W_V are kept as (D, H·d_head): the heads side
// by side, so that one product makes every head's q; the file stores them as (H, D, d_head).
struct TensorSpec {
    std::string name; // the file's name, e.g. "blocks.0.attn.W_Q"
    int rows = 0, cols = 0;
    bool decay = false; // weight decay applies (matrices, not LN gains or biases)
    size_t offset = 0;
    size_t size() const { return static_cast<size_t>(rows) * static_cast<size_t>(cols); }
};

// Indices into Layout::tensors for one layer (-1 for the MLP's when it is off).
struct LayerIds {
    int ln1_w, ln1_b, W_Q, W_K, W_V, W_O;
    int ln2_w = -1, ln2_b = -1, W_in = -1, b_in = -1, W_out = -1, b_out = -1;
};

struct Layout {
    ModelConfig config;
    std::vector<TensorSpec> tensors;
    int W_E, W_pos, lnf_w, lnf_b, W_U;
    std::vector<LayerIds> layers;
    size_t total = 0;

    explicit Layout(const ModelConfig& m);
    int find(const std::string& name) const; // -1 when absent
};

struct Model {
    Layout layout;
    std::vector<double> params; // layout.total values

    explicit Model(const ModelConfig& m) : layout(m), params(layout.total, 0.0) {}
    const ModelConfig& config() const { return layout.config; }
    MatrixMap tensor(int id) { return view(params, id); }
    ConstMatrixMap tensor(int id) const { return view(params, id); }
    MatrixMap view(std::vector<double>& flat, int id) const;
    ConstMatrixMap view(const std::vector<double>& flat, int id) const;
};

// Gains 1, biases 0; matrices N(0, σ²) with σ as Init says.
void initialise(Model& model, Init init, Rng& rng);

// What the forward pass keeps for the backward pass and for the pictures, sized for B × t.
// Reused from step to step: resize() allocates only when the batch grows.
struct Workspace {
    struct LN {
        Matrix xhat;            // (N, D) normalised input
        Eigen::VectorXd rstd;   // (N) 1 / sqrt(var + 1e-5)
    };
    struct LayerCache {
        Matrix resid_in;        // (N, D) x entering the layer
        LN ln1;
        Matrix a1;              // (N, D) LN₁(x)
        Matrix q, k, v;         // (N, H·d_head)
        std::vector<double> att;// (B, H, t, t) attention probabilities, zero above the diagonal
        Matrix y;               // (N, H·d_head) heads concatenated
        Matrix resid_mid;       // (N, D) after attention
        LN ln2;
        Matrix a2;              // (N, D) LN₂(x)
        Matrix hpre, hact;      // (N, 4D) before and after the GELU
    };
    int B = 0, t = 0;
    std::vector<LayerCache> layers;
    Matrix resid_out;           // (N, D)
    LN lnf;
    Matrix af;                  // (N, D) LN_f(x)
    Matrix logits;              // (N, vocab)
    // backward scratch
    Matrix dresid, da, dq, dk, dv, dy, dh, dlogits;
    Matrix dscores;             // (t, t)

    void resize(const ModelConfig& m, int B, int t);
    // The attention of sequence b, layer l, head h: (t, t) row-major.
    ConstMatrixMap attention(int l, int b, int h) const;
};

// Heads whose output y_h = A_h v_h (before W_O) is replaced, for the forward pass only (training never
// knocks heads out): by zero, or by its mean over the positions of its own sequence.
using core::heads::Knockouts;

// Throws std::invalid_argument naming a knocked-out head the model does not have ("no head 3.1 …").
void check_knockouts(const ModelConfig& m, const Knockouts* knockouts);

struct LossSum {
    double loss = 0.0; // summed over the scored positions
    int correct = 0;   // argmax = target
    int scored = 0;
};

// Forward pass over sequences [first, first + ws.B) of `batch` (ws must be resized to that).
// Returns the summed loss; the logits stay in ws.logits. With `knockouts`, ws.layers[l].y holds the
// replaced outputs, and backward() must not follow.
LossSum forward(const Model& model, const Batch& batch, int first, Workspace& ws, const Knockouts* knockouts = nullptr);

// Backward pass after forward(): adds d(loss_sum / normaliser)/dθ to `grad` (layout.total values).
void backward(const Model& model, const Batch& batch, int first, Workspace& ws, double normaliser, std::vector<double>& grad);

} // namespace core::train
