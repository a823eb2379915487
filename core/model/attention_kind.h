// core/model/attention_kind.h — what kind of attention a layer runs: a softmax over its visible keys,
// or a softmax with a learned sink (gpt-oss: one more logit per head, which takes part of each row's
// weight and passes no value); over every earlier key or a sliding window; with rotary positions or
// none (SmolLM3's every fourth layer); or no softmax at all: a linear layer (Gated DeltaNet, Qwen3.5
// and Qwen3-Next), whose "map" is the exact signed matrix M of core/model/delta_rule.h. A model composes these per layer (Model::attention_kind); the
// forward, the maps rebuilt on demand and the views read a layer's kind from here.
#pragma once

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

// What the grid writes on a layer's row: its rows' labels joined by " · " ("window 128 · sink"), or
// "full" for a plain softmax over every earlier key with RoPE.
std::string kind_label(const AttentionKind& k);

} // namespace core::model
