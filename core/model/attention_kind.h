// core/model/attention_kind.h — what kind of attention a layer runs: a softmax over its visible keys,
// or a softmax with a learned sink (gpt-oss: one more logit per head, which takes part of each row's
// weight and passes no value); over every earlier key or a sliding window; with rotary positions or
// none (SmolLM3's every fourth layer); or no softmax at all: a linear layer (Gated DeltaNet, Qwen3.5
// and Qwen3-Next), whose "map" is the exact signed matrix M of core/model/delta_rule.h. A model composes these per layer (Model::attention_kind); the
// forward, the maps rebuilt on demand and the views read a layer's kind from here.
#pragma once

#include "core/model/config.h"

#include <string>
#include <vector>

namespace core::model {

struct AttentionKind {
    int window = 0;           // a query sees the last `window` keys (itself included); 0: every visible one
    bool rope = true;         // false: the layer's q and k take no position encoding
    std::vector<float> sinks; // (heads) each head's learned sink logit; empty: a plain softmax
    bool linear = false;      // a Gated DeltaNet layer: no softmax; its map M is signed and its rows need not sum to 1
    float softcap = 0.0f;     // the scores soft-capped, cap · tanh(s / cap), before the mask (Gemma 2); 0: none

    bool learned_sink() const { return !sinks.empty(); }
    // Head h's sink logit, or null.
    const float* sink(int h) const { return sinks.empty() ? nullptr : &sinks[static_cast<std::size_t>(h)]; }
};

// One row of the table of kinds: a property a layer's attention may have, what the grid writes for
// it (a linear layer's "linear"), and whether it gives each query a learned sink share beside its map.
struct AttentionKindRow {
    const char* name;                        // "learned sink"
    bool (*has)(const AttentionKind& k);     // whether a layer of kind k has it
    std::string (*label)(const AttentionKind& k); // "sink", "window 128", "no RoPE"
    bool sink_share;                         // each query's sink share is a view of its own
};
const std::vector<AttentionKindRow>& attention_kind_rows();

// The fields of the linear kind (Qwen3.5, Qwen3-Next's config): which layers are Gated DeltaNet
// layers (layer_types' "linear_attention"), their key and value heads and widths, and the conv
// kernel (core/model/arch/gated_delta_net.h runs them). An architecture with linear layers derives its
// own fields from this; Model::attention_kind and the KV cache read it through ModelConfig::own_if.
struct LinearAttentionFields : virtual OwnFields {
    std::vector<bool> layers; // per layer (one entry each): true for a linear layer
    int k_heads = 0, v_heads = 0, d_k = 0, d_v = 0, kernel = 0;
    bool llama_cpp = false;   // a GGUF file: the layout of llama.cpp's converter (arch/qwen3_next.cpp)
    bool linear(int layer) const { return layer >= 0 && static_cast<std::size_t>(layer) < layers.size() && layers[static_cast<std::size_t>(layer)]; }
};

// What the grid writes on a layer's row: its rows' labels joined by " · " ("window 128 · sink"), or
// "full" for a plain softmax over every earlier key with RoPE.
std::string kind_label(const AttentionKind& k);

} // namespace core::model
