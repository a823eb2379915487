// The attention rule of Explore (core::AttentionRule): compute() under linear attention and the gated
// delta rule against a NumPy reference written here from transformers' torch_recurrent_gated_delta_rule
// (modeling_qwen3_next.py), M against the closed form of the chunked kernel, Z = M V, the state at each
// position; "the cat sat" under each rule; the rule through core::edits, scenario files and --explain's lines.
#include "core/attention.h"
#include "core/edits.h"
#include "core/explain.h"
#include "core/io/figure.h"
#include "core/io/scenario_io.h"
#include "core/presets.h"
#include "tests/fixture_files.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace {

std::string py(const core::Matrix& m) { // (rows, cols) as a NumPy array literal, every digit kept
    std::string out = "np.array([";
    char buf[40];
    for (Eigen::Index r = 0; r < m.rows(); ++r) {
        out += "[";
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            std::snprintf(buf, sizeof buf, "%.17g,", m(r, c));
            out += buf;
        }
        out += "],";
    }
    return out + "]).reshape(" + std::to_string(m.rows()) + "," + std::to_string(m.cols()) + ")";
}

std::string py(double x) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", x);
    return buf;
}

// Seven tokens, d_k = 3, d_v = 2, Q, K, V drawn by NumPy's generator.
core::Scenario seven_tokens() {
    core::Scenario s = core::numpy_random_qkv(5, 7, 3);
    s.heads[0].V = core::Matrix(s.heads[0].V.leftCols(2));
    return s;
}

// The reference: linear attention written plainly, and the gated delta rule as
// torch_recurrent_gated_delta_rule runs it (l2norm with eps 1e-6 on q and k, q times the scale,
// S ← S·exp(g); kv_mem = Sᵀk; delta = (v − kv_mem)·β; S ← S + k deltaᵀ; o = Sᵀq), with M from the
// chunked kernel's algebra: M = (QKᵀ ⊙ Γ)₍ₛ≤ₜ₎ (I + diag(β) (KKᵀ ⊙ Γ)₍ₛ<ₜ₎)⁻¹ diag(β).
const char* const reference = R"(
import numpy as np

def l2norm(x):
    return x * (1.0 / np.sqrt((x * x).sum(-1, keepdims=True) + 1e-6))

def recurrent(q, k, v, g, beta, scale):
    q = l2norm(q) * scale
    k = l2norm(k)
    S = np.zeros((q.shape[1], v.shape[1]))
    out = np.zeros((len(q), v.shape[1]))
    states = []
    for i in range(len(q)):
        S = S * np.exp(g[i])
        kv_mem = (S * k[i][:, None]).sum(0)
        delta = (v[i] - kv_mem) * beta[i]
        S = S + k[i][:, None] * delta[None, :]
        out[i] = (S * q[i][:, None]).sum(0)
        states.append(S.copy())
    return out, states

def delta_matrix(q, k, g, beta, scale):
    q = l2norm(q) * scale
    k = l2norm(k)
    n = len(q)
    G = np.cumsum(g)
    gamma = np.exp(G[:, None] - G[None, :])
    reads = np.tril(q @ k.T * gamma)
    erases = np.eye(n) + np.diag(beta) @ np.tril(k @ k.T * gamma, -1)
    return reads @ np.linalg.inv(erases) @ np.diag(beta)

def linear(Q, K, V, f, visible):
    M = np.where(visible, Q @ K.T * f, 0.0)
    states = [f * sum(np.outer(K[j], V[j]) for j in range(len(K)) if visible[t, j]) for t in range(len(Q))]
    return M, M @ V, states

def close(name, got, want, tol=1e-12):
    got, want = np.asarray(got), np.asarray(want)
    err = np.abs(got - want).max()
    assert err <= tol * max(1.0, np.abs(want).max()), f"{name}: off by {err}\n{got}\n{want}"
)";

