// core/model/head_scenario.h — one head of a real model on a sequence, as a scenario the editor opens.
//
// The scenario gives Q, K and V directly (core::Scenario::direct) as the head used them: after RoPE
// for the Llama family, the head's slices of the projections for GPT-2 and BERT, and under grouped-
// query attention the keys and values of the key/value head it shares. core::compute of it gives the
// model's weights for that head. Layers, heads and positions count from 0.
#pragma once

#include "core/model/forward.h"
#include "core/scenario.h"

#include <atomic>
#include <string>
#include <vector>

namespace core::model {

// [SECTION] a head in the editor

// Head `head` of a forward run with capture_qkv on a fresh cache (t_new = t_total = t), as a single-
// head direct scenario named by `tokens` (t), with the head's q, k and v unchanged and the model's
// rules: causal as the model is, the layer's sliding window, the attention-logit soft-cap and the
// score factor (1/√d_head; GPT-2's scale_attn_weights off keeps the raw scores and
// scale_attn_by_inverse_layer_idx divides by layer + 1 as well). Throws InputError when the editor
// cannot hold the head: more than core::Limits' tokens or width, a value past ±1e6.
core::Scenario head_scenario(const ModelConfig& config, const ForwardResult& run, HeadRef head, const std::vector<std::string>& tokens);

// Runs `ids` with capture_qkv and builds the scenario of `head` (the other heads are not kept).
core::Scenario head_scenario(const Model& model, const std::vector<int>& ids, HeadRef head, const std::vector<std::string>& tokens,
                             const std::atomic<bool>* cancel = nullptr);

} // namespace core::model
