// core/model/forward.cpp — what every architecture shares: input checks, the LM head's blocks and
// greedy decoding.
#include "core/model/forward.h"

#include "core/model/weight_product.h"
#include "core/parallel.h"

#include <algorithm>
#include <cmath>

namespace core::model {

std::string head_part(int l, int h) { return "head " + std::to_string(l + 1) + "." + std::to_string(h + 1); }
std::string mlp_part(int l) { return "MLP " + std::to_string(l + 1); }

void Model::check_ids(const std::vector<int>& ids, int past) const {
    const std::string name = config_.name.empty() ? config_.architecture : config_.name;
    for (std::size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= config_.vocab)
            throw InputError("token " + std::to_string(i + 1) + " is id " + std::to_string(ids[i]) + ", outside " + name +
                             "'s vocabulary (0 … " + std::to_string(config_.vocab - 1) + ")");
    const long long total = static_cast<long long>(past) + static_cast<long long>(ids.size());
    if (total > config_.context)
        throw InputError("the text is " + std::to_string(total) + " tokens; " + name + " takes at most " + std::to_string(config_.context));
    if (past > 0 && !config_.causal) throw InputError(name + " attends both ways: it cannot extend a cache");
}

void Model::head_logits(const float* input, int rows, int v0, int v1, float* out, std::ptrdiff_t ldo, bool fast) const {
    const Unembedding u = unembedding();
    if (!u.weight) throw std::logic_error(config_.name + " has no LM head");
    const int width = u.width, n = v1 - v0;
    product_columns({input, width, rows, u.weight, Layout::out_in, out, ldo, false, fast}, v0, v1);
    const float cap = u.softcap;
    if (!u.bias && cap <= 0.0f) return;
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < n; ++j) {
            float& logit = out[static_cast<std::ptrdiff_t>(i) * ldo + j];
            if (u.bias) logit += u.bias[v0 + j];
            if (cap > 0.0f) logit = cap * std::tanh(logit / cap); // Gemma's final-logit soft-cap
        }
}

namespace {

struct FullLogits {
    const Model* model;
    const MatrixF* input; // (rows, width)
    MatrixF* logits;      // (rows, vocab)
    bool fast;
    static void block(void* context, std::ptrdiff_t b) {
        const auto& c = *static_cast<FullLogits*>(context);
        const int v0 = static_cast<int>(b) * Model::head_block, v1 = std::min(v0 + Model::head_block, static_cast<int>(c.logits->cols()));
        c.model->head_logits(c.input->data(), static_cast<int>(c.input->rows()), v0, v1, c.logits->data() + v0, c.logits->cols(), c.fast);
    }
};

} // namespace

void Model::fill_logits(ForwardResult& r, const ForwardOptions& o) const {
    if (o.logits == Logits::none || !unembedding().weight) return;
    const int t = static_cast<int>(r.hidden.rows()), rows = o.logits == Logits::all ? t : std::min(t, 1);
    const MatrixF input = head_input(r.hidden.bottomRows(rows)); // (rows, width)
    r.logits.resize(rows, config_.vocab);
    FullLogits job{this, &input, &r.logits, o.fast_products};
    core::parallel::for_each((config_.vocab + head_block - 1) / head_block, &FullLogits::block, &job);
}

void Model::apply_final_norm(MatrixF& x) const {
    const FinalNorm n = final_norm();
    if (!n.gain) return;
    const int rows = static_cast<int>(x.rows()), d = static_cast<int>(x.cols());
    if (n.centre) ops::active().layer_norm(x.data(), x.data(), rows, d, n.gain, n.bias, n.eps);
    else ops::active().rms_norm(x.data(), x.data(), rows, d, n.gain, n.eps);
}

AttentionKind Model::attention_kind(int layer) const {
    const auto l = static_cast<std::size_t>(layer);
    AttentionKind k;
    if (l < config_.sliding_window.size()) k.window = config_.sliding_window[l];
    k.rope = l >= config_.no_rope.size() || !config_.no_rope[l];
    const auto* linear = config_.own_if<LinearAttentionFields>();
    k.linear = linear && linear->linear(layer);
    if (k.linear) k.rope = false; // a linear layer reads positions through its recurrence alone
    return k;
}

int argmax(const float* values, int n) {
    int best = 0;
    for (int i = 1; i < n; ++i)
        if (values[i] > values[best]) best = i;
    return best;
}

std::vector<int> generate_greedy(const Model& model, const std::vector<int>& prompt, int count, const ForwardOptions& options,
                                 KvCache* cache) {
    KvCache local;
    KvCache& kv = cache ? *cache : local;
    kv = KvCache();
    ForwardOptions o = options;
    o.logits = Logits::last;
    std::vector<int> made;
    if (count <= 0 || prompt.empty()) return made;
    ForwardResult r = model.extend(kv, prompt, o);
    const int vocab = static_cast<int>(r.logits.cols());
    while (true) {
        made.push_back(argmax(r.logits.data() + (r.logits.rows() - 1) * vocab, vocab));
        if (static_cast<int>(made.size()) == count || kv.length >= model.config().context || model.config().is_eos(made.back())) break;
        r = model.extend(kv, {made.back()}, o);
    }
    return made;
}

} // namespace core::model
