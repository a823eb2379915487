// core/model/head_scenario.cpp — a captured head as a direct-Q/K/V scenario.
#include "core/model/head_scenario.h"

#include "core/edits.h"
#include "core/model/arch/table.h"

#include <cmath>

namespace core::model {

namespace {

std::string head_name(HeadRef head) { return "layer " + std::to_string(head.layer + 1) + " head " + std::to_string(head.head + 1); }

// What the editor cannot hold, as a message; empty when it can.
std::string unshowable(const ModelConfig& c, int t) {
    if (t > core::Limits::max_tokens)
        return std::to_string(t) + " tokens is more than the editor's " + std::to_string(core::Limits::max_tokens);
    if (c.d_head > core::Limits::max_dim)
        return "d_head " + std::to_string(c.d_head) + " is more than the editor's " + std::to_string(core::Limits::max_dim);
    return {};
}

core::Matrix checked(const MatrixF& m, const char* name, HeadRef head) { // (t, d_head)
    const core::Matrix out = m.cast<double>();
    for (Eigen::Index i = 0; i < out.size(); ++i)
        if (!core::is_acceptable_value(out.data()[i]))
            throw InputError(head_name(head) + ": an entry of " + name + " is " + std::to_string(out.data()[i]) +
                             ", which the editor cannot hold (finite, within ±1e6)");
    return out;
}

// The model's score factor as the scenario's rule: none, 1/√d_k, or that factor.
void set_score_scale(core::Scenario& s, double factor) {
    if (factor == 1.0) s.scale = core::ScoreScale::none;
    else if (factor == 1.0 / std::sqrt(static_cast<double>(s.d_k()))) s.scale = core::ScoreScale::inv_sqrt_d_k;
    else core::edits::set_scale_factor(s, factor);
}

} // namespace

core::Scenario head_scenario(const ModelConfig& c, const ForwardResult& run, HeadRef head, const std::vector<std::string>& tokens) {
    if (head.layer < 0 || head.layer >= run.layers || head.head < 0 || head.head >= run.heads)
        throw InputError(head_name(head) + " is not in a model of " + std::to_string(run.layers) + " layers of " + std::to_string(run.heads) + " heads");
    if (run.captures.empty() || run.t_new != run.t_total)
        throw InputError("opening a head in the editor needs a forward run with its q, k and v captured, from the first position");
    const HeadCapture& cap = run.captures[static_cast<std::size_t>(head.layer * run.heads + head.head)];
    const int t = static_cast<int>(cap.q.rows());
    if (static_cast<int>(tokens.size()) != t)
        throw InputError(std::to_string(tokens.size()) + " token names for " + std::to_string(t) + " positions");
    if (const std::string why = unshowable(c, t); !why.empty()) throw InputError(why);
    if (static_cast<std::size_t>(head.layer) < run.kinds.size() && run.kinds[static_cast<std::size_t>(head.layer)].learned_sink())
        throw InputError(head_name(head) + " has a learned sink, which the editor's softmax has no place for");

    // The model's scores are q·k times its factor, soft-capped, then masked by its causal mask and
    // this layer's sliding window: the scenario's rules, with Q, K and V as the model has them.
    core::Scenario s;
    core::Head h;
    h.Q = checked(cap.q, "Q", head); // (t, d_head)
    h.K = checked(cap.k, "K", head); // (t, d_head)
    h.V = checked(cap.v, "V", head); // (t, d_head)
    s.direct = true;
    s.causal = c.causal;
    s.tokens = tokens;
    s.heads = {std::move(h)};
    set_score_scale(s, score_scale(c, head.layer)); // the architecture table's factor
    if (static_cast<std::size_t>(head.layer) < run.kinds.size()) { // the layer's kind: its window and soft-cap
        const AttentionKind& kind = run.kinds[static_cast<std::size_t>(head.layer)];
        s.window = kind.window;
        s.softcap = kind.softcap;
    }
    core::require_valid(s);
    return s;
}

core::Scenario head_scenario(const Model& model, const std::vector<int>& ids, HeadRef head, const std::vector<std::string>& tokens,
                             const std::atomic<bool>* cancel) {
    ForwardOptions o;
    o.capture_qkv = true;
    o.attention = false;
    o.cancel = cancel;
    return head_scenario(model.config(), model.forward(ids, o), head, tokens);
}

} // namespace core::model
