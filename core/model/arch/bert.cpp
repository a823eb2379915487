// core/model/arch/bert.cpp — BertModel and BertForMaskedLM, as transformers' modeling_bert.py runs them.
//
//   x = LayerNorm(word_embeddings[id] + position_embeddings[i] + token_type_embeddings[0])    (t, D)
//   per layer (post-LN):
//     q, k, v = x · queryᵀ + b, x · keyᵀ + b, x · valueᵀ + b      attention.self, nn.Linear (out, in)
//     x = LayerNorm(x + heads(q, k, v) · attention.output.denseᵀ + b)        both ways, scores / √dh
//     x = LayerNorm(x + act(x · intermediate.denseᵀ + b) · output.denseᵀ + b)       act = gelu (erf)
//   BertModel: hidden = x.  BertForMaskedLM: logits = LayerNorm(act(x · transform.denseᵀ + b))
//     · word_embeddingsᵀ + cls.predictions.bias  (the decoder tied to the word embeddings)
// Names with or without the "bert." prefix; LayerNorm.gamma / .beta are read as .weight / .bias.
#include "core/model/arch/table.h"
#include "core/model/arch/head_slices.h"
#include "core/model/arch/layers.h"
#include "core/model/format/config_reader.h"

namespace core::model {

namespace {

using layers::Layout;
using Tensor = Weights::Tensor;

struct Block {
    const Tensor *q_w, *q_b, *k_w, *k_b, *v_w, *v_b, *o_w, *o_b, *ln1_w, *ln1_b, *in_w, *in_b, *out_w, *out_b, *ln2_w, *ln2_b;
};

// BertConfig's field no other architecture reads: the rows of token_type_embeddings.
struct BertFields : OwnFields {
    int type_vocab_size = 2;
};

class Bert final : public layers::LayerStack {
public:
    Bert(const ModelConfig& c, std::shared_ptr<const Weights> w) : LayerStack(c), w_(std::move(w)) {
        const std::int64_t D = c.d_model, F = c.d_ff;
        const std::string p = w_->has("bert.embeddings.word_embeddings.weight") ? "bert." : "";
        auto vec = [&](const std::string& name, std::int64_t n) { return &w_->require(name, {n}); };
        auto mat = [&](const std::string& name, std::int64_t rows, std::int64_t cols) { return &w_->require(name, {rows, cols}); };
        words_ = mat(p + "embeddings.word_embeddings.weight", c.vocab, D);
        positions_ = mat(p + "embeddings.position_embeddings.weight", c.context, D);
        types_ = mat(p + "embeddings.token_type_embeddings.weight", c.own_as<BertFields>().type_vocab_size, D);
        emb_ln_w_ = vec(p + "embeddings.LayerNorm.weight", D);
        emb_ln_b_ = vec(p + "embeddings.LayerNorm.bias", D);
        for (int l = 0; l < c.layers; ++l) {
            auto name = [&](const std::string& rest) { return layers::layer_name(p + "encoder.layer.", l, rest); };
            blocks_.push_back({mat(name("attention.self.query.weight"), D, D), vec(name("attention.self.query.bias"), D),
                               mat(name("attention.self.key.weight"), D, D), vec(name("attention.self.key.bias"), D),
                               mat(name("attention.self.value.weight"), D, D), vec(name("attention.self.value.bias"), D),
                               mat(name("attention.output.dense.weight"), D, D), vec(name("attention.output.dense.bias"), D),
                               vec(name("attention.output.LayerNorm.weight"), D), vec(name("attention.output.LayerNorm.bias"), D),
                               mat(name("intermediate.dense.weight"), F, D), vec(name("intermediate.dense.bias"), F),
                               mat(name("output.dense.weight"), D, F), vec(name("output.dense.bias"), D),
                               vec(name("output.LayerNorm.weight"), D), vec(name("output.LayerNorm.bias"), D)});
        }
        if (!c.lm_head) return;
        transform_w_ = mat("cls.predictions.transform.dense.weight", D, D);
        transform_b_ = vec("cls.predictions.transform.dense.bias", D);
        transform_ln_w_ = vec("cls.predictions.transform.LayerNorm.weight", D);
        transform_ln_b_ = vec("cls.predictions.transform.LayerNorm.bias", D);
        head_ = c.tie_word_embeddings ? words_ : mat("cls.predictions.decoder.weight", c.vocab, D); // the decoder
        head_bias_ = w_->has("cls.predictions.bias") ? vec("cls.predictions.bias", c.vocab) : vec("cls.predictions.decoder.bias", c.vocab);
    }

private:
    void embed(const std::vector<int>& ids, int past, MatrixF& x) const override;
    void embed_parts(const std::vector<int>& ids, const MatrixF& x, const ForwardOptions& o) const override;
    void layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const override;
    void mlp(const Block& b, int l, MatrixF& x, const ForwardOptions& o) const;
    MatrixF head_input(const MatrixF& hidden) const override;
    bool linear_head() const override { return !transform_w_; }
    float eps() const { return static_cast<float>(config().norm_eps); }
    LayerAttention attention_weights(int l) const override;

