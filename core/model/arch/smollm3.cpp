// core/model/arch/smollm3.cpp — SmolLM3ForCausalLM, as transformers' modeling_smollm3.py runs it: the
// Llama layer (arch/decoder.h) whose attention leaves out the rotary positions on the layers where
// config.json's no_rope_layers has 0 (1 keeps them; by default every no_rope_layer_interval-th layer,
// 4, goes without); a sliding window only with use_sliding_window, on the layers layer_types names
// (by default the layers without RoPE). llama.cpp's "smollm3" files fix the layers without RoPE at
// every fourth (smollm3.cpp: (l + 1) % 4 == 0) and were written by LlamaModel's converter, which
// permuted q/k.
#include "core/model/arch/decoder.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/model/format/gguf_model.h"

namespace core::model {

namespace {

// Every `interval`-th layer (counted from 1) without RoPE.
std::vector<bool> every_nth_without_rope(int layers, int interval) {
    std::vector<bool> no_rope(static_cast<std::size_t>(layers));
    for (int l = 0; l < layers; ++l) no_rope[static_cast<std::size_t>(l)] = (l + 1) % interval == 0;
    return no_rope;
}

// no_rope_layers (1: RoPE, 0: none), one per layer, or the default every no_rope_layer_interval-th.
std::vector<bool> read_no_rope(const ConfigReader& r, int layers) {
    const int interval = r.whole("no_rope_layer_interval", 1, 1 << 20, 4);
    if (!r.has("no_rope_layers") || r.j.at("no_rope_layers").is_null() || r.j.at("no_rope_layers").empty())
        return every_nth_without_rope(layers, interval);
    const nlohmann::json& v = r.j.at("no_rope_layers");
    if (!v.is_array() || v.size() != static_cast<std::size_t>(layers))
        r.fail("no_rope_layers", "is not a list of " + std::to_string(layers) + " 0s and 1s (one per layer)");
    std::vector<bool> no_rope;
    for (const nlohmann::json& use : v) {
        if (use != 0 && use != 1) r.fail("no_rope_layers", "has " + use.dump() + "; each layer is 1 (RoPE) or 0 (none)");
        no_rope.push_back(use == 0);
    }
    return no_rope;
}

// With use_sliding_window and a sliding_window: the layers layer_types names, else those without RoPE.
std::vector<int> smollm3_windows(const ConfigReader& r, const ModelConfig& c) {
    std::vector<int> window(static_cast<std::size_t>(c.layers), 0);
    const bool no_window = !r.has("sliding_window") || r.j.at("sliding_window").is_null();
    std::vector<bool> sliding = r.sliding_layers(c.layers);
    if (!r.flag("use_sliding_window", false) || no_window) return window;
    if (sliding.empty()) sliding = c.no_rope;
    const int w = r.whole("sliding_window", 1, 1LL << 30);
    for (int l = 0; l < c.layers; ++l)
        if (sliding[static_cast<std::size_t>(l)]) window[static_cast<std::size_t>(l)] = w;
    return window;
}

} // namespace

// SmolLM3Config's names and defaults; head_dim is hidden_size / num_attention_heads.
void read_smollm3(const ConfigReader& r, ModelConfig& c) {
    decoder::read_common(r, c, {{{"vocab_size", 128256}, {"hidden_size", 2048}, {"num_hidden_layers", 36}, {"num_attention_heads", 16}},
                                11008, 4, 0, 32768, 1e-6, true, false});
    if (r.has("head_dim") && c.d_head != c.d_model / c.heads) r.fail("head_dim", "differs from hidden_size / num_attention_heads, which SmolLM3 uses");
    c.rope_theta = r.real("rope_theta", 1e-6, 1e15, 2000000.0);
    c.attention_bias = c.o_bias = r.flag("attention_bias", false);
    c.mlp_bias = r.flag("mlp_bias", false);
    c.no_rope = read_no_rope(r, c.layers);
    c.sliding_window = smollm3_windows(r, c);
}

// llama.cpp's "smollm3" files: no RoPE on every fourth layer, whatever the Hub's config said.
void read_gguf_smollm3(const GgufKeys& k, ModelConfig& c) {
    c.norm_eps = k.real("attention.layer_norm_rms_epsilon", 1e-30, 1.0, 1e-6);
    c.activation = "silu";
    c.attention_bias = c.o_bias = k.has_tensor("blk.0.attn_q.bias");
    c.no_rope = every_nth_without_rope(c.layers, 4);
    rotary::read_gguf_scaling(k, c);
}

const GgufLayout& smollm3_gguf() {
    static const GgufLayout layout{"smollm3", read_gguf_smollm3, "model.layers.", gguf_names::decoder_globals(), gguf_names::decoder_layer(), true};
    return layout;
}

} // namespace core::model
