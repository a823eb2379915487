// The rules real heads add to the articles' attention: a sliding window beside the causal mask, a
// logit soft-cap and a score factor other than 1/√d_k. compute() (every kernel build), the decoder
// and the written-out calculation against plain loops written here; edits and scenario files
// refuse bad values and leave the scenario as it was.
#include "fixture_files.h"

#include "core/attention.h"
#include "core/decoder.h"
#include "core/edits.h"
#include "core/explain.h"
#include "core/io/scenario_io.h"
#include "core/kernels.h"
#include "core/presets.h"

#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

namespace {

struct Rules {
    bool causal = false;
    double factor = 1.0; // scores are multiplied by this
    double cap = 0.0;    // > 0: cap · tanh(x / cap)
    int window = 0;      // > 0: key j visible from query i only when |i − j| < window
};

// Softmax weights of direct Q and K under `rules`, as plain loops: transformers' masks
// (sliding_window_overlay: kv_idx > q_idx − window; causal: kv_idx ≤ q_idx).
std::vector<std::vector<double>> reference_weights(const core::Matrix& Q, const core::Matrix& K, const Rules& rules) {
    const long n = static_cast<long>(Q.rows());
    std::vector<std::vector<double>> A(static_cast<size_t>(n), std::vector<double>(static_cast<size_t>(n), 0.0));
    for (long i = 0; i < n; ++i) {
        std::vector<double> logit(static_cast<size_t>(n), -std::numeric_limits<double>::infinity());
        double top = -std::numeric_limits<double>::infinity();
        for (long j = 0; j < n; ++j) {
            const bool hidden = (rules.causal && j > i) || (rules.window > 0 && (i - j >= rules.window || j - i >= rules.window));
            if (hidden) continue;
            double dot = 0.0;
            for (long c = 0; c < Q.cols(); ++c) dot += Q(i, c) * K(j, c);
            double x = dot * rules.factor;
            if (rules.cap > 0) x = rules.cap * std::tanh(x / rules.cap);
            logit[static_cast<size_t>(j)] = x;
            top = std::max(top, x);
        }
        double sum = 0.0;
        for (long j = 0; j < n; ++j) sum += std::exp(logit[static_cast<size_t>(j)] - top);
        for (long j = 0; j < n; ++j) A[static_cast<size_t>(i)][static_cast<size_t>(j)] = std::exp(logit[static_cast<size_t>(j)] - top) / sum;
    }
    return A;
}

core::Scenario with_rules(core::Scenario s, const Rules& rules) {
    s.causal = rules.causal;
    s.window = rules.window;
    s.softcap = rules.cap;
    if (rules.factor == 1.0) s.scale = core::ScoreScale::none;
    else REQUIRE(core::edits::set_scale_factor(s, rules.factor));
    return s;
}

double largest_gap(const core::Matrix& got, const std::vector<std::vector<double>>& want) {
    double gap = 0.0;
    for (Eigen::Index i = 0; i < got.rows(); ++i)
        for (Eigen::Index j = 0; j < got.cols(); ++j)
            gap = std::max(gap, std::abs(got(i, j) - want[static_cast<size_t>(i)][static_cast<size_t>(j)]));
    return gap;
}

// Large entries, so that the soft-cap and the factor change the weights a lot.
core::Scenario drawn(int n, int d) {
    core::Scenario s = core::numpy_random_qkv(5, n, d);
    s.heads[0].Q *= 6.0;
    return s;
}

} // namespace