// Runs `checks` after the reference with the head's Q, K, V and the Result's M, Z and states.
void check_against_numpy(const core::Scenario& s, const std::string& checks) {
    const std::string python = fixtures::numpy_python();
    if (python.empty()) {
        MESSAGE("skipped: no python3 with NumPy");
        return;
    }
    const core::Result r = core::compute(s);
    const core::HeadResult& h = r.heads[0];
    REQUIRE(h.states.size() == static_cast<size_t>(s.n()));
    std::string script = reference;
    script += "Q = " + py(h.Q) + "\nK = " + py(h.K) + "\nV = " + py(h.V) + "\nM = " + py(h.weights) + "\nZ = " + py(h.output) + "\n";
    script += "f = " + py(r.score_factor) + "\nbeta = " + py(s.beta) + "\na = " + py(s.decay) + "\nn = " + std::to_string(s.n()) + "\n";
    script += "states = [";
    for (const core::Matrix& st : h.states) script += py(st) + ",";
    script += "]\n" + checks + "print('ok')\n";
    CHECK(fixtures::run_python(python, script) == "ok\n");
}

} // namespace

TEST_CASE("attention rules: linear attention equals NumPy's, with the causal mask and a window, and without") {
    core::Scenario s = seven_tokens();
    core::edits::set_rule(s, core::AttentionRule::linear);
    const std::string checks = R"(
i, j = np.indices((n, n))
visible = (j <= i) & (i - j < 3) if causal else np.ones((n, n), bool)
M_ref, Z_ref, states_ref = linear(Q, K, V, f, visible)
close("M", M, M_ref)
close("Z", Z, Z_ref)
close("Z = M V", Z, M @ V)
for t in range(n):
    close(f"state {t}", states[t], states_ref[t])
    close(f"z_{t} = q_t S_t", Z[t], Q[t] @ states[t])
)";
    SUBCASE("causal, window 3") {
        core::edits::set_causal(s, true);
        core::edits::set_window(s, 3);
        check_against_numpy(s, "causal = True\n" + std::string(checks));
    }
    SUBCASE("every key") { check_against_numpy(s, "causal = False\n" + std::string(checks)); }
}

TEST_CASE("attention rules: the delta rule equals torch_recurrent_gated_delta_rule in NumPy; M its closed form; Z = M V") {
    core::Scenario s = seven_tokens();
    core::edits::set_rule(s, core::AttentionRule::delta);
    const std::string checks = R"(
g = np.full(n, np.log(a))
b = np.full(n, beta)
Z_ref, states_ref = recurrent(Q, K, V, g, b, f)
close("Z", Z, Z_ref)
close("M", M, delta_matrix(Q, K, g, b, f))
close("Z = M V", Z, M @ V)
assert np.all(np.triu(M, 1) == 0), "M has entries above the diagonal"
for t in range(n):
    close(f"state {t}", states[t], states_ref[t])
)";
    SUBCASE("β 0.6, decay 0.8, scores / √d_k") {
        REQUIRE(core::edits::set_beta(s, 0.6));
        REQUIRE(core::edits::set_decay(s, 0.8));
        check_against_numpy(s, checks);
    }
    SUBCASE("β 1, decay 1, not scaled: M has a negative entry") {
        core::edits::set_scale(s, core::ScoreScale::none);
        check_against_numpy(s, checks + "assert M.min() < 0, M\n");
    }
    SUBCASE("the window and the causal switch do not change the delta rule, which is causal by nature") {
        REQUIRE(core::edits::set_beta(s, 0.3));
        const core::Result before = core::compute(s);
        core::edits::set_window(s, 2);
        core::edits::set_causal(s, false);
        const core::Result after = core::compute(s);
        CHECK(after.heads[0].weights == before.heads[0].weights);
        CHECK(core::is_masked(s, 2, 3));
        CHECK_FALSE(core::is_masked(s, 5, 0));
    }
}

