// core/model/arch/feed_forward.h — the feed-forward kinds of a decoder layer: the block that takes the
// stream after its norm, a (t, D), and adds its output to the stream x (t, D). Each kind owns its
// tensors, its forward and what it offers the views:
//
//   Dense    act(a · gate_projᵀ (+ b)) ⊙ (a · up_projᵀ (+ b)) · down_projᵀ (+ b)   (gate | up fused for Phi-3)
//   Mixture  the router's logits a · gateᵀ (t, E) → a routing rule picks each position's top_k experts
//            and their weights; each chosen expert runs on its positions alone (a dense block of
//            width d_expert, its activation a row of expert_activations()), its output times its weight
//            added to x. The routing goes to ForwardResult::routing.
//
// A routing rule and an expert activation are rows of their tables below: a new one (gpt-oss's top-k
// of the logits then a softmax over the chosen; its clamped SwiGLU) is a function and a row.
// Internal to core/model/arch/*.cpp.
#pragma once

#include "core/model/arch/layers.h"

#include <memory>
#include <string>
#include <vector>

namespace core::model::feed_forward {

using Tensor = Weights::Tensor;

// What a call of a block needs beside the stream.
struct Call {
    int layer = 0;
    const std::vector<ExpertRef>* knocked_out = nullptr; // ForwardOptions::ablate_experts
    LayerRouting* routing = nullptr;                     // where a mixture appends its rows; null: not kept
};

class Mixture;

class FeedForward {
public:
    virtual ~FeedForward() = default;
    // x (t, D) += the block's output for a (t, D).
    virtual void add(const MatrixF& a, MatrixF& x, const Call& call) const = 0;
    // The bias on the block's output (recorded apart as "biases"), or null.
    virtual const Tensor* output_bias() const { return nullptr; }
    // The routing a view draws: null for a dense block.
    virtual const Mixture* mixture() const { return nullptr; }
};

// The gated MLP of the Llama family.
struct DenseTensors {
    const Tensor *gate_w = nullptr, *up_w = nullptr;                    // (F, D) each, or
    const Tensor* gate_up_w = nullptr;                                  // fused (2F, D), gate | up
    const Tensor* down_w = nullptr;                                     // (D, F)
    const Tensor *gate_b = nullptr, *up_b = nullptr, *down_b = nullptr; // (F), (F), (D) or null
};

class Dense final : public FeedForward {
public:
    Dense(DenseTensors t, int width, ops::Activation act) : t_(t), width_(width), act_(act) {}
    void add(const MatrixF& a, MatrixF& x, const Call& call) const override;
    const Tensor* output_bias() const override { return t_.down_b; }

private:
    DenseTensors t_;
    int width_; // F
    ops::Activation act_;
};

// [SECTION] the mixture's rows

// How a router's logits become the chosen experts: a row per rule.
struct RoutingRule {
    const char* name;
    // logits (experts) of one position → probabilities (experts), the distribution the views show;
    // chosen (top_k) ids and their weights (top_k), largest first (the lower id first on a tie).
    void (*route)(const float* logits, int experts, int top_k, float* probabilities, int* chosen, float* weights);
};
// "softmax_top_k": a softmax over every expert (in float32), its top_k as they are (Qwen3 MoE without
// norm_topk_prob); "softmax_top_k_renormalised": the same, the top_k divided by their sum
// (norm_topk_prob, and llama.cpp's qwen3moe always).
const std::vector<RoutingRule>& routing_rules();
const RoutingRule& routing_rule(const std::string& name);

// How an expert's gate and up become the input of its down projection: a row per activation.
struct ExpertActivation {
    const char* name;
    // gate ← f(gate, up), n values of (rows, F) each.
    void (*apply)(float* gate, const float* up, std::ptrdiff_t n);
};
// "silu": silu(gate) ⊙ up (Qwen3 MoE's hidden_act silu).
const std::vector<ExpertActivation>& expert_activations();
const ExpertActivation& expert_activation(const std::string& name);

struct Expert {
    const Tensor *gate = nullptr, *up = nullptr; // (F, D) each
    const Tensor* down = nullptr;                // (D, F)
};

class Mixture final : public FeedForward {
public:
    Mixture(const Tensor& router, std::vector<Expert> experts, int top_k, int width, const RoutingRule& rule, const ExpertActivation& act)
        : router_(router), experts_(std::move(experts)), top_k_(top_k), width_(width), rule_(rule), act_(act) {}
    void add(const MatrixF& a, MatrixF& x, const Call& call) const override;
    const Mixture* mixture() const override { return this; }
    int experts() const { return static_cast<int>(experts_.size()); }
    int top_k() const { return top_k_; }

private:
    void run_expert(int e, const MatrixF& a, const std::vector<int>& rows, const std::vector<float>& weight, MatrixF& x) const;

    const Tensor& router_;       // (E, D)
    std::vector<Expert> experts_; // (E)
    int top_k_, width_;          // k, F of each expert
    const RoutingRule& rule_;
    const ExpertActivation& act_;
};

// [SECTION] reading the tensors

// The Llama names under `prefix` ("model.layers.3.mlp."): gate_proj, up_proj, down_proj (+ biases),
// width F.
std::shared_ptr<const FeedForward> dense(const Weights& w, const std::string& prefix, std::int64_t D, std::int64_t F, bool biases,
                                         ops::Activation act);

// A mixture's tensors under `prefix`: the router "gate.weight" (E, D), and each expert's
// "experts.E.{gate,up,down}_proj.weight" (the Hub's layout) or, `stacked`, the (E, F, D), (E, F, D),
// (E, D, F) "experts.{gate,up,down}_proj.weight" of a GGUF file, each expert read in place. Throws
// FileError naming the file and the tensor for a missing one, a wrong shape, or an expert past E.
struct MixtureShape {
    std::int64_t D, F;
    int experts, top_k;
    bool stacked;
};
std::shared_ptr<const FeedForward> mixture(const Weights& w, const std::string& prefix, const MixtureShape& s, const RoutingRule& rule,
                                           const ExpertActivation& act);

} // namespace core::model::feed_forward
