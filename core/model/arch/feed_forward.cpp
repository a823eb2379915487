// core/model/arch/feed_forward.cpp — the feed-forward kinds (feed_forward.h).
#include "core/model/arch/feed_forward.h"

#include "core/io/tensor.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace core::model::feed_forward {

using core::io::FileError;
using layers::project;

void Dense::add(const MatrixF& a, MatrixF& x, const Call&) const {
    const int t = static_cast<int>(a.rows()), D = static_cast<int>(a.cols()), F = width_;
    MatrixF gate(t, F), up(t, F); // (t, F)
    if (t_.gate_up_w) {           // one product (t, 2F), gate | up
        MatrixF both(t, 2 * F); // (t, 2F)
        project(a.data(), t, D, 2 * F, *t_.gate_up_w, Layout::out_in, nullptr, both.data());
        gate = both.leftCols(F);
        up = both.rightCols(F);
    } else {
        project(a.data(), t, D, F, *t_.gate_w, Layout::out_in, t_.gate_b, gate.data());
        project(a.data(), t, D, F, *t_.up_w, Layout::out_in, t_.up_b, up.data());
    }
    layers::gated_rows(gate, up, act_);
    project(gate.data(), t, F, D, *t_.down_w, Layout::out_in, t_.down_b, x.data(), true);
}

namespace {

// The router's softmax over all E logits, in float32 as transformers takes it (dtype=torch.float).
void softmax(const float* logits, int experts, float* p) {
    const float top = *std::max_element(logits, logits + experts);
    float sum = 0.0f;
    for (int e = 0; e < experts; ++e) sum += p[e] = std::exp(logits[e] - top);
    for (int e = 0; e < experts; ++e) p[e] /= sum;
}

// The k largest of p, largest first, the lower id first on a tie.
void top_k(const float* p, int experts, int k, int* chosen, float* weights) {
    std::vector<int> order(static_cast<std::size_t>(experts));
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int i, int j) { return p[i] > p[j] || (p[i] == p[j] && i < j); });
    for (int i = 0; i < k; ++i) weights[i] = p[chosen[i] = order[static_cast<std::size_t>(i)]];
}

void softmax_top_k(const float* logits, int experts, int k, float* p, int* chosen, float* weights) {
    softmax(logits, experts, p);
    top_k(p, experts, k, chosen, weights);
}

void softmax_top_k_renormalised(const float* logits, int experts, int k, float* p, int* chosen, float* weights) {
    softmax_top_k(logits, experts, k, p, chosen, weights);
    float sum = 0.0f;
    for (int i = 0; i < k; ++i) sum += weights[i];
    for (int i = 0; i < k; ++i) weights[i] /= sum;
}

// The top k of the logits (the lower id first on a tie), their weights a softmax over those k;
// probabilities: the softmax over every logit (routing_rules()).
void top_k_softmax(const float* logits, int experts, int k, float* p, int* chosen, float* weights) {
    top_k(logits, experts, k, chosen, weights);
    softmax(weights, k, weights);
    softmax(logits, experts, p);
}

void silu_gated(float* gate, const float* up, std::ptrdiff_t n, float) { ops::active().gated(gate, up, n, ops::Activation::silu); }

// gpt-oss's GptOssExperts: alpha 1.702; gate clamped above only, up on both sides.
void swiglu_clamped(float* gate, const float* up, std::ptrdiff_t n, float limit) {
    constexpr float alpha = 1.702f;
    for (std::ptrdiff_t i = 0; i < n; ++i) {
        const float g = std::min(gate[i], limit), u = std::clamp(up[i], -limit, limit);
        gate[i] = (u + 1.0f) * (g / (1.0f + std::exp(-alpha * g)));
    }
}

template <typename Row>
const Row& find_row(const std::vector<Row>& rows, const std::string& name, const char* what) {
    for (const Row& r : rows)
        if (name == r.name) return r;
    throw std::invalid_argument(std::string("no ") + what + " \"" + name + "\"");
}

} // namespace

const std::vector<RoutingRule>& routing_rules() {
    static const std::vector<RoutingRule> rows = {
        {"softmax_top_k", softmax_top_k}, {"softmax_top_k_renormalised", softmax_top_k_renormalised}, {"top_k_softmax", top_k_softmax}};
    return rows;
}

const RoutingRule& routing_rule(const std::string& name) { return find_row(routing_rules(), name, "routing rule"); }

const std::vector<ExpertActivation>& expert_activations() {
    static const std::vector<ExpertActivation> rows = {{"silu", silu_gated}, {"swiglu_clamped", swiglu_clamped}};
    return rows;
}

