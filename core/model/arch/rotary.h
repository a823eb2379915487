// core/model/arch/rotary.h — rotary positions as transformers' modeling_rope_utils.py and the
// rotate-half convention of modeling_llama.py give them, for every architecture that rotates q and k.
// Internal to core/model/arch/*.cpp.
#pragma once

#include "core/model/config.h"
#include "core/model/format/config_reader.h"

#include <vector>

namespace core::model {
struct GgufKeys;
}

namespace core::model::rotary {

// config.json's rope_scaling: none (or "default"), "linear", "llama3", "longrope" (whose factor
// lists must have rotary_dim / 2 entries) or "yarn" (modeling_rope_utils.py's _compute_yarn_parameters,
// its `truncate` flag included); anything else is refused with one line naming the field.
RopeScaling read_scaling(const ConfigReader& r, int rotary_dim);

// A GGUF file's scaling (after c.rotary_dim and c.context): the factors of a rope_freqs tensor
// (Llama 3.1, 3.2), longrope's short factors of rope_factors_short (Phi-3), or rope.scaling.type
// "linear" or "yarn" (as llama.cpp runs it: the correction range always rounded) with
// rope.scaling.factor; any other type is refused with k.fail.
void read_gguf_scaling(const GgufKeys& k, ModelConfig& c);

// The positions a config's rotary positions run to: longrope's short factors hold up to
// original_max_position_embeddings, past which transformers switches to the long ones (which attnviz
// does not run), so its context ends there.
int rotary_context(const ModelConfig& c);

// inv_freq[i] = θ^(−2i / dims) for i < dims / 2, then the scaling of `s` (dims: the rotated width).
std::vector<float> inverse_frequencies(double theta, int dims, const RopeScaling& s);

// Rotates the first inv_freq.size() · 2 dims of each of `heads` heads (d_head apart) in t rows
// (stride ld) at positions past, past + 1, …: the halves (x₁, x₂) become
// (x₁ cos − x₂ sin, x₂ cos + x₁ sin), the angle position · inv_freq taken in float32, cos and sin
// times `scale` (longrope's attention factor; 1 otherwise).
void rotate(float* x, int ld, int t, int heads, int d_head, int past, const std::vector<float>& inv_freq, float scale = 1.0f);

} // namespace core::model::rotary
