// core/model/requests/forward.cpp — see forward.h.
#include "core/model/requests/forward.h"

#include "core/model/head_importance.h"

namespace core::model {

ForwardResult run_forward(const Model& model, const std::vector<int>& ids, const ForwardOptions& options) { return model.forward(ids, options); }

std::vector<int> generate(const Model& model, const GenerateRequest& request) {
    ForwardOptions fo = request.options;
    fo.attention = false;
    const bool recompute = !fo.ablate.empty() && fo.ablation != core::heads::Ablation::zero;
    return recompute ? generate_recomputing(model, request.prompt, request.count, fo) : generate_greedy(model, request.prompt, request.count, fo);
}

std::vector<int> generate_recomputing(const Model& model, std::vector<int> ids, int count, ForwardOptions fo) {
    fo.logits = Logits::last;
    std::vector<int> made;
    for (int k = 0; k < count && static_cast<int>(ids.size()) < model.config().context && !(k && model.config().is_eos(made.back())); ++k) {
        const ForwardResult r = model.forward(ids, fo);
        made.push_back(argmax(r.logits.data(), static_cast<int>(r.logits.cols())));
        ids.push_back(made.back());
    }
    return made;
}

std::vector<core::heads::HeadScores> head_scores(const Model& model, const std::vector<int>& ids) {
    ForwardOptions fo;
    fo.logits = Logits::none;
    return all_head_scores(model.forward(ids, fo), core::heads::score_index(ids));
}

MatrixF rollout(const Model& model, const std::vector<int>& ids) {
    ForwardOptions fo;
    fo.rollout = true;
    fo.logits = Logits::none;
    return model.forward(ids, fo).rollout;
}

} // namespace core::model