const ExpertActivation& expert_activation(const std::string& name) { return find_row(expert_activations(), name, "expert activation"); }

// gate and up (n, F) of the positions in (n, D): two products, or one product of the fused gate_up
// whose outputs are gate | up, or (gpt-oss) gate at the even outputs and up at the odd.
void Mixture::gate_and_up(const Expert& ex, const MatrixF& in, MatrixF& gate, MatrixF& up) const {
    const int n = static_cast<int>(in.rows()), D = static_cast<int>(in.cols()), F = width_;
    if (!ex.gate_up) {
        project(in.data(), n, D, F, *ex.gate, ex.layout, ex.gate_b, gate.data());
        project(in.data(), n, D, F, *ex.up, ex.layout, ex.up_b, up.data());
        return;
    }
    MatrixF both(n, 2 * F); // (n, 2F) gate | up, or gate, up, gate, up, …
    project(in.data(), n, D, 2 * F, *ex.gate_up, ex.layout, ex.gate_up_b, both.data());
    if (ex.fused == Expert::Fused::halves) {
        gate = both.leftCols(F);
        up = both.rightCols(F);
        return;
    }
    for (int j = 0; j < F; ++j) {
        gate.col(j) = both.col(2 * j);
        up.col(j) = both.col(2 * j + 1);
    }
}

// Expert e on the positions `rows` of a (t, D): x's row rows[i] += weight[i] · its output.
void Mixture::run_expert(int e, const MatrixF& a, const std::vector<int>& rows, const std::vector<float>& weight, MatrixF& x) const {
    const Expert& ex = t_.experts[static_cast<std::size_t>(e)];
    const int n = static_cast<int>(rows.size()), D = static_cast<int>(a.cols()), F = width_;
    MatrixF in(n, D); // (n, D) the positions routed here
    for (int i = 0; i < n; ++i) in.row(i) = a.row(rows[static_cast<std::size_t>(i)]);
    MatrixF gate(n, F), up(n, F); // (n, F)
    gate_and_up(ex, in, gate, up);
    act_.apply(gate.data(), up.data(), gate.size(), limit_);
    MatrixF out(n, D); // (n, D)
    project(gate.data(), n, F, D, *ex.down, ex.layout, ex.down_b, out.data());
    for (int i = 0; i < n; ++i) x.row(rows[static_cast<std::size_t>(i)]) += weight[static_cast<std::size_t>(i)] * out.row(i);
}

void Mixture::add(const MatrixF& a, MatrixF& x, const Call& call) const {
    const int t = static_cast<int>(a.rows()), D = static_cast<int>(a.cols()), E = experts(), k = top_k_;
    MatrixF logits(t, E), p(t, E), weights(t, k); // (t, E), (t, E), (t, k)
    std::vector<int> chosen(static_cast<std::size_t>(t) * static_cast<std::size_t>(k)); // (t, k)
    project(a.data(), t, D, E, *t_.router, Layout::out_in, t_.router_b, logits.data());
    for (int i = 0; i < t; ++i) rule_.route(&logits(i, 0), E, k, &p(i, 0), chosen.data() + static_cast<std::ptrdiff_t>(i) * k, &weights(i, 0));
    if (call.knocked_out)
        for (const ExpertRef& ref : *call.knocked_out)
            for (std::size_t j = 0; j < chosen.size(); ++j)
                if (ref.layer == call.layer && chosen[j] == ref.expert) weights.data()[j] = 0.0f;
    // Each expert once, on the positions that chose it, in the order of the experts' ids.
    std::vector<std::vector<int>> rows(static_cast<std::size_t>(E));
    std::vector<std::vector<float>> weight(static_cast<std::size_t>(E));
    for (std::size_t j = 0; j < chosen.size(); ++j) {
        if (weights.data()[j] == 0.0f) continue; // knocked out: not run
        rows[static_cast<std::size_t>(chosen[j])].push_back(static_cast<int>(j) / k);
        weight[static_cast<std::size_t>(chosen[j])].push_back(weights.data()[j]);
    }
    for (int e = 0; e < E; ++e)
        if (!rows[static_cast<std::size_t>(e)].empty()) run_expert(e, a, rows[static_cast<std::size_t>(e)], weight[static_cast<std::size_t>(e)], x);
    if (!call.routing) return;
    LayerRouting& r = *call.routing; // rows appended: a long sequence comes a block of rows at a time
    r.probabilities.conservativeResize(r.probabilities.rows() + t, E);
    r.probabilities.bottomRows(t) = p;
    r.weights.conservativeResize(r.weights.rows() + t, k);
    r.weights.bottomRows(t) = weights;
    r.chosen.insert(r.chosen.end(), chosen.begin(), chosen.end());
}

