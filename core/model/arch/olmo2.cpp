// core/model/arch/olmo2.cpp — Olmo2ForCausalLM and Olmo3ForCausalLM, as transformers'
// modeling_olmo2.py and modeling_olmo3.py run them: the Llama layer (arch/decoder.h) with no norm
// before attention or the MLP, an RMSNorm of each one's output instead (post_attention_layernorm,
// post_feedforward_layernorm) before it joins the stream, and q and k RMS-normed over the whole
// projection (q_norm (H·dh), k_norm (Hkv·dh)) before RoPE; no biases. OLMo 3 slides a window over
// the layers layer_types names (by default three of every four) and turns those with the unscaled
// rotary frequencies. llama.cpp reads both as "olmo2", a window where the file gives one.
#include "core/model/arch/decoder.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/model/format/gguf_model.h"

namespace core::model {

namespace {

// What OLMo reads beyond every architecture: whether its windowed layers turn by the unscaled
// rotary frequencies (OLMo 3's, where the full layers take rope_scaling).
struct OlmoFields : OwnFields {
    bool unscaled_rope_on_windows = false;
};

// OLMo 3's default: every layer but each fourth slides.
std::vector<int> three_in_four(int layers, int w) {
    std::vector<int> window(static_cast<std::size_t>(layers), 0);
    for (int l = 0; l < layers; ++l) window[static_cast<std::size_t>(l)] = (l + 1) % 4 != 0 ? w : 0;
    return window;
}

// OLMo 3: sliding_window on the layers layer_types names, by default three_in_four.
std::vector<int> olmo3_windows(const ConfigReader& r, int layers) {
    const int w = r.whole("sliding_window", 1, 1LL << 30, 4096);
    const std::vector<bool> sliding = r.sliding_layers(layers);
    if (sliding.empty()) return three_in_four(layers, w);
    std::vector<int> window(static_cast<std::size_t>(layers), 0);
    for (int l = 0; l < layers; ++l) window[static_cast<std::size_t>(l)] = sliding[static_cast<std::size_t>(l)] ? w : 0;
    return window;
}

// Olmo2Config's (and Olmo3Config's) names and defaults; head_dim is hidden_size / num_attention_heads.
void read_olmo(const ConfigReader& r, ModelConfig& c) {
    decoder::read_common(r, c, {{{"vocab_size", 50304}, {"hidden_size", 4096}, {"num_hidden_layers", 32}, {"num_attention_heads", 32}},
                                11008, 0, 0, 2048, 1e-5, false, false});
    if (r.has("head_dim") && c.d_head != c.d_model / c.heads) r.fail("head_dim", "differs from hidden_size / num_attention_heads, which OLMo uses");
    if (r.flag("attention_bias", false)) r.fail("attention_bias", "is true; OLMo 2 and 3 have no attention biases");
}

} // namespace

void read_olmo2(const ConfigReader& r, ModelConfig& c) { read_olmo(r, c); }

void read_olmo3(const ConfigReader& r, ModelConfig& c) {
    read_olmo(r, c);
    c.sliding_window = olmo3_windows(r, c.layers);
    c.make_own<OlmoFields>().unscaled_rope_on_windows = true;
}

// llama.cpp's "olmo2" files (OLMo 2 and 3): a window on the layers attention.sliding_window_pattern
// marks, or on three of every four, where attention.sliding_window is set.
void read_gguf_olmo2(const GgufKeys& k, ModelConfig& c) {
    c.norm_eps = k.real("attention.layer_norm_rms_epsilon", 1e-30, 1.0, 1e-5);
    c.activation = "silu";
    rotary::read_gguf_scaling(k, c);
    const int w = k.whole("attention.sliding_window", 0, 1LL << 30, 0);
    if (w == 0) return;
    c.sliding_window = three_in_four(c.layers, w);
    c.make_own<OlmoFields>().unscaled_rope_on_windows = true;
    const gguf::Value* pattern = gguf::find(k.file, k.key("attention.sliding_window_pattern"));
    if (!pattern) return;
    if (pattern->type != gguf::ValueType::array || pattern->element != gguf::ValueType::boolean || pattern->size() != c.sliding_window.size())
        k.fail("attention.sliding_window_pattern", "is not a list of " + std::to_string(c.layers) + " bools");
    for (int l = 0; l < c.layers; ++l) c.sliding_window[static_cast<std::size_t>(l)] = pattern->ints[static_cast<std::size_t>(l)] ? w : 0;
}

const GgufLayout& olmo2_gguf() {
    static const GgufLayout layout{"olmo2", read_gguf_olmo2, "model.layers.", gguf_names::decoder_globals(),
                                   gguf_names::with(gguf_names::decoder_layer(), {{"post_attention_norm", "post_attention_layernorm"},
                                                                                  {"post_ffw_norm", "post_feedforward_layernorm"}}),
                                   false};
    return layout;
}

// Each layer's projections under the Llama names, its two norms of outputs and its whole-row q/k norms.
std::unique_ptr<Model> build_olmo2(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    const std::int64_t D = c.d_model, Q = static_cast<std::int64_t>(c.heads) * c.d_head, KV = static_cast<std::int64_t>(c.kv_heads) * c.d_head;
    std::vector<decoder::Block> blocks;
    for (int l = 0; l < c.layers; ++l) {
        auto name = [&](const std::string& rest) { return layers::layer_name("model.layers.", l, rest); };
        decoder::Block b;
        decoder::separate_names(*weights, c, l, b);
        b.o_w = &weights->require(name("self_attn.o_proj.weight"), {D, Q});
        b.ffn = decoder::dense_mlp(*weights, c, l);
        b.q_norm = &weights->require(name("self_attn.q_norm.weight"), {Q});
        b.k_norm = &weights->require(name("self_attn.k_norm.weight"), {KV});
        b.qk_norm_whole = true;
        b.post_attn_norm = &weights->require(name("post_attention_layernorm.weight"), {D});
        b.post_mlp_norm = &weights->require(name("post_feedforward_layernorm.weight"), {D});
        blocks.push_back(b);
    }
    decoder::Parts parts = decoder::around(*weights, c, std::move(blocks));
    parts.unscaled_rope_on_windows = c.own_as<OlmoFields>().unscaled_rope_on_windows;
    return decoder::build(c, std::move(weights), std::move(parts));
}

} // namespace core::model
