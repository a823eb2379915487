// The state of a linear head (Gated DeltaNet) at every position of a run that continued a cache, as
// the window's generation makes one: the prompt first, then the rest on its cache, a token at a time
// or in one piece. Each state, the cached positions' included, equals a fresh run's over the whole
// sequence, and the recurrence of modeling_qwen3_next.py (torch_recurrent_gated_delta_rule), written
// in the Python below, on the layer's q, k, v, β and g; a cache that lost one position's value fails both.
#include "core/model/activations.h"
#include "core/model/format/checkpoint.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/linear_activations.h"
#include "tests/python.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <optional>

namespace {

using core::model::ForwardOptions;
using core::model::ForwardResult;
using core::model::MatrixF;

constexpr int prompt_length = 66, length = 70; // a prompt past one chunk of 64, then four steps
constexpr double tolerance = 1e-4;             // of the largest |S|: float rounding over 70 steps

std::vector<int> sequence() {
    std::vector<int> ids;
    for (int i = 0; i < length; ++i) ids.push_back((i * 37 + 11) % 250);
    return ids;
}

ForwardOptions keeping_values() {
    ForwardOptions o;
    o.linear_values = true;
    o.logits = core::model::Logits::last;
    return o;
}

// The prompt, then the rest on its cache: one token at a time (`steps`) or in one run. `damage`, when
// given, runs on the cache between the two.
template <class Damage>
ForwardResult continued(const core::model::Model& model, bool steps, Damage damage) {
    const std::vector<int> ids = sequence();
    core::model::KvCache cache;
    ForwardResult r = model.extend(cache, {ids.begin(), ids.begin() + prompt_length}, keeping_values());
    damage(cache);
    if (!steps) return model.extend(cache, {ids.begin() + prompt_length, ids.end()}, keeping_values());
    for (int i = prompt_length; i < length; ++i) r = model.extend(cache, {ids[static_cast<std::size_t>(i)]}, keeping_values());
    return r;
}
ForwardResult continued(const core::model::Model& model, bool steps) {
    return continued(model, steps, [](core::model::KvCache&) {});
}

// The largest |a − b| over every state of layer l's heads at every position, over the largest |b|.
double state_difference(const ForwardResult& a, const ForwardResult& b, int l, int heads) {
    double most = 0, scale = 1e-30;
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < length; ++i) {
            const std::optional<MatrixF> x = a.maps.linear_state(l, h, i), y = b.maps.linear_state(l, h, i); // (d_k, d_v)
            REQUIRE(x);
            REQUIRE(y);
            most = std::max(most, static_cast<double>((*x - *y).cwiseAbs().maxCoeff()));
            scale = std::max(scale, static_cast<double>(y->cwiseAbs().maxCoeff()));
        }
    return most / scale;
}

// Every state of layer l's heads, (heads, positions, d_k, d_v) as nested lists for the Python below.
nlohmann::json states_json(const ForwardResult& r, int l, int heads) {
    nlohmann::json out = nlohmann::json::array();
    for (int h = 0; h < heads; ++h) {
        nlohmann::json by_position = nlohmann::json::array();
        for (int i = 0; i < length; ++i) {
            const MatrixF S = *r.maps.linear_state(l, h, i); // (d_k, d_v)
            nlohmann::json rows = nlohmann::json::array();
            for (Eigen::Index k = 0; k < S.rows(); ++k) rows.push_back(std::vector<float>(S.row(k).data(), S.row(k).data() + S.cols()));
            by_position.push_back(rows);
        }
        out.push_back(by_position);
    }
    return out;
}

// The recurrence in float64 on the layer's inputs (q, k stacked (Hk·t, dk), v (Hv·t, dv), β and g
// (Hv, t)), value head h reading key head h // (Hv / Hk): S ← exp(g) S; S ← S + k (β (v − Sᵀk))ᵀ.
// The good states must equal it at every position within the tolerance; the damaged ones must not.
const char* const continued_states_py = R"(
import json, sys
import numpy as np
a = json.load(open(sys.argv[1])); good = np.array(json.load(open(sys.argv[2]))); bad = np.array(json.load(open(sys.argv[3])))
tolerance = float(sys.argv[4])
Hk, Hv = a["k_heads"], a["v_heads"]
beta, g = np.array(a["beta"]), np.array(a["g"])
t = beta.shape[1]
q, k = np.array(a["q"]).reshape(Hk, t, -1), np.array(a["k"]).reshape(Hk, t, -1)
v = np.array(a["v"]).reshape(Hv, t, -1)
want = np.zeros((good.shape[0], t, k.shape[2], v.shape[2]))
for h in range(good.shape[0]):
    kh = h // (Hv // Hk)
    S = np.zeros((k.shape[2], v.shape[2]))
    for i in range(t):
        S = S * np.exp(g[h, i])
        S = S + np.outer(k[kh, i], beta[h, i] * (v[h, i] - k[kh, i] @ S))
        want[h, i] = S
