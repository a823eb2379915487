// core/model/arch/gemma.h — the decoder that Gemma2ForCausalLM and Gemma 3's text model share
// (arch/gemma2.cpp, arch/gemma3.cpp), as transformers' modeling_gemma2.py and modeling_gemma3.py
// run it. Internal to core/model/arch/*.cpp (the tests read its Fields).
//
//   x = embed_tokens[id] · √hidden_size (the normalizer rounded to float32)         (t, D)
//   per layer:  a = norm(x, input_layernorm)        norm(x, w) = x / √(mean(x²) + eps) · (1 + w)
//               q, k, v = a · q_projᵀ, a · k_projᵀ, a · v_projᵀ                 (t, H·dh), (t, Hkv·dh)
//               q, k ← norm(q, q_norm), norm(k, k_norm) per head                  (Gemma 3)
//               q, k ← rotate-half RoPE: rope_local_base_freq on sliding layers (Gemma 3), else
//                      rope_theta with rope_scaling
//               s = q·kᵀ · query_pre_attn_scalar^-½, then cap · tanh(s / cap)    (Gemma 2's soft-cap)
//               x += norm(heads(s, v) · o_projᵀ, post_attention_layernorm)   sliding layers: last
//                                                                              sliding_window keys
//               a = norm(x, pre_feedforward_layernorm)
//               x += norm((gelu_tanh(a · gate_projᵀ) ⊙ (a · up_projᵀ)) · down_projᵀ, post_feedforward_layernorm)
//   logits = cap · tanh(norm(x, norm) · embed_tokensᵀ / cap)       (final_logit_softcapping where set)
#pragma once

#include "core/model/forward.h"

#include <memory>
#include <string>
#include <vector>

namespace core::model {

class Weights;
struct ConfigReader;
struct GgufKeys;
struct GgufName;

namespace gemma {

enum class Version { gemma2, gemma3 };

// Gemma2Config's and Gemma3TextConfig's fields no other architecture reads.
struct Fields : OwnFields {
    // cap · tanh(x / cap) on the attention scores (after the scale, before the mask; Gemma 2) and on
    // the logits; 0: none. The model gives them to the forward as its layers' AttentionKind::softcap
    // and its Unembedding::softcap.
    double attn_logit_softcapping = 0.0;
    double final_logit_softcapping = 0.0;
    double query_pre_attn_scalar = 256.0; // scores scaled by query_pre_attn_scalar^-1/2
    double rope_local_base_freq = 0.0;    // Gemma 3: rope_theta of the sliding layers (default scaling)
};

// Gemma2Config's or Gemma3TextConfig's fields (r: the config, or Gemma 3's text_config), with
// their defaults; which layers slide from layer_types, else the version's rule.
void read_text_config(const ConfigReader& r, ModelConfig& c, Version v);

// llama.cpp's "gemma2" / "gemma3" files: the keys llama-model.cpp reads for them, its constants
// where the file has no key (the sliding pattern, Gemma 3's local RoPE base, the score scale), and
// the norms stored as 1 + w.
void read_gguf(const GgufKeys& k, ModelConfig& c, Version v);
// Each layer's tensor names: Gemma's four norms beside the Llama family's projections.
std::vector<GgufName> gguf_layer_names();

struct Options {
    std::string prefix; // "model.", or the text tower's prefix in a multimodal checkpoint
    bool qk_norm;       // Gemma 3's q_norm and k_norm
};

std::unique_ptr<Model> build(const ModelConfig& config, std::shared_ptr<const Weights> weights, const Options& options);

} // namespace gemma
} // namespace core::model
