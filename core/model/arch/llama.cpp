// core/model/arch/llama.cpp — LlamaForCausalLM, MistralForCausalLM and Qwen2ForCausalLM, as
// transformers' modeling_llama.py, modeling_mistral.py and modeling_qwen2.py run them.
//
//   x = embed_tokens[id]                                                        (t, D)
//   per layer:  a = RMSNorm(x) · input_layernorm.weight     (variance in float32)
//               q, k, v = a · q_projᵀ (+ b), a · k_projᵀ (+ b), a · v_projᵀ (+ b)   (t, H·dh), (t, Hkv·dh)
//               q, k ← rotate-half RoPE at each position (rope_theta, rope_scaling)
//               x += heads(q, k, v) · o_projᵀ        query head h reads key/value head h / (H / Hkv)
//               a = RMSNorm(x) · post_attention_layernorm.weight
//               x += (act(a · gate_projᵀ) ⊙ (a · up_projᵀ)) · down_projᵀ            act = silu
//   logits = RMSNorm(x) · model.norm.weight · lm_headᵀ (embed_tokens when tie_word_embeddings)
// Qwen2 has q/k/v biases; Llama has q/k/v/o biases with attention_bias; Mistral (and Qwen2 with
// use_sliding_window) attend only to the last sliding_window positions.
#include "core/model/arch/table.h"
#include "core/model/arch/layers.h"
#include "core/model/arch/rotary.h"
#include "core/model/format/config_reader.h"

