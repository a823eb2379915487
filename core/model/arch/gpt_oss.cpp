// core/model/arch/gpt_oss.cpp — GptOssForCausalLM, as transformers' modeling_gpt_oss.py runs it: the
// Llama layer (arch/decoder.h) with q/k/v/o biases, a learned sink per head (self_attn.sinks, its
// logit in each row's softmax after the scale and mask), a sliding window on the layers layer_types
// names (by default layers 1, 3, 5, … counted from 1), YaRN, and in place of the MLP on every layer a
// mixture (arch/feed_forward.h): the router mlp.router (with bias) picks the top num_experts_per_tok
// of its logits, weighted by a softmax over those alone; each expert runs the clamped SwiGLU
// (alpha 1.702, swiglu_limit) with biases.
//
// The Hub stacks each layer's experts in (experts, in, out) tensors, gate and up interleaved in one
// (gate at the even outputs): mlp.experts.gate_up_proj (E, D, 2F) and down_proj (E, F, D), dequantized;
// or the original checkpoint's MXFP4 *_blocks (E, out, in/32, 16) and *_scales (E, out, in/32) in U8,
// each byte two values, the even one in its low nibble. Those are read where they lie in the mapping
// (Weights::Tensor::mxfp4_pairs): the products dequantize a row from its two runs, the values' and
// the scales', to the same numbers as ggml's MXFP4 blocks of GGUF's files; only the experts the
// router picks are paged in.
//
// llama.cpp's "gpt-oss" files (src/models/openai-moe-iswa.cpp) hold the experts as three (E, out, in)
// tensors, gate and up apart, with (E, out) biases; the window is on the even layers (0, 2, … from 0)
// from attention.sliding_window alone, the clamp llama.cpp's fixed 7.
#include "core/model/arch/decoder.h"
#include "core/model/arch/gguf_names.h"
#include "core/model/arch/rotary.h"
#include "core/model/arch/table.h"
#include "core/model/format/gguf_model.h"

