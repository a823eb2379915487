// core/model/decode_steps.cpp — greedy decoding, one step per call, on the model's own KV cache.
#include "core/model/decode_steps.h"

namespace core::model {

std::size_t CacheSize::bytes() const {
    return 2 * static_cast<std::size_t>(layers) * static_cast<std::size_t>(kv_heads) * static_cast<std::size_t>(d_head) *
           static_cast<std::size_t>(length) * static_cast<std::size_t>(bytes_per_number);
}

std::size_t CacheSize::bytes_without_gqa() const {
    CacheSize full = *this;
    full.kv_heads = heads;
    return full.bytes();
}

CacheSize cache_size(const ModelConfig& c, const KvCache& cache) {
    CacheSize s;
    s.layers = c.layers;
    s.heads = c.heads;
    s.kv_heads = c.kv_heads;
    s.d_head = c.d_head;
    s.length = cache.length;
    s.bytes_per_number = static_cast<int>(sizeof(float)); // the cache keeps float32 whatever the weights' dtype
    return s;
}

void Stepper::start(const Model& model, const std::vector<int>& prompt, const ForwardOptions& options) {
    const ModelConfig& c = model.config();
    if (!model.causal() || !c.lm_head) throw InputError(c.architecture + " does not predict the next token, so it does not generate text");
    if (prompt.empty()) throw InputError("generating needs a prompt of at least one token");
    // A head's mean is over the whole sequence, which one new row of the cache cannot give.
    if (!options.ablate.empty() && options.ablation == Ablation::mean)
        throw InputError("a head knocked out by its mean needs the whole sequence at each step; knock it out to zero to step");
    options_ = options;
    options_.capture_qkv = false;
    options_.logits = Logits::last;
    options_.attention = true;
    KvCache fresh;
    last_ = model.extend(fresh, prompt, options_); // throws InputError for ids the model cannot take
    cache_ = std::move(fresh);
    ids_ = prompt;
    prompt_ = static_cast<int>(prompt.size());
}

bool Stepper::can_step(const Model& model) const { return prompt_ > 0 && cache_.length < model.config().context && !ended(model); }

bool Stepper::ended(const Model& model) const { return static_cast<int>(ids_.size()) > prompt_ && model.config().is_eos(ids_.back()); }

int Stepper::step(const Model& model, const std::atomic<bool>* cancel) {
    if (prompt_ == 0) throw InputError("start the decoding with a prompt first");
    if (ended(model)) throw InputError("the text has ended: the model generated its end-of-text token");
    if (!can_step(model))
        throw InputError("the context is full: " + model.config().architecture + " takes at most " + std::to_string(model.config().context) + " tokens");
    const int vocab = static_cast<int>(last_.logits.cols());
    const int next = argmax(last_.logits.data() + (last_.logits.rows() - 1) * vocab, vocab);
    ForwardOptions o = options_;
    o.cancel = cancel;
    last_ = model.extend(cache_, {next}, o); // on Cancelled the cache is rolled back and nothing changes
    ids_.push_back(next);
    return next;
}

std::vector<int> Stepper::generated() const { return {ids_.begin() + prompt_, ids_.end()}; }

std::vector<float> Stepper::newest_row(HeadRef head) const {
    if (last_.t_new == 0 || head.layer < 0 || head.layer >= last_.layers || head.head < 0 || head.head >= last_.heads) return {};
    std::vector<float> row(static_cast<std::size_t>(last_.t_total)); // (t_total)
    last_.maps.rows(head.layer, head.head, last_.t_new - 1, last_.t_new, row.data());
    return row;
}

} // namespace core::model