std::shared_ptr<const FeedForward> dense(const Weights& w, const std::string& prefix, std::int64_t D, std::int64_t F, bool biases,
                                         ops::Activation act) {
    DenseTensors t;
    t.gate_w = &w.require(prefix + "gate_proj.weight", {F, D});
    t.up_w = &w.require(prefix + "up_proj.weight", {F, D});
    t.down_w = &w.require(prefix + "down_proj.weight", {D, F});
    if (biases) {
        t.gate_b = &w.require(prefix + "gate_proj.bias", {F});
        t.up_b = &w.require(prefix + "up_proj.bias", {F});
        t.down_b = &w.require(prefix + "down_proj.bias", {D});
    }
    return std::make_shared<Dense>(t, static_cast<int>(F), act);
}

namespace {

// Expert e's matrices: its own tensors, or its part of the fused or the stacked ones.
Expert expert_of(const Weights& w, const std::string& prefix, const MixtureShape& s, int e) {
    Expert ex;
    if (!s.stacked && w.has(prefix + "experts.gate_up_proj")) {
        const std::int64_t E = s.experts;
        ex.gate_up = &w.require(prefix + "experts.gate_up_proj", {E, 2 * s.F, s.D}).part(e); // (2F, D) gate | up
        ex.down = &w.require(prefix + "experts.down_proj", {E, s.D, s.F}).part(e);          // (D, F)
        ex.fused = Expert::Fused::halves;
        return ex;
    }
    if (s.stacked) {
        const std::int64_t E = s.experts;
        ex.gate = &w.require(prefix + "experts.gate_proj.weight", {E, s.F, s.D}).part(e);
        ex.up = &w.require(prefix + "experts.up_proj.weight", {E, s.F, s.D}).part(e);
        ex.down = &w.require(prefix + "experts.down_proj.weight", {E, s.D, s.F}).part(e);
        return ex;
    }
    const std::string p = prefix + "experts." + std::to_string(e) + ".";
    ex.gate = &w.require(p + "gate_proj.weight", {s.F, s.D});
    ex.up = &w.require(p + "up_proj.weight", {s.F, s.D});
    ex.down = &w.require(p + "down_proj.weight", {s.D, s.F});
    return ex;
}

} // namespace

std::shared_ptr<const FeedForward> mixture(const Weights& w, const std::string& prefix, const MixtureShape& s, const RoutingRule& rule,
                                           const ExpertActivation& act) {
    MixtureTensors t;
    t.router = &w.require(prefix + "gate.weight", {s.experts, s.D});
    for (int e = 0; e < s.experts; ++e) t.experts.push_back(expert_of(w, prefix, s, e));
    const std::string past = prefix + "experts." + std::to_string(s.experts) + ".gate_proj.weight";
    if (!s.stacked && w.has(past))
        throw FileError(w.path() + ": has tensor \"" + past + "\", an expert past the " + std::to_string(s.experts) + " the config gives (num_experts)");
    return std::make_shared<Mixture>(std::move(t), s.top_k, static_cast<int>(s.F), rule, act);
}

namespace {

class Shared final : public FeedForward {
public:
    Shared(std::shared_ptr<const FeedForward> routed, std::shared_ptr<const FeedForward> shared, const Tensor& gate)
        : routed_(std::move(routed)), shared_(std::move(shared)), gate_(gate) {}
    void add(const MatrixF& a, MatrixF& x, const Call& call) const override {
        const int t = static_cast<int>(a.rows()), D = static_cast<int>(a.cols());
        routed_->add(a, x, call);
        MatrixF out = MatrixF::Zero(t, D), gate(t, 1); // (t, D), (t, 1)
        shared_->add(a, out, call);
        layers::project(a.data(), t, D, 1, gate_, Layout::out_in, nullptr, gate.data());
        for (int i = 0; i < t; ++i) x.row(i) += out.row(i) / (1.0f + std::exp(-gate(i, 0)));
    }
    const Mixture* mixture() const override { return routed_->mixture(); }

private:
    std::shared_ptr<const FeedForward> routed_, shared_;
    const Tensor& gate_; // (1, D)
};

} // namespace

std::shared_ptr<const FeedForward> with_shared_expert(std::shared_ptr<const FeedForward> routed, std::shared_ptr<const FeedForward> shared,
                                                      const Tensor& gate) {
    return std::make_shared<Shared>(std::move(routed), std::move(shared), gate);
}

} // namespace core::model::feed_forward