namespace core::model {

namespace {

using core::io::FileError;
using feed_forward::Expert;
using feed_forward::MixtureTensors;

// sliding_window on the layers layer_types names; GptOssConfig's default slides the layers at even
// indices from 0.
std::vector<int> gpt_oss_windows(const ConfigReader& r, int layers) {
    const int w = r.whole("sliding_window", 1, 1LL << 30, 128);
    std::vector<bool> sliding = r.sliding_layers(layers);
    std::vector<int> window(static_cast<std::size_t>(layers), 0);
    for (int l = 0; l < layers; ++l) window[static_cast<std::size_t>(l)] = (sliding.empty() ? l % 2 == 0 : sliding[static_cast<std::size_t>(l)]) ? w : 0;
    return window;
}

// GptOssConfig's rope_scaling where config.json has none: gpt-oss-20b's YaRN.
RopeScaling default_yarn(const ConfigReader& r, int rotary_dim) {
    const nlohmann::json j = {{"rope_scaling",
                               {{"rope_type", "yarn"}, {"factor", 32.0}, {"beta_fast", 32.0}, {"beta_slow", 1.0}, {"truncate", false},
                                {"original_max_position_embeddings", 4096}}}};
    return rotary::read_scaling(ConfigReader{j, r.path}, rotary_dim);
}

// The Hub's MXFP4 `name`_blocks (E, R, C/32, 16) and `name`_scales (E, R, C/32) as one MXFP4 tensor
// (E, R, C) over their bytes in the mapping.
std::unique_ptr<Weights::Tensor> mxfp4_in_place(const Weights& w, const std::string& name, std::int64_t E, std::int64_t R, std::int64_t C) {
    if (C % 32 != 0) throw FileError(w.path() + ": tensor \"" + name + "_blocks\" holds rows of " + std::to_string(C) + " values, not whole blocks of 32");
    const unsigned char* blocks = w.require_bytes(name + "_blocks", {E, R, C / 32, 16});
    const unsigned char* scales = w.require_bytes(name + "_scales", {E, R, C / 32});
    return Weights::Tensor::mxfp4_pairs({E, R, C}, blocks, scales, w.path() + ": tensor \"" + name + "_blocks\"");
}

// Layer l's experts as the Hub stacks them, `p` "model.layers.L.mlp.experts.": MXFP4 blocks where
// the file has them, else the dequantized (in, out) tensors.
void hub_experts(const Weights& w, const ModelConfig& c, const std::string& p, MixtureTensors& t) {
    const std::int64_t E = c.experts, D = c.d_model, F = c.d_expert;
    const Weights::Tensor *gate_up, *down;
    Layout layout = Layout::in_out;
    if (w.has(p + "gate_up_proj_blocks")) {
        t.owned.push_back(mxfp4_in_place(w, p + "gate_up_proj", E, 2 * F, D)); // (E, 2F, D)
        t.owned.push_back(mxfp4_in_place(w, p + "down_proj", E, D, F));        // (E, D, F)
        gate_up = t.owned[0].get();
        down = t.owned[1].get();
        layout = Layout::out_in;
    } else {
        gate_up = &w.require(p + "gate_up_proj", {E, D, 2 * F}); // (E, D, 2F)
        down = &w.require(p + "down_proj", {E, F, D});          // (E, F, D)
    }
    const Weights::Tensor& gate_up_b = w.require(p + "gate_up_proj_bias", {E, 2 * F}); // (E, 2F)
    const Weights::Tensor& down_b = w.require(p + "down_proj_bias", {E, D});          // (E, D)
    for (int e = 0; e < c.experts; ++e) {
        Expert ex;
        ex.gate_up = &gate_up->part(e);
        ex.down = &down->part(e);
        ex.layout = layout;
        ex.gate_up_b = &gate_up_b.part(e);
        ex.down_b = &down_b.part(e);
        t.experts.push_back(ex);
    }
}

// Layer l's experts in a GGUF file: gate, up (E, F, D) and down (E, D, F), each with its (E, out) bias.
void gguf_experts(const Weights& w, const ModelConfig& c, const std::string& p, MixtureTensors& t) {
    const std::int64_t E = c.experts, D = c.d_model, F = c.d_expert;
    const Weights::Tensor& gate = w.require(p + "gate_proj.weight", {E, F, D});
    const Weights::Tensor& up = w.require(p + "up_proj.weight", {E, F, D});
    const Weights::Tensor& down = w.require(p + "down_proj.weight", {E, D, F});
    const Weights::Tensor& gate_b = w.require(p + "gate_proj.bias", {E, F});
    const Weights::Tensor& up_b = w.require(p + "up_proj.bias", {E, F});
    const Weights::Tensor& down_b = w.require(p + "down_proj.bias", {E, D});
    for (int e = 0; e < c.experts; ++e) {
        Expert ex;
        ex.gate = &gate.part(e);
        ex.up = &up.part(e);
        ex.down = &down.part(e);
        ex.gate_b = &gate_b.part(e);
        ex.up_b = &up_b.part(e);
        ex.down_b = &down_b.part(e);
        t.experts.push_back(ex);
    }
}

std::shared_ptr<const feed_forward::FeedForward> gpt_oss_mixture(const Weights& w, const ModelConfig& c, int l) {
    const std::string p = layers::layer_name("model.layers.", l, "mlp.");
    MixtureTensors t;
    t.router = &w.require(p + "router.weight", {c.experts, c.d_model});
    t.router_b = &w.require(p + "router.bias", {c.experts});
    if (c.stacked_experts) gguf_experts(w, c, p + "experts.", t);
    else hub_experts(w, c, p + "experts.", t);
    return std::make_shared<feed_forward::Mixture>(std::move(t), c.experts_per_token, c.d_expert, feed_forward::routing_rule("top_k_softmax"),
                                                   feed_forward::expert_activation("swiglu_clamped"), static_cast<float>(c.swiglu_limit));
}

} // namespace

// GptOssConfig's names and defaults (rope_theta 150000, YaRN); the experts' width is intermediate_size;
// q/k/v/o always have biases (GptOssConfig sets attention_bias itself).
void read_gpt_oss(const ConfigReader& r, ModelConfig& c) {
    decoder::read_common(r, c, {{{"vocab_size", 201088}, {"hidden_size", 2880}, {"num_hidden_layers", 36}, {"num_attention_heads", 64}},
                                2880, 8, 64, 131072, 1e-5, false, false});
    c.rope_theta = r.real("rope_theta", 1e-6, 1e15, 150000.0);
    if (!r.j.contains("rope_scaling")) {
        c.rope_scaling = default_yarn(r, c.rotary_dim);
        c.context = rotary::rotary_context(c);
    }
    c.attention_bias = c.o_bias = true;
    c.sliding_window = gpt_oss_windows(r, c.layers);
    c.experts = r.whole("num_local_experts", 1, 1 << 16, 128);
    const char* top_k = r.has("num_experts_per_tok") || !r.has("experts_per_token") ? "num_experts_per_tok" : "experts_per_token";
    c.experts_per_token = r.whole(top_k, 1, c.experts, 4);
    c.d_expert = c.d_ff;
    c.swiglu_limit = r.real("swiglu_limit", 1e-6, 1e6, 7.0);
    c.sparse_layers.assign(static_cast<std::size_t>(c.layers), true);
}

// llama.cpp's "gpt-oss" files: a window on the even layers where attention.sliding_window is set.
void read_gguf_gpt_oss(const GgufKeys& k, ModelConfig& c) {
    c.norm_eps = k.real("attention.layer_norm_rms_epsilon", 1e-30, 1.0, 1e-5);
    c.activation = "silu";
    c.attention_bias = c.o_bias = true;
    rotary::read_gguf_scaling(k, c);
    c.experts = k.whole("expert_count", 1, 1 << 16);
    c.experts_per_token = k.whole("expert_used_count", 1, c.experts);
    c.d_expert = k.whole("expert_feed_forward_length", 1, max_config_size);
    c.swiglu_limit = 7.0;
    c.sparse_layers.assign(static_cast<std::size_t>(c.layers), true);
    c.stacked_experts = true;
    const int w = k.whole("attention.sliding_window", 0, 1LL << 30, 0);
    c.sliding_window.assign(static_cast<std::size_t>(c.layers), 0);
    for (int l = 0; l < c.layers; l += 2) c.sliding_window[static_cast<std::size_t>(l)] = w;
}

const GgufLayout& gpt_oss_gguf() {
    static const GgufLayout layout{"gpt-oss", read_gguf_gpt_oss, "model.layers.", gguf_names::decoder_globals(),
                                   gguf_names::with(gguf_names::with_experts(gguf_names::decoder_layer(), "mlp.router"),
                                                    {{"post_attention_norm", "post_attention_layernorm"}, {"attn_sinks", "self_attn.sinks"}}),
                                   false};
    return layout;
}

// Each layer's projections with biases, its sinks (GGUF: "….sinks.weight") and its mixture.
std::unique_ptr<Model> build_gpt_oss(const ModelConfig& c, std::shared_ptr<const Weights> weights) {
    std::vector<decoder::Block> blocks;
    for (int l = 0; l < c.layers; ++l) {
        blocks.push_back(decoder::common_names(*weights, c, l));
        decoder::separate_names(*weights, c, l, blocks.back());
        const std::string sinks = layers::layer_name("model.layers.", l, c.stacked_experts ? "self_attn.sinks.weight" : "self_attn.sinks");
        blocks.back().sinks = &weights->require(sinks, {c.heads});
        blocks.back().ffn = gpt_oss_mixture(*weights, c, l);
    }
    decoder::Parts parts = decoder::around(*weights, c, std::move(blocks));
    return decoder::build(c, std::move(weights), std::move(parts));
}

} // namespace core::model
