// core/model/arch/feed_forward.h — the feed-forward kinds of a decoder layer: the block that takes the
// stream after its norm, a (t, D), and adds its output to the stream x (t, D). Each kind owns its
// tensors, its forward and what it offers the views:
//
//   Dense    act(a · gate_projᵀ (+ b)) ⊙ (a · up_projᵀ (+ b)) · down_projᵀ (+ b)   (gate | up fused for Phi-3)
//   Mixture  the router's logits a · gateᵀ (+ b) (t, E) → a routing rule picks each position's top_k experts
//            and their weights; each chosen expert runs on its positions alone (a dense block of
//            width d_expert, its activation a row of expert_activations()), its output times its weight
//            added to x. The routing goes to ForwardResult::routing.
//   Shared   a routed block (a Mixture) plus a shared expert, a dense block whose output at each
//            position is times sigmoid(a · shared_expert_gateᵀ) (Qwen3-Next's Qwen3NextSparseMoeBlock).
//
// A routing rule and an expert activation are rows of their tables below: a new one is a function
// and a row.
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
// (norm_topk_prob, and llama.cpp's qwen3moe always); "top_k_softmax": the top_k of the logits, their
// weights a softmax over those k alone (gpt-oss). gpt-oss's router gives no distribution over every
// expert, so its probabilities are the softmax over all the logits: the same order, and the chosen
// experts' weights are these renormalised over the k.
const std::vector<RoutingRule>& routing_rules();
const RoutingRule& routing_rule(const std::string& name);

// How an expert's gate and up become the input of its down projection: a row per activation.
struct ExpertActivation {
    const char* name;
    // gate ← f(gate, up), n values of (rows, F) each; limit: the clamp of a clamped activation.
    void (*apply)(float* gate, const float* up, std::ptrdiff_t n, float limit);
};
// "silu": silu(gate) ⊙ up (Qwen3 MoE's hidden_act silu); "swiglu_clamped": gpt-oss's, with gate
// clamped to at most limit and up to ±limit, (up + 1) · gate · σ(1.702 · gate).
const std::vector<ExpertActivation>& expert_activations();
const ExpertActivation& expert_activation(const std::string& name);

// An expert's matrices in the file's layout: out_in, or in_out as the Hub's gpt-oss stacks them.
struct Expert {
    // How a fused gate_up holds its 2F outputs: gpt-oss's gate, up, gate, up, …, or the other Hub
    // checkpoints' gate | up (transformers' chunk(2) of Qwen3.5 MoE's gate_up_proj).
    enum class Fused { interleaved, halves };
    const Tensor *gate = nullptr, *up = nullptr;     // (F, D) each, or
    const Tensor* gate_up = nullptr;                 // fused (2F, D) (in_out: (D, 2F)), as `fused` says
    Fused fused = Fused::interleaved;
    const Tensor* down = nullptr;                    // (D, F) (in_out: (F, D))
    const Tensor *gate_b = nullptr, *up_b = nullptr; // (F) each or null, or
    const Tensor* gate_up_b = nullptr;               // (2F) interleaved
    const Tensor* down_b = nullptr;                  // (D) or null
    Layout layout = Layout::out_in;
};

// A mixture's router and experts; `owned` keeps tensors the reader made (views over the Hub's MXFP4) alive.
struct MixtureTensors {
    const Tensor* router = nullptr;   // (E, D)
    const Tensor* router_b = nullptr; // (E) or null
    std::vector<Expert> experts;      // (E)
    std::vector<std::unique_ptr<Tensor>> owned;
};

class Mixture final : public FeedForward {
public:
    Mixture(MixtureTensors t, int top_k, int width, const RoutingRule& rule, const ExpertActivation& act, float limit = 0.0f)
        : t_(std::move(t)), top_k_(top_k), width_(width), rule_(rule), act_(act), limit_(limit) {}
    void add(const MatrixF& a, MatrixF& x, const Call& call) const override;
    const Mixture* mixture() const override { return this; }
    int experts() const { return static_cast<int>(t_.experts.size()); }
    int top_k() const { return top_k_; }

private:
    void run_expert(int e, const MatrixF& a, const std::vector<int>& rows, const std::vector<float>& weight, MatrixF& x) const;
    void gate_and_up(const Expert& ex, const MatrixF& in, MatrixF& gate, MatrixF& up) const;

    MixtureTensors t_;
    int top_k_, width_;          // k, F of each expert
    const RoutingRule& rule_;
    const ExpertActivation& act_;
    float limit_;                // the activation's clamp (gpt-oss's swiglu_limit)
};

// [SECTION] reading the tensors

// The Llama names under `prefix` ("model.layers.3.mlp."): gate_proj, up_proj, down_proj (+ biases),
// width F.
std::shared_ptr<const FeedForward> dense(const Weights& w, const std::string& prefix, std::int64_t D, std::int64_t F, bool biases,
                                         ops::Activation act);

// A mixture's tensors under `prefix`: the router "gate.weight" (E, D), and the experts in one of three
// layouts, each expert read in place:
//   - each expert's own "experts.E.{gate,up,down}_proj.weight" (the Hub's older layout);
//   - the Hub's fused "experts.gate_up_proj" (E, 2F, D), gate | up, and "experts.down_proj" (E, D, F),
//     as Qwen3.5 MoE's checkpoints hold them and transformers 5 loads every Qwen MoE (found by name);
//   - `stacked`: the (E, F, D), (E, F, D), (E, D, F) "experts.{gate,up,down}_proj.weight" of a GGUF file.
// Throws FileError naming the file and the tensor for a missing one, a wrong shape, or an expert past E.
struct MixtureShape {
    std::int64_t D, F;
    int experts, top_k;
    bool stacked;
};
std::shared_ptr<const FeedForward> mixture(const Weights& w, const std::string& prefix, const MixtureShape& s, const RoutingRule& rule,
                                           const ExpertActivation& act);

// `routed` plus `shared`, the latter gated per position by sigmoid(a · gateᵀ), gate (1, D); the views
// see routed's mixture.
std::shared_ptr<const FeedForward> with_shared_expert(std::shared_ptr<const FeedForward> routed, std::shared_ptr<const FeedForward> shared,
                                                      const Tensor& gate);

} // namespace core::model::feed_forward
