// core/model/arch/gguf_names.h — the tensor names llama.cpp's files share across the Llama family
// (llama-arch.cpp's LLM_TENSOR_NAMES), translated to transformers' names; each architecture's
// GgufLayout (arch/table.h) starts from these. Internal to core/model/arch/*.cpp.
#pragma once

#include "core/model/arch/table.h"

#include <string>
#include <vector>

namespace core::model::gguf_names {

inline std::vector<GgufName> decoder_globals() {
    return {{"token_embd", "model.embed_tokens"}, {"output_norm", "model.norm"}, {"output", "lm_head"}};
}

// Each layer's, under "model.layers.N.".
inline std::vector<GgufName> decoder_layer() {
    return {{"attn_norm", "input_layernorm"}, {"attn_q", "self_attn.q_proj"},     {"attn_k", "self_attn.k_proj"},
            {"attn_v", "self_attn.v_proj"},   {"attn_output", "self_attn.o_proj"}, {"attn_q_norm", "self_attn.q_norm"},
            {"attn_k_norm", "self_attn.k_norm"}, {"ffn_norm", "post_attention_layernorm"}, {"ffn_gate", "mlp.gate_proj"},
            {"ffn_up", "mlp.up_proj"},        {"ffn_down", "mlp.down_proj"}};
}

// A mixture's layer: decoder_layer() with the router `router` ("mlp.gate") and the stacked experts
// ffn_{gate,up,down}_exps as mlp.experts.{gate,up,down}_proj.
inline std::vector<GgufName> with_experts(std::vector<GgufName> names, const char* router);

// `names` with the entries of `changes` in place of those of the same file name.
inline std::vector<GgufName> with(std::vector<GgufName> names, const std::vector<GgufName>& changes) {
    for (const GgufName& c : changes) {
        bool found = false;
        for (GgufName& n : names)
            if (std::string(n.file) == c.file) n = c, found = true;
        if (!found) names.push_back(c);
    }
    return names;
}

inline std::vector<GgufName> with_experts(std::vector<GgufName> names, const char* router) {
    return with(std::move(names), {{"ffn_gate_inp", router},
                                   {"ffn_gate_exps", "mlp.experts.gate_proj"},
                                   {"ffn_up_exps", "mlp.experts.up_proj"},
                                   {"ffn_down_exps", "mlp.experts.down_proj"}});
}

} // namespace core::model::gguf_names
