// core/model/requests/compare.cpp — see compare.h.
#include "core/model/requests/compare.h"

namespace core::model {

Comparison compare_with_run(const Model& model, const Snapshot& first, const std::vector<int>& second_ids, const std::atomic<bool>* cancel) {
    ForwardOptions o;
    o.logits = Logits::none;
    o.cancel = cancel;
    first.request.knock_out(o);
    const ForwardResult second = model.forward(second_ids, o);
    return compare_prompts(first.result, first.ids, second, second_ids);
}

} // namespace core::model
