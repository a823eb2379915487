// core/model/arch/decoder.h — the decoder layer the Llama family, Qwen3 and Phi-3 share, as their
// modeling files (modeling_llama.py, modeling_qwen3.py, modeling_phi3.py) run it:
//
//   x = embed_tokens[id]                                                        (t, D)
//   per layer:  a = RMSNorm(x) · input_layernorm.weight     (variance in float32; OLMo 2: a = x)
//               q, k, v = a · Wqᵀ (+ b), a · Wkᵀ (+ b), a · Wvᵀ (+ b)      (t, H·dh), (t, Hkv·dh)
//                         (Phi-3: one fused product a · qkv_projᵀ split q | k | v)
//               Qwen3: q, k ← RMSNorm of each head's dh values · q_norm / k_norm.weight
//               OLMo 2: q, k ← RMSNorm of the whole row (H·dh, Hkv·dh) · q_norm / k_norm.weight
//               q, k ← rotate-half RoPE of each head's first rotary_dim dims at each position,
//                      unless the layer's kind has no RoPE (SmolLM3)
//               Qwen3.5: q_proj gives each head's q and its gate; the context × sigmoid(gate)
//               Qwen3.5's linear layers: x += the Gated DeltaNet of a (arch/gated_delta_net.h)
//               x += heads(q, k, v) · o_projᵀ (+ b)   query head h reads key/value head h / (H / Hkv);
//                    the heads' window and learned sinks are the layer's AttentionKind
//                    (OLMo 2: x += RMSNorm(heads · o_projᵀ) · post_attention_layernorm.weight)
//               a = RMSNorm(x) · post_attention_layernorm.weight                   (OLMo 2: a = x)
//               x += ffn(a): a kind of arch/feed_forward.h, per layer: the dense gated MLP
//                    (act(a · gate_projᵀ) ⊙ (a · up_projᵀ)) · down_projᵀ (Phi-3: gate | up fused),
//                    or a mixture of experts (Qwen3 MoE, gpt-oss)
//                    (OLMo 2: the output RMS-normed · post_feedforward_layernorm.weight)
//   logits = RMSNorm(x) · model.norm.weight · lm_headᵀ (embed_tokens when tied)
// Each architecture's file gives the tensors under its names and reads its config; the layer's
// window is config.sliding_window[l], its score scale the table's. Internal to core/model/arch/*.cpp.
#pragma once

#include "core/model/arch/feed_forward.h"
#include "core/model/arch/gated_delta_net.h"
#include "core/model/arch/layers.h"
#include "core/model/format/config_reader.h"

#include <memory>
#include <vector>

namespace core::model::decoder {

using Tensor = Weights::Tensor;

struct Block {
    const Tensor* ln1 = nullptr;                                         // (D), null: no norm before attention (OLMo 2)
    const Tensor *q_w = nullptr, *k_w = nullptr, *v_w = nullptr;         // (H·dh, D), (Hkv·dh, D), or
    const Tensor* qkv_w = nullptr;                                       // fused ((H + 2·Hkv)·dh, D)
    const Tensor *q_b = nullptr, *k_b = nullptr, *v_b = nullptr;         // (H·dh), (Hkv·dh)
    const Tensor *q_norm = nullptr, *k_norm = nullptr;                   // (dh), Qwen3; (H·dh), (Hkv·dh) OLMo 2
    bool qk_norm_whole = false;                                          // q/k norm over the whole row (OLMo 2)
    const Tensor* sinks = nullptr;                                       // (H) learned sink logits (gpt-oss)
    bool q_gate = false;  // q_w is (2·H·dh, D), each head's q then its output gate's logits (Qwen3.5)
    std::shared_ptr<const gated_delta_net::Layer> linear; // a Gated DeltaNet in place of q … o (Qwen3.5)
    const Tensor *o_w = nullptr, *o_b = nullptr;                         // (D, H·dh), (D)
    const Tensor* ln2 = nullptr;                                         // (D), null: no norm before the MLP (OLMo 2)
    const Tensor *post_attn_norm = nullptr, *post_mlp_norm = nullptr;    // (D) each, OLMo 2's norms of the outputs
    std::shared_ptr<const feed_forward::FeedForward> ffn;                // after ln2
};

struct Parts {
    const Tensor* embed = nullptr; // (V, D)
    std::vector<Block> blocks;     // one per layer
    const Tensor* norm = nullptr;  // (D)
    const Tensor* head = nullptr;  // (V, D)
    std::shared_ptr<const Weights> derived; // tensors made at load that blocks point into (Qwen3.5's 1 + w norms), or null
    bool unscaled_rope_on_windows = false;  // the windowed layers turn by the unscaled frequencies (OLMo 3)
};

// Layer l's tensors every decoder has under the Llama names "model.layers.L.…": the norms and o_proj
// (+ bias with c.o_bias).
Block common_names(const Weights& w, const ModelConfig& c, int l);
// Adds the separate q_proj, k_proj, v_proj (+ biases with c.attention_bias) of layer l.
void separate_names(const Weights& w, const ModelConfig& c, int l, Block& b);
// Adds Qwen3's self_attn.q_norm and k_norm (head_dim) to every block.
void qk_norm_names(const Weights& w, const ModelConfig& c, std::vector<Block>& blocks);
// Layer l's dense MLP "model.layers.L.mlp.{gate,up,down}_proj" of width c.d_ff (+ biases with c.mlp_bias).
std::shared_ptr<const feed_forward::FeedForward> dense_mlp(const Weights& w, const ModelConfig& c, int l);
// Every layer's common and separate names and dense MLP: the blocks of the Llama family.
std::vector<Block> llama_blocks(const Weights& w, const ModelConfig& c);
// embed_tokens, model.norm and lm_head (embed_tokens when tie_word_embeddings) around `blocks`.
Parts around(const Weights& w, const ModelConfig& c, std::vector<Block> blocks);

std::unique_ptr<Model> build(const ModelConfig& c, std::shared_ptr<const Weights> w, Parts parts);

// The fields the configuration classes of these decoders share, with the class's defaults (a
// fallback of 0 makes the field required; head_dim 0: hidden_size / num_attention_heads).
struct Defaults {
    SizeKeys sizes;
    int intermediate, kv_heads, head_dim, context; // kv_heads 0: num_attention_heads
    double eps;
    bool tied;
    bool partial_rotary; // partial_rotary_factor is read (Phi-3)
};
void read_common(const ConfigReader& r, ModelConfig& c, const Defaults& d);

// Which layers are mixtures of experts (Qwen3 MoE, Qwen3-Next): experts > 0, not in mlp_only_layers,
// and (l + 1) % decoder_sparse_step == 0; refuses a layer of mlp_only_layers outside the model.
std::vector<bool> sparse_layers(const ConfigReader& r, const ModelConfig& c, int experts);

// The defaults of a mixture of experts' names in Qwen's configs; d_shared_expert 0: the model has no
// shared expert, and shared_expert_intermediate_size is not read.
struct MixtureDefaults {
    int experts, per_token, d_expert, d_shared_expert;
    bool renormalise;
};
// num_experts, num_experts_per_tok (refused past num_experts), moe_intermediate_size,
// shared_expert_intermediate_size, norm_topk_prob and the sparse layers (Qwen2 MoE, Qwen3 MoE, Qwen3-Next)
// into `m`, the architecture's own fields, for a model of c.layers layers.
void read_mixture(const ConfigReader& r, const ModelConfig& c, feed_forward::MixtureFields& m, const MixtureDefaults& d);

} // namespace core::model::decoder
