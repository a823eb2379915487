// core/model/head_scenario.cpp — a captured head as a direct-Q/K/V scenario.
#include "core/model/head_scenario.h"

#include "core/model/arch/table.h"

#include <cmath>

namespace core::model {

namespace {

std::string head_name(HeadRef head) { return "layer " + std::to_string(head.layer + 1) + " head " + std::to_string(head.head + 1); }

// What the editor's causal mask and √d_k switch cannot show, as a message; empty when it can.
std::string unshowable(const ModelConfig& c, HeadRef head, int t) {
    const int window = head.layer < static_cast<int>(c.sliding_window.size()) ? c.sliding_window[static_cast<std::size_t>(head.layer)] : 0;
    if (window > 0 && t > window)
        return head_name(head) + " of " + c.architecture + " sees only the last " + std::to_string(window) +
               " positions, which the editor's causal mask cannot show; " + std::to_string(t) + " tokens is more than that";
    if (c.attn_logit_softcapping > 0)
        return head_name(head) + " of " + c.architecture + " soft-caps its scores (cap · tanh(s / cap)), which the editor cannot show";
    if (t > core::Limits::max_tokens)
        return std::to_string(t) + " tokens is more than the editor's " + std::to_string(core::Limits::max_tokens);
    if (c.d_head > core::Limits::max_dim)
        return "d_head " + std::to_string(c.d_head) + " is more than the editor's " + std::to_string(core::Limits::max_dim);
    return {};
}

core::Matrix checked(const MatrixF& m, double factor, const char* name, HeadRef head) { // (t, d_head)
    const core::Matrix out = m.cast<double>() * factor;
    for (Eigen::Index i = 0; i < out.size(); ++i)
        if (!core::is_acceptable_value(out.data()[i]))
            throw InputError(head_name(head) + ": an entry of " + name + " is " + std::to_string(out.data()[i]) +
                             ", which the editor cannot hold (finite, within ±1e6)");
    return out;
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
    if (const std::string why = unshowable(c, head, t); !why.empty()) throw InputError(why);

    // The model's scores are q·k times its factor; the scenario's are Q·K / √d_k when `scale`. A
    // factor of r/√d_head with r ≤ 1 keeps the switch on and puts r into Q; a larger one (unscaled
    // scores) turns it off and puts the whole factor into Q.
    const double factor = score_scale(c, head.layer), raw = factor * std::sqrt(static_cast<double>(c.d_head));
    const double r = std::abs(raw - 1.0) < 1e-12 ? 1.0 : raw;
    core::Scenario s;
    s.scale = r <= 1.0 + 1e-9;
    const double q_factor = s.scale ? r : factor;
    core::Head h;
    h.Q = checked(cap.q, q_factor, "Q", head); // (t, d_head)
    h.K = checked(cap.k, 1.0, "K", head);      // (t, d_head)
    h.V = checked(cap.v, 1.0, "V", head);      // (t, d_head)
    s.direct = true;
    s.causal = c.causal;
    s.tokens = tokens;
    s.heads = {std::move(h)};
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
