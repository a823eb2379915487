// core/model/requests/circuits.cpp — see circuits.h.
#include "core/model/requests/circuits.h"

namespace core::model {

CircuitsResult run_circuits(const Model& model, const CircuitsRequest& q, const TaskControl* control) {
    CircuitsResult r;
    r.kind = q.kind;
    r.ids = q.ids;
    switch (q.kind) {
    case CircuitsRequest::Kind::lens: r.lens = logit_lens(model, q.ids, q.top); break;
    case CircuitsRequest::Kind::attribution: r.attribution = direct_attribution(model, q.ids, q.target, q.vs, q.position); break;
    case CircuitsRequest::Kind::patching:
        r.corrupt = q.corrupt;
        r.patching = activation_patching(model, q.ids, q.corrupt, q.metric, q.by, control ? control->stop_flag() : nullptr,
                                         control ? control->reporter() : std::function<void(int, int)>{});
        break;
    }
    return r;
}

} // namespace core::model