namespace core::model {

namespace {

using layers::Layout;
using Tensor = Weights::Tensor;

struct Block {
    const Tensor *ln1, *q_w, *k_w, *v_w, *o_w, *ln2, *gate_w, *up_w, *down_w;
    const Tensor *q_b = nullptr, *k_b = nullptr, *v_b = nullptr, *o_b = nullptr;
    const Tensor *gate_b = nullptr, *up_b = nullptr, *down_b = nullptr;
};

class Llama final : public layers::LayerStack {
public:
    Llama(const ModelConfig& c, std::shared_ptr<const Weights> w)
        : LayerStack(c), w_(std::move(w)), inv_freq_(rotary::inverse_frequencies(c.rope_theta, c.rotary_dim, c.rope_scaling)) {
        const std::int64_t D = c.d_model, F = c.d_ff, Q = static_cast<std::int64_t>(c.heads) * c.d_head,
                           KV = static_cast<std::int64_t>(c.kv_heads) * c.d_head;
        embed_ = &w_->require("model.embed_tokens.weight", {c.vocab, D});
        for (int l = 0; l < c.layers; ++l) {
            auto name = [&](const std::string& rest) { return layers::layer_name("model.layers.", l, rest); };
            Block b{&w_->require(name("input_layernorm.weight"), {D}),
                    &w_->require(name("self_attn.q_proj.weight"), {Q, D}), &w_->require(name("self_attn.k_proj.weight"), {KV, D}),
                    &w_->require(name("self_attn.v_proj.weight"), {KV, D}), &w_->require(name("self_attn.o_proj.weight"), {D, Q}),
                    &w_->require(name("post_attention_layernorm.weight"), {D}),
                    &w_->require(name("mlp.gate_proj.weight"), {F, D}), &w_->require(name("mlp.up_proj.weight"), {F, D}),
                    &w_->require(name("mlp.down_proj.weight"), {D, F})};
            if (c.attention_bias) {
                b.q_b = &w_->require(name("self_attn.q_proj.bias"), {Q});
                b.k_b = &w_->require(name("self_attn.k_proj.bias"), {KV});
                b.v_b = &w_->require(name("self_attn.v_proj.bias"), {KV});
            }
            if (c.o_bias) b.o_b = &w_->require(name("self_attn.o_proj.bias"), {D});
            if (c.mlp_bias) {
                b.gate_b = &w_->require(name("mlp.gate_proj.bias"), {F});
                b.up_b = &w_->require(name("mlp.up_proj.bias"), {F});
                b.down_b = &w_->require(name("mlp.down_proj.bias"), {D});
            }
            blocks_.push_back(b);
        }
        norm_ = &w_->require("model.norm.weight", {D});
        head_ = c.tie_word_embeddings ? embed_ : &w_->require("lm_head.weight", {c.vocab, D});
    }

private:
    void embed(const std::vector<int>& ids, int past, MatrixF& x) const override;
    void layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const override;
    void finish(MatrixF& x) const override;
    void attention(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const;
    void mlp(const Block& b, MatrixF& x) const;

    std::shared_ptr<const Weights> w_;
    std::vector<float> inv_freq_; // (rotary_dim / 2)
    const Tensor *embed_, *norm_;
    std::vector<Block> blocks_;
};

void Llama::attention(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model, Q = c.heads * c.d_head, KV = c.kv_heads * c.d_head;
    const int past = cache.length;
    MatrixF a(t, D);                                                                   // (t, D)
    ops::active().rms_norm(x.data(), a.data(), t, D, b.ln1->data(), static_cast<float>(c.norm_eps));
    MatrixF q(t, Q), k(t, KV), v(t, KV);                                               // (t, H·dh), (t, Hkv·dh)
    layers::project(a.data(), t, D, Q, *b.q_w, Layout::out_in, b.q_b, q.data());
    layers::project(a.data(), t, D, KV, *b.k_w, Layout::out_in, b.k_b, k.data());
    layers::project(a.data(), t, D, KV, *b.v_w, Layout::out_in, b.v_b, v.data());
    for (int c0 = 0; c0 < t; c0 += r.t_new) { // each copy's positions
        rotary::rotate(q.data() + static_cast<std::ptrdiff_t>(c0) * Q, Q, r.t_new, c.heads, c.d_head, past, inv_freq_);
        rotary::rotate(k.data() + static_cast<std::ptrdiff_t>(c0) * KV, KV, r.t_new, c.kv_heads, c.d_head, past, inv_freq_);
    }
    layers::append_kv(cache, l, k.data(), KV, v.data(), KV, t);
    const auto scale = static_cast<float>(inverse_sqrt_head(c, l));
    const int window = c.sliding_window[static_cast<std::size_t>(l)];
    layers::heads_into_stream({q.data(), Q, l, c.heads, c.kv_heads, c.d_head, true, window, scale}, cache, o, r, *b.o_w, Layout::out_in,
                              b.o_b, x);
}

void Llama::mlp(const Block& b, MatrixF& x) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model, F = c.d_ff;
    MatrixF a(t, D);                                                                   // (t, D)
    ops::active().rms_norm(x.data(), a.data(), t, D, b.ln2->data(), static_cast<float>(c.norm_eps));
    MatrixF gate(t, F), up(t, F);                                                      // (t, F)
    layers::project(a.data(), t, D, F, *b.gate_w, Layout::out_in, b.gate_b, gate.data());
    layers::project(a.data(), t, D, F, *b.up_w, Layout::out_in, b.up_b, up.data());
    ops::active().gated(gate.data(), up.data(), gate.size(), layers::activation_of(c.activation));
    layers::project(gate.data(), t, F, D, *b.down_w, Layout::out_in, b.down_b, x.data(), true);
}

// x = embed_tokens[id]; the positions come in by rotation, in each layer
void Llama::embed(const std::vector<int>& ids, int, MatrixF& x) const {
    const int D = config().d_model;
    const float* embed = embed_->data();
    for (int i = 0; i < static_cast<int>(ids.size()); ++i)
        std::copy_n(embed + static_cast<std::ptrdiff_t>(ids[static_cast<std::size_t>(i)]) * D, D, x.data() + static_cast<std::ptrdiff_t>(i) * D);
}

void Llama::layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const Block& b = blocks_[static_cast<std::size_t>(l)];
    attention(b, l, x, cache, o, r);
    mlp(b, x);
}

// model.norm, before lm_head
void Llama::finish(MatrixF& x) const {
    const ModelConfig& c = config();
    ops::active().rms_norm(x.data(), x.data(), static_cast<int>(x.rows()), c.d_model, norm_->data(), static_cast<float>(c.norm_eps));
}

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
// biases and the window).
void read_llama(const ConfigReader& r, ModelConfig& c) {
    read_sizes(r, c, {{"vocab_size", 0}, {"hidden_size", 0}, {"num_hidden_layers", 0}, {"num_attention_heads", 0}});
    c.d_ff = r.whole("intermediate_size", 1, max_config_size);
    c.kv_heads = r.whole("num_key_value_heads", 1, 4096, c.heads);
    if (c.heads % c.kv_heads != 0)
        r.fail("num_key_value_heads", "(" + std::to_string(c.kv_heads) + ") does not divide num_attention_heads (" + std::to_string(c.heads) + ")");
    if (!r.has("head_dim") && c.d_model % c.heads != 0)
        r.fail("hidden_size", "(" + std::to_string(c.d_model) + ") is not a multiple of num_attention_heads and there is no head_dim");
    c.d_head = r.whole("head_dim", 2, 65536, c.d_model / c.heads);
    if (c.d_head % 2 != 0) r.fail("head_dim", "is odd (" + std::to_string(c.d_head) + "); rotary positions rotate pairs");
    c.rotary_dim = c.d_head;
    c.context = r.whole("max_position_embeddings", 1, 1 << 30, 2048);
    c.norm_eps = r.real("rms_norm_eps", 1e-30, 1.0, 1e-6);
    c.activation = r.activation("hidden_act", "silu");
    c.rope_theta = r.real("rope_theta", 1e-6, 1e15, 10000.0);
    c.rope_scaling = rotary::read_scaling(r);
    c.tie_word_embeddings = r.flag("tie_word_embeddings", false);
    const bool qwen2 = c.architecture == "Qwen2ForCausalLM";
    const bool llama = c.architecture == "LlamaForCausalLM";
    c.attention_bias = qwen2 || (llama && r.flag("attention_bias", false));
    c.o_bias = llama && c.attention_bias;
    c.mlp_bias = llama && r.flag("mlp_bias", false);
    c.sliding_window = read_sliding_window(r, c);
}

std::unique_ptr<Model> build_llama(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    return std::make_unique<Llama>(config, std::move(weights));
}

} // namespace core::model
