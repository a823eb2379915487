// core/model/forward.cpp — what every architecture shares: input checks and greedy decoding.
#include "core/model/forward.h"

namespace core::model {

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
    o.all_logits = false;
    std::vector<int> made;
    if (count <= 0 || prompt.empty()) return made;
    ForwardResult r = model.extend(kv, prompt, o);
    const int vocab = static_cast<int>(r.logits.cols());
    while (true) {
        made.push_back(argmax(r.logits.data() + (r.logits.rows() - 1) * vocab, vocab));
        if (static_cast<int>(made.size()) == count || kv.length >= model.config().context) break;
        r = model.extend(kv, {made.back()}, o);
    }
    return made;
}

} // namespace core::model
