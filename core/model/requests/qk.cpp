// core/model/requests/qk.cpp — see qk.h.
#include "core/model/requests/qk.h"

namespace core::model {

QkAnswer answer_qk(const Model& model, const QkRequest& q) {
    const QkStream s = qk_stream(model, q.ids, q.layer);
    QkAnswer a;
    if (q.row) {
        a.keys = visible_keys(s, q.query);
        for (int k : a.keys) a.scores.push_back(qk_attribution(s, q.head, q.query, k).score);
    }
    if (!s.weights.sinks.empty()) a.sink = s.weights.sinks[static_cast<std::size_t>(q.head)];
    a.window = s.weights.window;
    a.causal = s.weights.causal;
    if (q.key >= 0) {
        a.visible = s.weights.visible(q.query, q.key);
        a.attribution = qk_attribution(s, q.head, q.query, q.key);
    }
    return a;
}

} // namespace core::model
