// core/model/decode_steps.h — greedy decoding that a person steps, one token at a time on the
// model's KV cache, and what that cache costs in memory.
#pragma once

#include "core/model/forward.h"

#include <atomic>
#include <cstddef>
#include <vector>

namespace core::model {

// [SECTION] decoding on the KV cache, one token per step

// What the cache holds, in bytes: 2 (keys and values) · layers · kv_heads · d_head · length ·
// bytes_per_number. Without grouped-query attention it would hold heads instead of kv_heads.
struct CacheSize {
    int layers = 0, heads = 0, kv_heads = 0, d_head = 0, length = 0, bytes_per_number = 4;
    std::size_t bytes() const;
    std::size_t bytes_without_gqa() const; // the same with every query head keeping its own keys
};
CacheSize cache_size(const ModelConfig& config, const KvCache& cache);

// Greedy decoding that a person steps: start() runs the prompt into the cache; each step() takes
// the argmax of the last logits (as generate_greedy does), appends that token, and runs it alone:
// one new key and value row per layer, one new attention row per head over the whole cache.
class Stepper {
public:
    // Throws InputError for a model that does not predict the next token, an empty prompt or ids
    // the model cannot take. `options` (ablations) applies to every run.
    void start(const Model& model, const std::vector<int>& prompt, const ForwardOptions& options = {});
    // Whether a step fits in the context and the text has not ended.
    bool can_step(const Model& model) const;
    // Whether the last id generated is an end-of-text id (config().is_eos): generating stops there.
    bool ended(const Model& model) const;
    // One token; throws InputError at the context's end or the text's. Returns the new token's id.
    int step(const Model& model, const std::atomic<bool>* cancel = nullptr);

    const std::vector<int>& ids() const { return ids_; }             // prompt + generated
    std::vector<int> generated() const;                               // the ids after the prompt
    int prompt_length() const { return prompt_; }
    const KvCache& cache() const { return cache_; }
    // The last run: the prompt's (t, t) rows, or the new token's one row over the cache (1, t).
    const ForwardResult& last() const { return last_; }
    // Head (l, h)'s row for the newest position over every cached key: (t) weights.
    std::vector<float> newest_row(HeadRef head) const;

private:
    KvCache cache_;
    ForwardOptions options_;
    ForwardResult last_;
    std::vector<int> ids_;
    int prompt_ = 0;
};

} // namespace core::model
