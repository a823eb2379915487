// core/model/arch/gpt2.cpp — GPT2LMHeadModel, as transformers' modeling_gpt2.py runs it.
//
//   x = wte[id] + wpe[position]                                               (t, D)
//   per block:  a = ln_1(x);  q | k | v = a · c_attn.weight + c_attn.bias        (t, 3D), Conv1D (in, out)
//               x += heads(q, k, v) · attn.c_proj.weight + bias                   causal, scores / √d_head
//               x += act(ln_2(x) · mlp.c_fc.weight + bias) · mlp.c_proj.weight + bias   act = gelu_new
//   logits = ln_f(x) · wteᵀ (lm_head tied to wte)                             (t, V)
// Names with or without the "transformer." prefix; attn.bias / attn.masked_bias are mask buffers
// and are never read. From a GGUF file (linear_projections) the four projections are (out, in). attnviz's own trained models run here too, converted to these names.
#include "core/model/arch/table.h"
#include "core/model/arch/head_slices.h"
#include "core/model/arch/layers.h"
#include "core/model/format/config_reader.h"
#include "core/model/format/gguf_model.h"

namespace core::model {

namespace {

using layers::Layout;
using Tensor = Weights::Tensor;

// GPT2Config's fields no other architecture reads: the scores divided by √d_head, and by layer + 1 too.
struct Gpt2Fields : OwnFields {
    bool scale_attn_weights = true;
    bool scale_attn_by_inverse_layer_idx = false;
};

struct Block {
    const Tensor *ln1_w, *ln1_b, *c_attn_w, *c_attn_b, *c_proj_w, *c_proj_b;
    const Tensor *ln2_w = nullptr, *ln2_b = nullptr, *fc_w = nullptr, *fc_b = nullptr, *proj_w = nullptr, *proj_b = nullptr;
};

class Gpt2 final : public layers::LayerStack {
public:
    Gpt2(const ModelConfig& c, std::shared_ptr<const Weights> w)
        : LayerStack(c), w_(std::move(w)), layout_(c.linear_projections ? Layout::out_in : Layout::in_out) {
        const std::int64_t D = c.d_model, F = c.d_ff;
        // (in, out) as Conv1D stores it, or (out, in)
        auto matrix = [&](std::int64_t in, std::int64_t out) { return c.linear_projections ? Shape{out, in} : Shape{in, out}; };
        const std::string p = w_->has("transformer.wte.weight") ? "transformer." : "";
        wte_ = &w_->require(p + "wte.weight", {c.vocab, D});
        wpe_ = &w_->require(p + "wpe.weight", {c.context, D});
        for (int l = 0; l < c.layers; ++l) {
            auto name = [&](const std::string& rest) { return layers::layer_name(p + "h.", l, rest); };
            Block b{&w_->require(name("ln_1.weight"), {D}), &w_->require(name("ln_1.bias"), {D}),
                    &w_->require(name("attn.c_attn.weight"), matrix(D, 3 * D)), &w_->require(name("attn.c_attn.bias"), {3 * D}),
                    &w_->require(name("attn.c_proj.weight"), matrix(D, D)), &w_->require(name("attn.c_proj.bias"), {D})};
            if (c.mlp) {
                b.ln2_w = &w_->require(name("ln_2.weight"), {D});
                b.ln2_b = &w_->require(name("ln_2.bias"), {D});
                b.fc_w = &w_->require(name("mlp.c_fc.weight"), matrix(D, F));
                b.fc_b = &w_->require(name("mlp.c_fc.bias"), {F});
                b.proj_w = &w_->require(name("mlp.c_proj.weight"), matrix(F, D));
                b.proj_b = &w_->require(name("mlp.c_proj.bias"), {D});
            }
            blocks_.push_back(b);
        }
        lnf_w_ = &w_->require(p + "ln_f.weight", {D});
        lnf_b_ = &w_->require(p + "ln_f.bias", {D});
        // GPT2LMHeadModel ties lm_head to wte; a checkpoint saved untied keeps its own.
        head_ = c.tie_word_embeddings ? wte_ : &w_->require("lm_head.weight", {c.vocab, D});
    }

private:
    void embed(const std::vector<int>& ids, int past, MatrixF& x) const override;
    void embed_parts(const std::vector<int>& ids, const MatrixF& x, const ForwardOptions& o) const override;
    void layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const override;
    FinalNorm final_norm() const override;
    void tokens(const std::vector<int>& ids, MatrixF& x) const;
    void attention(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const;
    void mlp(const Block& b, MatrixF& x) const;
    LayerAttention attention_weights(int l) const override;

    std::shared_ptr<const Weights> w_;
    Layout layout_; // of the four projections
    const Tensor *wte_, *wpe_, *lnf_w_, *lnf_b_;
    std::vector<Block> blocks_;
};

// x += c_proj(heads(ln_1(x)))
void Gpt2::attention(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model;
    MatrixF a(t, D);                                                                   // (t, D)
    ops::active().layer_norm(x.data(), a.data(), t, D, b.ln1_w->data(), b.ln1_b->data(), static_cast<float>(c.norm_eps));
    MatrixF qkv(t, 3 * D);                                                             // (t, 3D)
    layers::project(a.data(), t, D, 3 * D, *b.c_attn_w, layout_, b.c_attn_b, qkv.data());
    layers::append_kv(cache, l, qkv.data() + D, 3 * D, qkv.data() + 2 * D, 3 * D, t);
    const auto scale = static_cast<float>(score_scale(c, l));
    layers::heads_into_stream({qkv.data(), 3 * D, l, c.heads, c.heads, c.d_head, true, 0, scale}, cache, o, r, *b.c_proj_w,
                              layout_, b.c_proj_b, x);
}

// x += c_proj(act(c_fc(ln_2(x))))
void Gpt2::mlp(const Block& b, MatrixF& x) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model, F = c.d_ff;
    MatrixF a(t, D);                                                                   // (t, D)
    ops::active().layer_norm(x.data(), a.data(), t, D, b.ln2_w->data(), b.ln2_b->data(), static_cast<float>(c.norm_eps));
    MatrixF h(t, F);                                                                   // (t, F)
    layers::project(a.data(), t, D, F, *b.fc_w, layout_, b.fc_b, h.data());
    ops::active().activate(h.data(), h.size(), layers::activation_of(c.activation));
    layers::project(h.data(), t, F, D, *b.proj_w, layout_, b.proj_b, x.data(), true);
}

// x's first rows = wte[id]
void Gpt2::tokens(const std::vector<int>& ids, MatrixF& x) const {
    const int D = config().d_model;
    for (int i = 0; i < static_cast<int>(ids.size()); ++i)
        wte_->rows(ids[static_cast<std::size_t>(i)], 1, x.data() + static_cast<std::ptrdiff_t>(i) * D);
}

// q | k | v are c_attn's outputs 0, D and 2D on; the heads' values go into c_proj.
LayerAttention Gpt2::attention_weights(int l) const {
    const ModelConfig& c = config();
    const Block& b = blocks_[static_cast<std::size_t>(l)];
    const Tensor *w = b.c_attn_w, *bias = b.c_attn_b;
    LayerAttention a = head_slices::heads_of(c, {w, w, w, b.c_proj_w, bias, bias, bias, Layout::in_out, 0, c.d_model, 2 * c.d_model});
    a.norm = head_slices::norm(NormWeights::Kind::layer, *b.ln1_w, b.ln1_b, c.norm_eps);
    a.gamma = a.norm.scale;
    a.score_scale = static_cast<float>(score_scale(c, l));
    return a;
}

// x = wte[id] + wpe[position]
void Gpt2::embed(const std::vector<int>& ids, int past, MatrixF& x) const {
    const int t = static_cast<int>(ids.size());
    MatrixF positions(t, config().d_model);                                            // (t, D)
    wpe_->rows(past, t, positions.data());
    tokens(ids, x);
    x.topRows(t) += positions;
}

// wte[id] and wpe[position], apart (from position 0: a record has no cache)
void Gpt2::embed_parts(const std::vector<int>& ids, const MatrixF&, const ForwardOptions& o) const {
    const auto t = static_cast<Eigen::Index>(ids.size());
    MatrixF words(t, config().d_model), positions(t, config().d_model);               // (t, D) each
    tokens(ids, words);
    wpe_->rows(0, t, positions.data());
    layers::record(o, "token embedding", std::move(words));
    layers::record(o, "position embedding", std::move(positions));
}

void Gpt2::layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const Block& b = blocks_[static_cast<std::size_t>(l)];
    attention(b, l, x, cache, o, r);
    if (!config().mlp) return;
    if (!layers::recording(o, l)) return layers::position_wise(o, l, config().layers, r.t_new, x, [&](MatrixF& rows) { mlp(b, rows); });
    const MatrixF before = x; // (t, D)
    mlp(b, x);
    layers::record_write(o, mlp_part(l), before, x, b.proj_b);
}

// ln_f, before the tied head
Model::FinalNorm Gpt2::final_norm() const { return {true, lnf_w_->data(), lnf_b_->data(), static_cast<float>(config().norm_eps)}; }

} // namespace