TEST_CASE("score rules: compute() with a sliding window, a soft-cap and a score factor equals plain loops, in every kernel build") {
    const std::string before = core::kernel_build();
    for (const std::string& build : core::kernel_builds()) {
        CAPTURE(build);
        REQUIRE(core::use_kernel_build(build));
        for (int n : {9, 300}) { // 300: several row blocks, on every thread
            const core::Scenario base = drawn(n, 5);
            for (const Rules& rules : {Rules{true, 1.0, 0.0, 3}, Rules{false, 1.0, 0.0, 3}, Rules{true, 0.0625, 0.0, 0},
                                       Rules{false, 1.0, 2.5, 0}, Rules{true, 0.3, 2.5, 4}, Rules{false, 0.3, 1.5, 7}, Rules{true, 1.0, 0.0, 1}}) {
                CAPTURE(n);
                CAPTURE(rules.causal);
                CAPTURE(rules.factor);
                CAPTURE(rules.cap);
                CAPTURE(rules.window);
                const core::Scenario s = with_rules(base, rules);
                const core::Result r = core::compute(s);
                const auto want = reference_weights(s.heads[0].Q, s.heads[0].K, rules);
                CHECK(largest_gap(r.heads[0].weights, want) < 1e-12);
                // Z = A V over the visible keys only: the same as the full product with the reference's A.
                core::Matrix A(n, n);
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < n; ++j) A(i, j) = want[static_cast<size_t>(i)][static_cast<size_t>(j)];
                CHECK((r.heads[0].output - A * s.heads[0].V).cwiseAbs().maxCoeff() < 1e-12);
                // Hidden cells: −∞ before the softmax, exactly 0 after, as the heatmap greys them.
                for (int i = 0; i < n; ++i)
                    for (int j = 0; j < n; ++j)
                        if (core::is_masked(s, i, j)) {
                            CHECK(r.heads[0].weights(i, j) == 0.0);
                            CHECK(std::isinf(r.heads[0].scaled(i, j)));
                        } else if (rules.cap > 0) {
                            CHECK(std::abs(r.heads[0].scaled(i, j)) <= rules.cap); // tanh reaches ±1 in double for large x
                        }
            }
        }
    }
    core::use_kernel_build(before);
}

TEST_CASE("score rules: the window hides keys i − j ≥ window, and with no causal mask j − i ≥ window") {
    core::Scenario s = core::numpy_random_qkv(1, 6, 2);
    s.causal = true;
    s.window = 3;
    CHECK_FALSE(core::is_masked(s, 4, 2)); // 4 − 2 = 2 < 3
    CHECK(core::is_masked(s, 4, 1));       // 4 − 1 = 3
    CHECK(core::is_masked(s, 4, 5));       // causal
    CHECK_FALSE(core::outside_window(s, 4, 5));
    CHECK(core::outside_window(s, 4, 1));
    s.causal = false;
    CHECK_FALSE(core::is_masked(s, 2, 4));
    CHECK(core::is_masked(s, 1, 4));
    s.window = 0;
    CHECK_FALSE(core::is_masked(s, 5, 0));
}

TEST_CASE("score rules: the decoder's rows equal compute()'s under a window, a soft-cap and a factor") {
    core::Scenario s = with_rules(core::preset_it_sentence(), Rules{true, 0.7, 1.5, 2});
    const core::Result r = core::compute(s);
    const std::vector<core::DecodeStep> steps = core::decode_all(s);
    for (int t = 0; t < s.n(); ++t)
        for (int j = 0; j <= t; ++j) CHECK(steps[static_cast<size_t>(t)].weights[0][j] == doctest::Approx(r.heads[0].weights(t, j)).epsilon(1e-12));
}

TEST_CASE("score rules: the written-out calculation shows the factor, the soft-cap and the keys the window hides") {
    core::Scenario s = core::preset_three_tokens(); // the cat sat
    s.causal = true;
    REQUIRE(core::edits::set_window(s, 2));
    REQUIRE(core::edits::set_softcap(s, 3.0));
    REQUIRE(core::edits::set_scale_factor(s, 0.5));
    const core::RowExplanation e = core::explain_row(s, core::compute(s), 2); // sat
    const core::HeadExplanation& he = e.heads[0];
    CHECK(he.setup == "scores × 0.5 (instead of / √2), soft-capped: 3·tanh(x / 3) keeps them within ±3, causal mask, "
                      "sliding window of 2: keys 2 … 3 visible");
    // q_sat · k_sat = 6 in the article: × 0.5 = 3, then 3·tanh(3 / 3) = 2.285.
    CHECK(he.keys[2].scaled == "6 × 0.5 = 3 → 3·tanh(3 / 3) = " + core::format_number(3.0 * std::tanh(1.0)));
    CHECK(he.keys[0].masked);
    CHECK(he.keys[0].scaled == "outside the sliding window (k_the is 2 positions before q_sat, the window is 2): −∞");
    CHECK(he.keys[0].weight == "w_the = 0 (masked)");
    const std::string text = core::to_text(e);
    CHECK(text.find(he.setup) != std::string::npos);
    CHECK(text.find("outside the sliding window") != std::string::npos);
    CHECK(core::logit_formula(s, "QKᵀ") == "3·tanh(QKᵀ × 0.5 / 3)");
    CHECK(core::mask_description(s) == "masked: −∞ above the diagonal and outside a sliding window of 2");
    CHECK(core::softmax_argument(s) == "3·tanh(QKᵀ × 0.5 / 3)");
    core::Scenario usual = core::preset_three_tokens();
    CHECK(core::softmax_argument(usual) == "QKᵀ / √d_k"); // the heatmap's title as it always read
    core::edits::set_scale(usual, core::ScoreScale::none);
    CHECK(core::softmax_argument(usual) == "QKᵀ");
    // The articles' rules add no line: --explain prints what it printed before.
    CHECK(core::explain_row(core::preset_three_tokens(), core::compute(core::preset_three_tokens()), 2).heads[0].setup.empty());
}