TEST_CASE("attention rules: the cat sat — M, the state and the written-out row of sat under each rule") {
    core::Scenario s = core::preset_three_tokens();
    core::edits::set_causal(s, true);
    const double r2 = std::sqrt(2.0);

    core::edits::set_rule(s, core::AttentionRule::linear);
    core::Result r = core::compute(s);
    // Without softmax the row of sat is its scaled scores: 4, 2, 6 over √2.
    CHECK(r.heads[0].weights(2, 0) == doctest::Approx(4 / r2).epsilon(1e-12));
    CHECK(r.heads[0].weights(2, 2) == doctest::Approx(6 / r2).epsilon(1e-12));
    CHECK(r.heads[0].weights(0, 1) == 0.0);
    // S_sat = (k_the v_theᵀ + k_cat v_catᵀ + k_sat v_satᵀ) / √2 = [[4, 4], [1, 4]] / √2.
    const core::Matrix S = core::state_at(s, r, 0, 2); // (2, 2)
    CHECK((S - core::rows({{4, 4}, {1, 4}}) / r2).cwiseAbs().maxCoeff() < 1e-12);
    core::RowExplanation e = core::explain_row(s, r, 2);
    CHECK(e.heads[0].keys[0].weight == "m_the = 2.828");
    CHECK(e.heads[0].keys[2].score == "q_sat · k_sat = 2·2 + 2·1 = 6");
    CHECK(e.heads[0].weighted_sum == "z_sat = 2.828·(1, 0) + 1.414·(0, 2) + 4.243·(1, 2) = (7.071, 11.314)");
    CHECK(core::to_text(e).find("2. Exponentials") == std::string::npos);

    core::edits::set_rule(s, core::AttentionRule::delta);
    r = core::compute(s);
    // k'_sat = (2, 1)/√5 erases part of what the = (1, 0) wrote: w_the = (0.2, −0.4), q'_sat = (0.5, 0.5).
    CHECK(r.heads[0].weights(2, 0) == doctest::Approx(-0.1).epsilon(1e-5));
    CHECK(r.heads[0].weights(2, 1) == doctest::Approx(0.2).epsilon(1e-5));
    CHECK(r.heads[0].weights(2, 2) == doctest::Approx(3 / std::sqrt(20.0)).epsilon(1e-5));
    e = core::explain_row(s, r, 2);
    CHECK(e.heads[0].keys[0].scaled == "w_the = (0.200, -0.400) after 2 steps of decay and erase");
    CHECK(e.heads[0].keys[0].weight == "m_the = q'_sat · w_the = 0.500·0.200 + 0.500·(-0.400) = -0.100");
    CHECK(e.heads[0].keys[2].scaled == "w_sat = (0.894, 0.447) (just written)");
    CHECK(core::to_text(e).find("1. What each token wrote, and what is left of it") != std::string::npos);
    const core::Matrix D = core::state_at(s, r, 0, 2);                                         // (2, 2)
    CHECK((core::Vector(r.heads[0].q_hat.row(2) * D) - core::Vector(r.heads[0].output.row(2))).norm() < 1e-12);

    core::edits::set_rule(s, core::AttentionRule::softmax);
    r = core::compute(s);
    CHECK(r.heads[0].weights(2, 0) == doctest::Approx(0.187).epsilon(1e-2));
    CHECK(r.heads[0].states.empty());
    CHECK(core::state_at(s, r, 0, 2).size() == 0);
}

TEST_CASE("attention rules: a state too large to keep is computed when asked, the same as the kept one") {
    core::Scenario s = core::numpy_random_qkv(3, 300, 64); // 300 · 64 · 64 entries: more than Result keeps
    for (core::AttentionRule rule : {core::AttentionRule::linear, core::AttentionRule::delta}) {
        core::edits::set_rule(s, rule);
        core::edits::set_causal(s, true);
        const core::Result r = core::compute(s);
        CHECK(r.heads[0].states.empty());
        const core::Matrix S = core::state_at(s, r, 0, 250); // (64, 64)
        const core::Matrix& q = rule == core::AttentionRule::delta ? r.heads[0].q_hat : r.heads[0].Q;
        CHECK((q.row(250) * S - r.heads[0].output.row(250)).cwiseAbs().maxCoeff() < 1e-9);
    }
}