// GPT2Config's names and defaults.
void read_gpt2(const ConfigReader& r, ModelConfig& c) {
    read_sizes(r, c, {{"vocab_size", 50257}, {"n_embd", 768}, {"n_layer", 12}, {"n_head", 12}});
    c.context = r.whole("n_positions", 1, max_config_size, 1024);
    c.d_ff = r.whole("n_inner", 1, max_config_size, 4 * c.d_model);
    c.norm_eps = r.real("layer_norm_epsilon", 1e-30, 1.0, 1e-5);
    c.activation = r.activation("activation_function", "gelu_new");
    auto own = std::make_shared<Gpt2Fields>();
    own->scale_attn_weights = r.flag("scale_attn_weights", true);
    own->scale_attn_by_inverse_layer_idx = r.flag("scale_attn_by_inverse_layer_idx", false);
    c.own = own;
    c.tie_word_embeddings = r.flag("tie_word_embeddings", true);
    if (c.d_model % c.heads != 0) r.fail("n_embd", "(" + std::to_string(c.d_model) + ") is not a multiple of n_head (" + std::to_string(c.heads) + ")");
    c.kv_heads = c.heads;
    c.d_head = c.d_model / c.heads;
}

// 1/√d_head with scale_attn_weights, and 1/(layer + 1) more with scale_attn_by_inverse_layer_idx.
double gpt2_score_scale(const ModelConfig& c, int layer) {
    const Gpt2Fields& own = c.own_as<Gpt2Fields>();
    double scale = own.scale_attn_weights ? inverse_sqrt_head(c, layer) : 1.0;
    if (own.scale_attn_by_inverse_layer_idx) scale /= layer + 1;
    return scale;
}

