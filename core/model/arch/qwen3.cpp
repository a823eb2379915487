// core/model/arch/qwen3.cpp — Qwen3ForCausalLM, as transformers' modeling_qwen3.py runs it: the
// Llama layer (arch/decoder.h) with each head's q and k RMS-normed over head_dim (self_attn.q_norm,
// self_attn.k_norm) before RoPE; head_dim from the config (Qwen3-0.6B: 128 with hidden 1024 and 16
// heads); q/k/v/o biases only with attention_bias; a sliding window on the layers layer_types names,
// or from max_window_layers on, only with use_sliding_window.
#include "core/model/arch/decoder.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/model/format/gguf_model.h"

namespace core::model {

namespace {

// The window of each layer: sliding_window (null: none) on the sliding layers.
std::vector<int> qwen3_windows(const ConfigReader& r, const ModelConfig& c) {
    std::vector<int> window(static_cast<std::size_t>(c.layers), 0);
    const bool no_window = r.j.contains("sliding_window") && r.j.at("sliding_window").is_null();
    if (!r.flag("use_sliding_window", false) || no_window) return window;
    const int w = r.whole("sliding_window", 1, 1LL << 30, 4096);
    const std::vector<bool> sliding = r.sliding_layers(c.layers);
    const int from = r.whole("max_window_layers", 0, 1 << 20, 28);
    for (int l = 0; l < c.layers; ++l)
        if (sliding.empty() ? l >= from : sliding[static_cast<std::size_t>(l)]) window[static_cast<std::size_t>(l)] = w;
    return window;
}

} // namespace

// Qwen3Config's names and defaults.
void read_qwen3(const ConfigReader& r, ModelConfig& c) {
    decoder::read_common(r, c, {{{"vocab_size", 151936}, {"hidden_size", 4096}, {"num_hidden_layers", 32}, {"num_attention_heads", 32}},
                                22016, 32, 128, 32768, 1e-6, false, false});
    c.attention_bias = c.o_bias = r.flag("attention_bias", false);
    c.sliding_window = qwen3_windows(r, c);
}

// llama.cpp's "qwen3" files: head_dim is attention.key_length; q/k/v/o biases where the file has them.
void read_gguf_qwen3(const GgufKeys& k, ModelConfig& c) {
    c.norm_eps = k.real("attention.layer_norm_rms_epsilon", 1e-30, 1.0, 1e-6);
    c.activation = "silu";
    c.attention_bias = c.o_bias = k.has_tensor("blk.0.attn_q.bias");
    rotary::read_gguf_scaling(k, c);
}

const GgufLayout& qwen3_gguf() {
    static const GgufLayout layout{"qwen3", read_gguf_qwen3, "model.layers.", gguf_names::decoder_globals(), gguf_names::decoder_layer(), false};
    return layout;
}

std::unique_ptr<Model> build_qwen3(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    std::vector<decoder::Block> blocks = decoder::llama_blocks(*weights, config);
    decoder::qk_norm_names(*weights, config, blocks);
    decoder::Parts parts = decoder::around(*weights, config, std::move(blocks));
    return decoder::build(config, std::move(weights), std::move(parts));
}

} // namespace core::model