    std::shared_ptr<const Weights> w_;
    const Tensor *words_, *positions_, *types_, *emb_ln_w_, *emb_ln_b_;
    const Tensor *transform_w_ = nullptr, *transform_b_ = nullptr, *transform_ln_w_ = nullptr, *transform_ln_b_ = nullptr;
    std::vector<Block> blocks_;
};

// x = LayerNorm(word_embeddings[id] + position_embeddings[i] + token_type_embeddings[0]); no cached
// positions (a bidirectional model never extends a cache)
void Bert::embed(const std::vector<int>& ids, int, MatrixF& x) const {
    const int t = static_cast<int>(ids.size()), D = config().d_model;
    MatrixF positions(t, D), type0(1, D);                                              // (t, D), (1, D)
    positions_->rows(0, t, positions.data());
    types_->rows(0, 1, type0.data());
    for (int i = 0; i < t; ++i) {
        words_->rows(ids[static_cast<std::size_t>(i)], 1, x.data() + static_cast<std::ptrdiff_t>(i) * D);
        x.row(i) += positions.row(i);
        x.row(i) += type0.row(0);
    }
    ops::active().layer_norm(x.data(), x.data(), t, D, emb_ln_w_->data(), emb_ln_b_->data(), eps());
}

// The three embeddings through the embeddings' LayerNorm frozen at their sum's scale; the token
// type's and β as "biases"
void Bert::embed_parts(const std::vector<int>& ids, const MatrixF&, const ForwardOptions& o) const {
    const auto t = static_cast<Eigen::Index>(ids.size());
    const int D = config().d_model;
    MatrixF words(t, D), positions(t, D), type0(1, D);                                 // (t, D), (t, D), (1, D)
    for (Eigen::Index i = 0; i < t; ++i) words_->rows(ids[static_cast<std::size_t>(i)], 1, words.row(i).data());
    positions_->rows(0, t, positions.data());
    types_->rows(0, 1, type0.data());
    const MatrixF sum = words + positions + type0.replicate(t, 1);
    layers::record(o, "token embedding", words);
    layers::record(o, "position embedding", positions);
    layers::record_bias(o, type0.data(), static_cast<int>(t), D);
    layers::freeze_norm(o, 0, sum, emb_ln_w_->data(), emb_ln_b_->data(), eps(), true);
}

// Post-LN: x = LayerNorm(x + attention(x)), then x = LayerNorm(x + MLP(x)); a record freezes both.
void Bert::layer(int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const ModelConfig& c = config();
    const Block& b = blocks_[static_cast<std::size_t>(l)];
    const int t = static_cast<int>(x.rows()), D = c.d_model;
    MatrixF q(t, D), k(t, D), v(t, D);                                                 // (t, D) each
    layers::project(x.data(), t, D, D, *b.q_w, Layout::out_in, b.q_b, q.data());
    layers::project(x.data(), t, D, D, *b.k_w, Layout::out_in, b.k_b, k.data());
    layers::project(x.data(), t, D, D, *b.v_w, Layout::out_in, b.v_b, v.data());
    layers::append_kv(cache, l, k.data(), D, v.data(), D, t);
    const auto scale = static_cast<float>(inverse_sqrt_head(c, l));
    layers::heads_into_stream({q.data(), D, l, c.heads, c.heads, c.d_head, false, 0, scale}, cache, o, r, *b.o_w, Layout::out_in, b.o_b,
                              x); // x + attention
    if (layers::recording(o, l)) layers::freeze_norm(o, 0, x, b.ln1_w->data(), b.ln1_b->data(), eps(), true);
    ops::active().layer_norm(x.data(), x.data(), t, D, b.ln1_w->data(), b.ln1_b->data(), eps());
    mlp(b, l, x, o);
}

// x = LayerNorm(x + act(x · intermediate.denseᵀ + b) · output.denseᵀ + b)
void Bert::mlp(const Block& b, int l, MatrixF& x, const ForwardOptions& o) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model, F = c.d_ff;
    MatrixF h(t, F);                                                                   // (t, F)
    layers::project(x.data(), t, D, F, *b.in_w, Layout::out_in, b.in_b, h.data());
    ops::active().activate(h.data(), h.size(), layers::activation_of(c.activation));
    const bool recording = layers::recording(o, l);
    const MatrixF before = recording ? x : MatrixF(); // (t, D)
    layers::project(h.data(), t, F, D, *b.out_w, Layout::out_in, b.out_b, x.data(), true);
    if (recording) {
        layers::record_write(o, mlp_part(l), before, x, b.out_b);
        layers::freeze_norm(o, 0, x, b.ln2_w->data(), b.ln2_b->data(), eps(), true);
    }
    ops::active().layer_norm(x.data(), x.data(), t, D, b.ln2_w->data(), b.ln2_b->data(), eps());
}

// No norm runs before q, k, v (post-LN); the one before them ends the layer before, or the embeddings.
LayerAttention Bert::attention_weights(int l) const {
    const ModelConfig& c = config();
    const Block& b = blocks_[static_cast<std::size_t>(l)];
    LayerAttention a = head_slices::heads_of(c, {b.q_w, b.k_w, b.v_w, b.o_w, b.q_b, b.k_b, b.v_b, Layout::out_in});
    a.gamma = head_slices::values(l == 0 ? *emb_ln_w_ : *blocks_[static_cast<std::size_t>(l - 1)].ln2_w);
    a.score_scale = static_cast<float>(inverse_sqrt_head(c, l));
    a.causal = false;
    return a;
}

// The MLM head's transform: LayerNorm(act(dense(hidden))), before the decoder.
MatrixF Bert::head_input(const MatrixF& hidden) const {
    const ModelConfig& c = config();
    const int rows = static_cast<int>(hidden.rows()), D = c.d_model;
    MatrixF h(rows, D);                                                                // (rows, D)
    layers::project(hidden.data(), rows, D, D, *transform_w_, Layout::out_in, transform_b_, h.data());
    ops::active().activate(h.data(), h.size(), layers::activation_of(c.activation));
    ops::active().layer_norm(h.data(), h.data(), rows, D, transform_ln_w_->data(), transform_ln_b_->data(), eps());
    return h;
}

} // namespace

