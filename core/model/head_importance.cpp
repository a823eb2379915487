// core/model/head_importance.cpp — head importance, and the head scores of a forward.
#include "core/model/head_importance.h"

#include "core/model/next_token.h"
#include "core/parallel.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace core::model {

namespace {

// Head k = l · heads + h's scores from its map, rebuilt in turn.
struct MapScores {
    const ForwardResult* r;
    const core::heads::ScoreIndex* index;
    std::vector<core::heads::HeadScores>* out;
    static void head(void* context, std::ptrdiff_t k) {
        const auto& c = *static_cast<MapScores*>(context);
        const int heads = c.r->heads, l = static_cast<int>(k) / heads, h = static_cast<int>(k) % heads;
        const MatrixF A = c.r->maps.head(l, h); // (t, t)
        (*c.out)[static_cast<std::size_t>(k)] = core::heads::head_scores(A, *c.index, c.r->entropy.data() + k * c.r->t_new);
    }
};

} // namespace

std::vector<core::heads::HeadScores> all_head_scores(const ForwardResult& r, const core::heads::ScoreIndex& index) {
    if (r.t_new != r.t_total || r.t_new != index.t || r.maps.empty())
        throw std::invalid_argument("head scores: the forward ran " + std::to_string(r.t_new) + " of " + std::to_string(r.t_total) +
                                    " positions with" + (r.maps.empty() ? "out" : "") + " attention, for " + std::to_string(index.t) + " tokens");
    std::vector<core::heads::HeadScores> out(static_cast<std::size_t>(r.layers) * static_cast<std::size_t>(r.heads));
    MapScores job{&r, &index, &out};
    core::parallel::for_each(static_cast<std::ptrdiff_t>(out.size()), &MapScores::head, &job);
    return out;
}

IntactRun intact_run(const Model& model, const std::vector<int>& ids, const std::string& measure, const std::atomic<bool>* cancel) {
    const ModelConfig& c = model.config();
    if (!model.causal() || !c.lm_head)
        throw InputError(c.name + ": " + measure + " measures the next-token loss, and " + c.architecture + " does not predict the next token");
    if (ids.size() < 2) throw InputError(measure + " needs at least 2 tokens, to predict the second from the first");
    IntactRun run;
    ForwardOptions& o = run.options;
    o.attention = false;
    o.logits = Logits::none;
    o.cancel = cancel;
    o.residuals = &run.residuals;
    run.result = model.forward(ids, o);
    run.loss = prompt_losses(model, run.result.hidden, ids)[0];
    o.residuals = nullptr;
    return run;
}

void resume_at(IntactRun& run, int l) {
    run.options.resume_layer = l;
    run.options.resume_from = &run.residuals[static_cast<std::size_t>(l)];
}

HeadImportance head_importance(const Model& model, const std::vector<int>& ids, const std::atomic<bool>* cancel,
                               const std::function<void(int done, int total)>& progress) {
    const ModelConfig& c = model.config();
    IntactRun run = intact_run(model, ids, "head importance", cancel);
    ForwardOptions& o = run.options;
    HeadImportance out;
    out.loss = run.loss;
    out.delta.resize(c.layers, c.heads);
    // A layer's knock-outs run as one batch of copies (at most about 2048 rows at once), each copy
    // zeroing one head, so that each layer above is read once per batch rather than once per head.
    const int t = static_cast<int>(ids.size()), batch = std::clamp(2048 / t, 1, c.heads);
    for (int l = 0; l < c.layers; ++l) {
        resume_at(run, l);
        for (int h0 = 0; h0 < c.heads; h0 += batch) {
            o.copies.clear();
            for (int h = h0; h < std::min(c.heads, h0 + batch); ++h) o.copies.push_back({{l, h}});
            const std::vector<double> losses = prompt_losses(model, model.forward(ids, o).hidden, ids);
            for (int h = h0; h < std::min(c.heads, h0 + batch); ++h) {
                out.delta(l, h) = losses[static_cast<size_t>(h - h0)] - out.loss;
                if (progress) progress(l * c.heads + h + 1, c.layers * c.heads);
                if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
            }
        }
    }
    return out;
}

} // namespace core::model
