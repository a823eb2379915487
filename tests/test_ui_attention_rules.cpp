// Explore's attention rule driven headless: the rule picked in Controls' combo and β and decay moved
// with their sliders change the Result in the same frame; the heatmap, the calculation and the State
// panel show M, the written-out row and the state; undo goes back one gesture at a time; at 1280 × 720
// the new controls stay inside the Controls panel.
#include "headless.h"

#include "ui/panels/explore/calculation.h"
#include "ui/panels/explore/heatmap.h"
#include "ui/panels/explore/state.h"
#include "ui/widgets.h"
#include "tests/calculation_shown.h"

#include <doctest/doctest.h>

#include <cmath>

using headless::Ui;

namespace {

// Picks entry k of the rule combo with two clicks, as a user does.
void pick_rule(Ui& ui, int k) {
    headless::pick_combo_entry(ui, "rule", k);
    ui.frames(2);
}

// Clicks a slider (a frame 7 em wide, its label after it) at the fraction `at` of its track: the
// slider takes the value under the pointer.
void click_slider(Ui& ui, const char* id, float at) {
    const ImRect& r = ui.st().view.items.at(id);
    const float grab = ImGui::GetStyle().GrabMinSize, pad = 2.0f; // ImGui's slider grab padding
    const float x0 = r.Min.x + pad + 0.5f * grab, x1 = r.Min.x + 7.0f * ui::em() - pad - 0.5f * grab;
    ui.click(ImVec2(x0 + at * (x1 - x0), r.GetCenter().y));
    ui.frames(2);
}

} // namespace

TEST_CASE("ui: the attention rule, β and decay set in Controls change M, the calculation and the state — undo steps back") {
    Ui ui; // the cat sat
    ui.app().select_row(2);
    ui.frames(2);
    REQUIRE(ui.scenario().rule == core::AttentionRule::softmax);
    CHECK(ui.head().weights(2, 0) == doctest::Approx(0.187).epsilon(1e-2));

    pick_rule(ui, 1); // linear
    REQUIRE(ui.scenario().rule == core::AttentionRule::linear);
    CHECK(ui.head().weights(2, 0) == doctest::Approx(4 / std::sqrt(2.0)).epsilon(1e-12));
    CHECK(ui.app().result().heads[0].states.size() == 3);
    CHECK(shown_calculation(ui).keys[0].weight == "m_the = 2.828");
    CHECK(ui.shows("2. Weights: the scaled scores as they are", "Calculation"));
    CHECK(ui.shows("M = QKᵀ / √d_k, no softmax", "Attention heatmap"));

    pick_rule(ui, 2); // delta
    REQUIRE(ui.scenario().rule == core::AttentionRule::delta);
    CHECK(ui.scenario().sees_only_past());
    CHECK(ui.head().weights(2, 0) == doctest::Approx(-0.1).epsilon(1e-5));
    CHECK(ui.shows("M of the delta rule: Z = M V", "Attention heatmap"));
    CHECK(shown_calculation(ui).keys[0].weight == "m_the = q'_sat · w_the = 0.500·0.200 + 0.500·(-0.400) = -0.100");

    // β at about a quarter: the erase is weaker, "the" is read positively; the sign flips at β = 5/6.
    click_slider(ui, "beta", 0.25f);
    const double beta = ui.scenario().beta;
    CHECK(beta == doctest::Approx(0.25).epsilon(0.05));
    // M[sat, the] = q'_sat · β (k'_the − β (k'_sat · k'_the) k'_sat) = β (1 − 1.2 β) / 2 for these keys.
    CHECK(ui.head().weights(2, 0) == doctest::Approx(beta * (1 - 1.2 * beta) / 2).epsilon(1e-5));
    CHECK(ui.head().weights(2, 0) > 0.0);

    // Decay 0.5: what the wrote is halved at each of the two later steps.
    click_slider(ui, "decay", 0.5f);
    const double decay = ui.scenario().decay;
    CHECK(decay == doctest::Approx(0.5).epsilon(0.05));
    CHECK(ui.head().weights(2, 0) == doctest::Approx(decay * decay * beta * (1 - 1.2 * beta) / 2).epsilon(1e-5));

    // The State panel shows S_sat, and ◂ steps to the state after "cat".
    headless::open_panels(ui, {"state"});
    CHECK(ui.shows("S_sat, 2 × 2 (d_k × d_v)", "State of the linear and delta rules"));
    const core::Matrix S = ui.st().view.state<ui::StateView>().state;
    CHECK((S - ui.app().result().heads[0].states[2]).cwiseAbs().maxCoeff() == 0.0);
    ui.click(ui.item("state_earlier"));
    ui.frames(2);
    CHECK(ui.st().view.selected_row == 1);
    CHECK((ui.st().view.state<ui::StateView>().state - ui.app().result().heads[0].states[1]).cwiseAbs().maxCoeff() == 0.0);

    // Undo: decay, then β, then the rule, one gesture each.
    ui.key('Z', true);
    CHECK(ui.scenario().decay == 1.0);
    CHECK(ui.scenario().beta == beta);
    ui.key('Z', true);
    CHECK(ui.scenario().beta == 1.0);
    ui.key('Z', true);
    CHECK(ui.scenario().rule == core::AttentionRule::linear);
    ui.key('Z', true);
    CHECK(ui.scenario().rule == core::AttentionRule::softmax);
    CHECK(ui.head().weights(2, 0) == doctest::Approx(0.187).epsilon(1e-2));
    ui.key('Z', true, true); // redo
    CHECK(ui.scenario().rule == core::AttentionRule::linear);
}

TEST_CASE("ui: at 1280 × 720 the rule, β and decay stay inside the Controls panel with Open, and overlap nothing") {
    Ui ui(core::preset_three_tokens(), ImVec2(1280, 720));
    ui.frames(3);
    pick_rule(ui, 2);
    ui.frames(2);
    // Under the delta rule β and decay take the place of the window and the soft-cap, which it has not.
    headless::check_inside_apart(ui, "Controls", {"causal", "rule", "beta", "decay", "scale", "scale_factor", "open"});
}