// BertConfig's names and defaults.
void read_bert(const ConfigReader& r, ModelConfig& c) {
    read_sizes(r, c, {{"vocab_size", 30522}, {"hidden_size", 768}, {"num_hidden_layers", 12}, {"num_attention_heads", 12}});
    c.d_ff = r.whole("intermediate_size", 1, max_config_size, 3072);
    c.context = r.whole("max_position_embeddings", 1, max_config_size, 512);
    auto own = std::make_shared<BertFields>();
    own->type_vocab_size = r.whole("type_vocab_size", 1, 1 << 16, 2);
    c.own = own;
    c.norm_eps = r.real("layer_norm_eps", 1e-30, 1.0, 1e-12);
    c.activation = r.activation("hidden_act", "gelu");
    const std::string positions = r.text("position_embedding_type", "absolute");
    if (positions != "absolute") r.fail("position_embedding_type", "is " + quote_text(positions) + "; attnviz runs absolute positions");
    if (c.d_model % c.heads != 0) r.fail("hidden_size", "(" + std::to_string(c.d_model) + ") is not a multiple of num_attention_heads");
    c.kv_heads = c.heads;
    c.d_head = c.d_model / c.heads;
    c.causal = false;
    c.tie_word_embeddings = r.flag("tie_word_embeddings", true);
}

std::unique_ptr<Model> build_bert(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    return std::make_unique<Bert>(config, std::move(weights));
}

} // namespace core::model
