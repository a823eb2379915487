// core/model/expert_importance.cpp — expert importance (expert_importance.h).
#include "core/model/expert_importance.h"

#include "core/model/head_importance.h"
#include "core/model/next_token.h"

#include <algorithm>

namespace core::model {

namespace {

// Whether a position of the intact run sent a weight to expert e of this layer.
bool chosen(const LayerRouting& r, int e) {
    for (std::size_t j = 0; j < r.chosen.size(); ++j)
        if (r.chosen[j] == e && r.weights.data()[j] != 0.0f) return true;
    return false;
}

} // namespace

ExpertImportance expert_importance(const Model& model, const std::vector<int>& ids, const std::atomic<bool>* cancel,
                                   const std::function<void(int done, int total)>& progress) {
    IntactRun run = intact_run(model, ids, "expert importance", cancel);
    const ForwardResult& intact = run.result;
    if (intact.routing.empty()) throw InputError(model.config().name + " has no mixture-of-experts layer");
    ForwardOptions& o = run.options;
    ExpertImportance out;
    out.loss = run.loss;
    const int experts = intact.routing.front().experts, total = static_cast<int>(intact.routing.size()) * experts;
    out.delta = core::Matrix::Zero(static_cast<Eigen::Index>(intact.routing.size()), experts);
    for (std::size_t i = 0; i < intact.routing.size(); ++i) {
        const LayerRouting& r = intact.routing[i];
        out.layers.push_back(r.layer);
        resume_at(run, r.layer);
        for (int e = 0; e < experts; ++e) {
            if (chosen(r, e)) {
                o.ablate_experts = {{r.layer, e}};
                out.delta(static_cast<Eigen::Index>(i), e) = prompt_losses(model, model.forward(ids, o).hidden, ids)[0] - out.loss;
            }
            if (progress) progress(static_cast<int>(i) * experts + e + 1, total);
            if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
        }
    }
    return out;
}

} // namespace core::model
