// core/model/arch_bert.cpp — BertModel and BertForMaskedLM, as transformers' modeling_bert.py runs them.
//
//   x = LayerNorm(word_embeddings[id] + position_embeddings[i] + token_type_embeddings[0])    (t, D)
//   per layer (post-LN):
//     q, k, v = x · queryᵀ + b, x · keyᵀ + b, x · valueᵀ + b      attention.self, nn.Linear (out, in)
//     x = LayerNorm(x + heads(q, k, v) · attention.output.denseᵀ + b)        both ways, scores / √dh
//     x = LayerNorm(x + act(x · intermediate.denseᵀ + b) · output.denseᵀ + b)       act = gelu (erf)
//   BertModel: hidden = x.  BertForMaskedLM: logits = LayerNorm(act(x · transform.denseᵀ + b))
//     · word_embeddingsᵀ + cls.predictions.bias  (the decoder tied to the word embeddings)
// Names with or without the "bert." prefix; LayerNorm.gamma / .beta are read as .weight / .bias.
#include "core/model/architectures.h"
#include "core/model/layers.h"

#include <cmath>

namespace core::model {

namespace {

using layers::Layout;
using Tensor = Weights::Tensor;

struct Block {
    const Tensor *q_w, *q_b, *k_w, *k_b, *v_w, *v_b, *o_w, *o_b, *ln1_w, *ln1_b, *in_w, *in_b, *out_w, *out_b, *ln2_w, *ln2_b;
};

class Bert final : public Model {
public:
    Bert(const ModelConfig& c, std::shared_ptr<const Weights> w) : Model(c), w_(std::move(w)) {
        const std::int64_t D = c.d_model, F = c.d_ff;
        const std::string p = w_->has("bert.embeddings.word_embeddings.weight") ? "bert." : "";
        auto vec = [&](const std::string& name, std::int64_t n) { return &w_->require(name, {n}); };
        auto mat = [&](const std::string& name, std::int64_t rows, std::int64_t cols) { return &w_->require(name, {rows, cols}); };
        words_ = mat(p + "embeddings.word_embeddings.weight", c.vocab, D);
        positions_ = mat(p + "embeddings.position_embeddings.weight", c.context, D);
        types_ = mat(p + "embeddings.token_type_embeddings.weight", c.type_vocab_size, D);
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
        decoder_ = c.tie_word_embeddings ? words_ : mat("cls.predictions.decoder.weight", c.vocab, D);
        decoder_b_ = w_->has("cls.predictions.bias") ? vec("cls.predictions.bias", c.vocab) : vec("cls.predictions.decoder.bias", c.vocab);
    }

    ForwardResult extend(KvCache& cache, const std::vector<int>& ids, const ForwardOptions& o) const override;

private:
    void layer(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const;
    Unembedding unembedding() const override {
        return decoder_ ? Unembedding{decoder_->data(), decoder_b_->data(), config().d_model} : Unembedding{};
    }
    MatrixF head_input(const MatrixF& hidden) const override;
    float eps() const { return static_cast<float>(config().norm_eps); }

    std::shared_ptr<const Weights> w_;
    const Tensor *words_, *positions_, *types_, *emb_ln_w_, *emb_ln_b_;
    const Tensor *transform_w_ = nullptr, *transform_b_ = nullptr, *transform_ln_w_ = nullptr, *transform_ln_b_ = nullptr;
    const Tensor *decoder_ = nullptr, *decoder_b_ = nullptr;
    std::vector<Block> blocks_;
};

void Bert::layer(const Block& b, int l, MatrixF& x, KvCache& cache, const ForwardOptions& o, ForwardResult& r) const {
    const ModelConfig& c = config();
    const int t = static_cast<int>(x.rows()), D = c.d_model, F = c.d_ff;
    const ops::Set& op = ops::active();
    MatrixF q(t, D), k(t, D), v(t, D);                                                 // (t, D) each
    layers::project(x.data(), t, D, D, *b.q_w, Layout::out_in, b.q_b, q.data());
    layers::project(x.data(), t, D, D, *b.k_w, Layout::out_in, b.k_b, k.data());
    layers::project(x.data(), t, D, D, *b.v_w, Layout::out_in, b.v_b, v.data());
    layers::append_kv(cache, l, k.data(), D, v.data(), D, t);
    MatrixF context(t, D);                                                             // (t, H·dh)
    const float scale = 1.0f / std::sqrt(static_cast<float>(c.d_head));
    layers::attend_heads({q.data(), D, l, c.heads, c.heads, c.d_head, false, 0, scale}, cache, o, r, context.data());
    layers::ablate(context.data(), r.t_new, c.heads, c.d_head, l, o);
    layers::project(context.data(), t, D, D, *b.o_w, Layout::out_in, b.o_b, x.data(), true); // x + attention
    op.layer_norm(x.data(), x.data(), t, D, b.ln1_w->data(), b.ln1_b->data(), eps());
    MatrixF h(t, F);                                                                   // (t, F)
    layers::project(x.data(), t, D, F, *b.in_w, Layout::out_in, b.in_b, h.data());
    op.activate(h.data(), h.size(), layers::activation_of(c.activation));
    layers::project(h.data(), t, F, D, *b.out_w, Layout::out_in, b.out_b, x.data(), true);
    op.layer_norm(x.data(), x.data(), t, D, b.ln2_w->data(), b.ln2_b->data(), eps());
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

ForwardResult Bert::extend(KvCache& cache, const std::vector<int>& ids, const ForwardOptions& o) const {
    const ModelConfig& c = config();
    check_ids(ids, cache.length);
    layers::prepare_cache(cache, c);
    const int t = static_cast<int>(ids.size()), D = c.d_model;
    layers::CacheRollback rollback{cache, 0};
    ForwardResult r;
    layers::start_result(r, c, o, 0, t);
    MatrixF x(t * layers::copies_of(o, cache), D);                                     // (copies · t, D)
    const int first = layers::first_layer(o, x, t, 0, c.layers);
    if (!o.resume_from) {
        const float *words = words_->data(), *positions = positions_->data(), *type0 = types_->data();
        for (int i = 0; i < t; ++i)
            for (int j = 0; j < D; ++j)
                x(i, j) = words[static_cast<std::ptrdiff_t>(ids[static_cast<std::size_t>(i)]) * D + j] + positions[static_cast<std::ptrdiff_t>(i) * D + j] + type0[j];
        ops::active().layer_norm(x.data(), x.data(), t, D, emb_ln_w_->data(), emb_ln_b_->data(), eps());
        layers::repeat_rows(x, t);
    }
    for (int l = first; l < c.layers; ++l) {
        layers::check_cancel(o);
        layers::keep_residual(o, l, c.layers, x);
        layer(blocks_[static_cast<std::size_t>(l)], l, x, cache, o, r);
        layers::report(o, l + 1, c.layers);
    }
    rollback.commit(t);
    r.hidden = std::move(x);
    fill_logits(r, o);
    return r;
}

} // namespace

std::unique_ptr<Model> build_bert(const ModelConfig& config, std::shared_ptr<const Weights> weights) {
    return std::make_unique<Bert>(config, std::move(weights));
}

} // namespace core::model