TEST_CASE("score rules: edits and validation refuse a negative window, a NaN or negative cap, a factor of 0, and change nothing") {
    core::Scenario s = core::preset_three_tokens();
    const core::Scenario before = s;
    CHECK_FALSE(core::edits::set_window(s, -1));
    CHECK_FALSE(core::edits::set_softcap(s, std::nan("")));
    CHECK_FALSE(core::edits::set_softcap(s, -2.0));
    CHECK_FALSE(core::edits::set_softcap(s, std::numeric_limits<double>::infinity()));
    CHECK_FALSE(core::edits::set_scale_factor(s, 0.0));
    CHECK_FALSE(core::edits::set_scale_factor(s, std::nan("")));
    CHECK(s == before);
    core::Scenario bad = s;
    bad.window = -4;
    CHECK(core::validate(bad) == "window is -4, expected 0 (off) or a width of at least 1");
    bad = s;
    bad.softcap = std::nan("");
    CHECK(core::validate(bad) == "softcap is NaN, expected 0 (off) or a number above 0");
    bad = s;
    bad.scale = core::ScoreScale::custom;
    bad.scale_factor = -1.0;
    CHECK(core::validate(bad) == "scale is -1, expected a number above 0");
    CHECK_THROWS_AS(core::compute(bad), core::ScenarioError);
}

TEST_CASE("score rules: a scenario file keeps the window, the soft-cap and the factor — old files load — bad values name the file and field") {
    const std::string dir = fixtures::temp_dir();
    core::Scenario s = with_rules(core::preset_numpy_random(), Rules{true, 1.0 / 3.0, 50.0, 4});
    core::io::save_scenario_file(dir + "/rules.json", s);
    const core::Scenario back = core::io::load_scenario_file(dir + "/rules.json");
    CHECK(back == s);
    CHECK(back.scale_factor == 1.0 / 3.0); // exact
    CHECK(back.window == 4);
    CHECK(back.softcap == 50.0);
    s.scale = core::ScoreScale::none;
    core::io::save_scenario_file(dir + "/none.json", s);
    CHECK(core::io::load_scenario_file(dir + "/none.json") == s);

    const std::string head = R"({"X": [[1, 0], [0, 1]], "W_Q": [[1, 0], [0, 1]], "W_K": [[1, 0], [0, 1]], "W_V": [[1], [2]])";
    const core::Scenario old = core::io::parse_scenario(head + R"(, "scale": false})");
    CHECK(old.scale == core::ScoreScale::none);
    CHECK(old.window == 0);
    CHECK(old.softcap == 0.0);
    CHECK(core::io::parse_scenario(head + "}").scale == core::ScoreScale::inv_sqrt_d_k);

    const struct {
        const char* field;
        const char* message;
    } bad[] = {
        {R"("window": -1)", "bad.json: window is -1, expected 0 (off) or a width from 1 to 2^30"},
        {R"("window": "a")", "bad.json: window is a string, expected a whole number (0: no window)"},
        {R"("window": 2.5)", "bad.json: window is 2.5, expected a whole number (0: no window)"},
        {R"("softcap": "NaN")", "bad.json: softcap is a string, expected 0 (off) or a number above 0"},
        {R"("softcap": -3)", "bad.json: softcap is -3, expected 0 (off) or a number above 0"},
        {R"("scale": 0)", "bad.json: scale is 0, expected a number above 0"},
        {R"("scale": "x")", "bad.json: scale is a string, expected true, false or a factor above 0"},
    };
    for (const auto& b : bad) {
        CAPTURE(b.field);
        std::ofstream(dir + "/bad.json") << head << ", " << b.field << "}";
        CHECK_THROWS_WITH_AS(core::io::load_scenario_file(dir + "/bad.json"), (dir + "/" + b.message).c_str(), core::ScenarioError);
    }
}
