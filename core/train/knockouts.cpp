// core/train/knockouts.cpp — knock-out evaluation, the knock-out table and the probe scores of the tiny model.
#include "core/train/knockouts.h"

#include "core/train/model_f32.h"

#include <algorithm>
#include <stdexcept>

namespace core::train {

TaskScore evaluate(const Model& model, const Batch& batch, const Knockouts& knockouts) {
    ParamsF32 params;
    params.load(model);
    WorkspaceF32 ws;
    ws.resize(model.config(), batch.B, batch.t);
    const LossSum s = forward_f32(model, params, batch, 0, ws, &knockouts);
    const int scored = std::max(1, s.scored);
    return {s.loss / scored, static_cast<double>(s.correct) / scored};
}

std::vector<KnockoutRow> knockout_table(const Model& model, const Batch& batch, core::heads::Ablation mode) {
    const ModelConfig& m = model.config();
    std::vector<KnockoutRow> rows;
    auto add = [&](std::string label, std::vector<core::heads::HeadRef> heads) {
        Knockouts k{std::move(heads), mode};
        const TaskScore score = evaluate(model, batch, k);
        rows.push_back({std::move(label), std::move(k), score});
    };
    add("intact", {});
    for (int l = 0; l < m.L; ++l)
        for (int h = 0; h < m.H; ++h) add("L" + std::to_string(l + 1) + " H" + std::to_string(h + 1), {{l, h}});
    for (int l = 0; l < m.L; ++l) {
        std::vector<core::heads::HeadRef> layer;
        for (int h = 0; h < m.H; ++h) layer.push_back({l, h});
        add("all of layer " + std::to_string(l + 1), layer);
    }
    return rows;
}

std::vector<core::heads::HeadScores> probe_scores(const Model& model, int m, std::uint64_t seed) {
    const ModelConfig& c = model.config();
    if (m < 1 || 2 * m > c.T)
        throw std::invalid_argument("a probe of " + std::to_string(m) + " tokens repeated does not fit a context of " + std::to_string(c.T));
    Batch probe;
    probe.B = 1;
    probe.t = 2 * m;
    probe.tokens = core::heads::probe_sequence(m, seed, c.vocab);
    probe.targets.assign(probe.tokens.size(), -1);
    probe.offset = {0};
    probe.length = {m};
    Workspace ws;
    forward_all(model, probe, ws);
    const core::heads::ScoreIndex index = core::heads::score_index(probe.tokens);
    std::vector<core::heads::HeadScores> out;
    for (int l = 0; l < c.L; ++l)
        for (int h = 0; h < c.H; ++h) out.push_back(core::heads::head_scores(ws.attention(l, 0, h), index));
    return out;
}

} // namespace core::train
