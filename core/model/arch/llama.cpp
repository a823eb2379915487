// core/model/arch/llama.cpp — LlamaForCausalLM, MistralForCausalLM and Qwen2ForCausalLM, as
// transformers' modeling_llama.py, modeling_mistral.py and modeling_qwen2.py run them: the decoder
// layer of arch/decoder.h with separate q/k/v and gate/up projections. Qwen2 has q/k/v biases;
// Llama has q/k/v/o biases with attention_bias and MLP biases with mlp_bias; Mistral (and Qwen2 with
// use_sliding_window) attend only to the last sliding_window positions.
#include "core/model/arch/decoder.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/model/format/gguf_model.h"

namespace core::model {

namespace {

// Mistral: one window for every layer. Qwen2: only with use_sliding_window, from max_window_layers on.
std::vector<int> read_sliding_window(const ConfigReader& r, const ModelConfig& c) {
    std::vector<int> window(static_cast<std::size_t>(c.layers), 0);
    const bool qwen2 = c.architecture == "Qwen2ForCausalLM";
    if (c.architecture != "MistralForCausalLM" && !qwen2) return window;
    if (qwen2 && !r.flag("use_sliding_window", false)) return window;
    const int w = r.whole("sliding_window", 1, 1LL << 30, 0);
    const int from = qwen2 ? r.whole("max_window_layers", 0, 1 << 20, c.layers) : 0;
    for (int l = from; l < c.layers; ++l) window[static_cast<std::size_t>(l)] = w;
    return window;
}

} // namespace

// LlamaConfig's names and defaults (MistralConfig's and Qwen2Config's are the same but for the
// biases and the window); the sizes are required.
void read_llama(const ConfigReader& r, ModelConfig& c) {
    decoder::read_common(r, c, {{{"vocab_size", 0}, {"hidden_size", 0}, {"num_hidden_layers", 0}, {"num_attention_heads", 0}}, 0, 0, 0, 2048, 1e-6, false, false});
    const bool qwen2 = c.architecture == "Qwen2ForCausalLM";
    const bool llama = c.architecture == "LlamaForCausalLM";
    c.attention_bias = qwen2 || (llama && r.flag("attention_bias", false));
    c.o_bias = llama && c.attention_bias;
    c.mlp_bias = llama && r.flag("mlp_bias", false);
    c.sliding_window = read_sliding_window(r, c);
}

// llama.cpp's "llama" and "qwen2" files: biases where the file has them; RoPE's frequency factors
// from rope_freqs (Llama 3.1 and 3.2 write their llama3 scaling so), else linear scaling.
void read_gguf_llama(const GgufKeys& k, ModelConfig& c) {
    c.norm_eps = k.real("attention.layer_norm_rms_epsilon", 1e-30, 1.0, 1e-5);
    c.activation = "silu";
    c.attention_bias = k.has_tensor("blk.0.attn_q.bias");
    c.o_bias = k.has_tensor("blk.0.attn_output.bias");
    c.mlp_bias = k.has_tensor("blk.0.ffn_gate.bias");
    rotary::read_gguf_scaling(k, c);
}

const GgufLayout& llama_gguf() {
    static const GgufLayout layout{"llama", read_gguf_llama, "model.layers.", gguf_names::decoder_globals(), gguf_names::decoder_layer(), true};
    return layout;
}

const GgufLayout& qwen2_gguf() {
    static const GgufLayout layout{"qwen2", read_gguf_llama, "model.layers.", gguf_names::decoder_globals(), gguf_names::decoder_layer(), false};
    return layout;
}

std::unique_ptr<Model> build_llama(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    decoder::Parts parts = decoder::around(*weights, config, decoder::llama_blocks(*weights, config));
    return decoder::build(config, std::move(weights), std::move(parts));
}

} // namespace core::model