TEST_CASE("attention rules: set through core::edits — β and decay from 0 to 1 only — saved in scenario files") {
    core::Scenario s = core::preset_three_tokens();
    CHECK_FALSE(core::edits::set_beta(s, 1.5));
    CHECK_FALSE(core::edits::set_decay(s, -0.1));
    CHECK_FALSE(core::edits::set_beta(s, std::nan("")));
    CHECK(s.beta == 1.0);
    CHECK(s.decay == 1.0);
    core::edits::set_rule(s, core::AttentionRule::delta);
    REQUIRE(core::edits::set_beta(s, 0.35));
    REQUIRE(core::edits::set_decay(s, 0.9));
    const std::string text = core::io::to_json_text(s);
    CHECK(text.find("\"rule\": \"delta\"") != std::string::npos);
    const core::Scenario back = core::io::parse_scenario(text);
    CHECK(back == s);
    CHECK(back.rule == core::AttentionRule::delta);
    CHECK(back.beta == 0.35);
    CHECK(back.decay == 0.9);

    // A file written before the rule existed opens as softmax.
    const core::Scenario old = core::io::parse_scenario(R"({"tokens": ["a", "b"], "X": [[1, 0], [0, 1]],
        "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1, 0], [0, 1]], "causal": true})");
    CHECK(old.rule == core::AttentionRule::softmax);
    CHECK(core::io::to_json_text(old).find("rule") == std::string::npos);

    auto error_of = [&](const std::string& extra) {
        try {
            core::io::parse_scenario(R"({"tokens": ["a"], "X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], )" + extra + "}");
        } catch (const core::ScenarioError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error_of(R"("rule": "cosine")") == R"(rule is "cosine", expected "softmax", "linear" or "delta")");
    CHECK(error_of(R"("rule": 2)") == R"(rule is a number, expected "softmax", "linear" or "delta")");
    CHECK(error_of(R"("beta": 2)") == "beta is 2, expected a number from 0 to 1");
    CHECK(error_of(R"("decay": "slow")") == "decay is a string, expected a number from 0 to 1");
}

TEST_CASE("attention rules: the heatmap's figure of a signed M is diverging about 0 from −max|M| to +max|M|, masked as the rule sees") {
    core::Scenario s = seven_tokens();
    core::edits::set_causal(s, false);
    const core::Matrix A = core::compute(s).heads[0].weights; // (n, n) softmax rows
    const core::io::FigureSpec softmax = core::io::heatmap_spec(s, A, "A", false);
    CHECK_FALSE(softmax.diverging);
    CHECK_FALSE(softmax.causal);
    CHECK(softmax.top == 1.0);
    CHECK(core::io::heatmap_spec(s, A, "A", true).top == A.maxCoeff());

    core::edits::set_rule(s, core::AttentionRule::delta);
    const core::Matrix M = core::compute(s).heads[0].weights; // (n, n) signed, lower triangular
    REQUIRE(M.minCoeff() < 0);
    const core::io::FigureSpec delta = core::io::heatmap_spec(s, M, "M", false);
    CHECK(delta.diverging);
    CHECK(delta.causal); // the delta rule sees only the past, whatever the causal toggle says
    CHECK(delta.top == M.cwiseAbs().maxCoeff());
    // Its colour bar's ticks run from −top through 0 to +top.
    const std::string svg = core::io::heatmap_figure_svg(M, delta);
    CHECK(svg.find(">0</text>") != std::string::npos);
    CHECK(svg.find(">-") != std::string::npos);
}