// llama.cpp's "gpt2" files: LayerNorm's epsilon, gelu_new (ggml's tanh GELU), the projections (out, in).
void read_gguf_gpt2(const GgufKeys& k, ModelConfig& c) {
    c.norm_eps = k.real("attention.layer_norm_epsilon", 1e-30, 1.0, 1e-5);
    c.activation = "gelu_new";
    c.linear_projections = true;
    if (c.kv_heads != c.heads || c.d_head * c.heads != c.d_model) k.fail("attention.head_count", "does not split embedding_length into GPT-2's heads");
}

const GgufLayout& gpt2_gguf() {
    static const GgufLayout layout{"gpt2", read_gguf_gpt2, "h.",
                                   {{"token_embd", "wte"}, {"position_embd", "wpe"}, {"output_norm", "ln_f"}, {"output", "lm_head"}},
                                   {{"attn_norm", "ln_1"}, {"attn_qkv", "attn.c_attn"}, {"attn_output", "attn.c_proj"},
                                    {"ffn_norm", "ln_2"}, {"ffn_up", "mlp.c_fc"}, {"ffn_down", "mlp.c_proj"}},
                                   false};
    return layout;
}

std::unique_ptr<Model> build_gpt2(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    return std::make_unique<Gpt2>(config, std::move(weights));
}

} // namespace core::model