scale = np.abs(want).max()
error = np.abs(good - want).max() / scale
if not error <= tolerance:
    at = np.unravel_index(np.abs(good - want).argmax(), want.shape)
    sys.exit(f"the continued run's state differs from the recurrence by {error:.3g} of max|S| at head, position, row, column {at}")
if np.abs(bad - want).max() / scale <= tolerance:
    sys.exit("the state of a cache that lost a value passed the check: it cannot fail")
)";

} // namespace

TEST_CASE("linear state of a continued run: every position's state, the cache's included, is a fresh run's and NumPy's recurrence's") {
    NEED_CHECKPOINTS();
    for (const char* name : {"qwen3_5", "qwen3_next"}) {
        CAPTURE(name);
        const core::model::OpenedModel m = core::model::open_model(fixtures::checkpoints() + "/" + name);
        const core::model::Model& model = *m.model;
        const ForwardResult fresh = model.forward(sequence(), keeping_values());
        const ForwardResult stepped = continued(model, true), in_one = continued(model, false);
        REQUIRE(stepped.t_new == 1);
        REQUIRE(stepped.t_total == length);
        REQUIRE(in_one.t_new == length - prompt_length);
        int linear_layers = 0;
        for (int l = 0; l < model.config().layers; ++l) {
            if (!fresh.maps.linear(l)) continue;
            CAPTURE(l);
            ++linear_layers;
            const int heads = std::min(fresh.maps.kept(l)->v_heads, model.config().heads);
            CHECK(state_difference(stepped, fresh, l, heads) < tolerance);
            CHECK(state_difference(in_one, fresh, l, heads) < tolerance);
        }
        CHECK(linear_layers == 3);

        // The cache loses position 10's value of layer 1 (the later ones move up, the last repeated).
        const int V = fresh.maps.kept(0)->v_heads * fresh.maps.kept(0)->d_v;
        const ForwardResult damaged = continued(model, true, [&](core::model::KvCache& cache) {
            std::vector<float>& v = cache.linear.at(0).v; // (prompt_length, Hv·dv)
            REQUIRE(v.size() == static_cast<std::size_t>(prompt_length * V));
            v.erase(v.begin() + 10 * V, v.begin() + 11 * V);
            v.insert(v.end(), v.end() - V, v.end());
        });
        const int heads = std::min(fresh.maps.kept(0)->v_heads, model.config().heads);
        CHECK(state_difference(damaged, fresh, 0, heads) > 100 * tolerance);

        const std::string dir = test_python::temp_dir();
        std::ofstream(dir + "/activations.json") << linear_activations_json(model, sequence(), 0).dump();
        std::ofstream(dir + "/good.json") << states_json(stepped, 0, heads).dump();
        std::ofstream(dir + "/bad.json") << states_json(damaged, 0, heads).dump();
        test_python::run_or_skip(continued_states_py, {dir + "/activations.json", dir + "/good.json", dir + "/bad.json", std::to_string(tolerance)}, true);
    }
}

TEST_CASE("linear state of a continued run: a cache whose first run kept no values keeps none, and gives no state rather than a wrong one") {
    NEED_CHECKPOINTS();
    const core::model::OpenedModel m = core::model::open_model(fixtures::checkpoints() + "/qwen3_5");
    const std::vector<int> ids = sequence();
    core::model::KvCache cache;
    ForwardOptions plain = keeping_values();
    plain.linear_values = false;
    m.model->extend(cache, {ids.begin(), ids.begin() + prompt_length}, plain);
    CHECK(cache.linear.at(0).v.empty());
    const ForwardResult r = m.model->extend(cache, {ids[prompt_length]}, keeping_values());
    CHECK(cache.linear.at(0).v.empty()); // the new position's alone would misplace every later one
    CHECK_FALSE(r.maps.linear_state(0, 0, 0));
    CHECK_FALSE(r.maps.linear_state(0, 0, prompt_length));
    CHECK(r.maps.linear_split(0, 0, 0, 3)); // M's rows need no values: they stay
}
