// The Controls panel's sliding window, soft-cap and score factor, driven headless: each typed value
// changes the Result in the same frame, the calculation and the heatmap show it, a bad value is
// refused with a message and changes nothing, undo brings the last one back; at 1280 × 720 the
// controls do not overlap.
#include "headless.h"

#include "core/explain.h"
#include "ui/panels/explore/calculation.h"
#include "ui/panels/explore/heatmap.h"
#include "tests/calculation_shown.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

using headless::Ui;

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST_CASE("ui: the window, the soft-cap and the score factor typed into Controls change the Result — the calculation shows each") {
    Ui ui; // the cat sat
    ui.app().select_row(2);
    ui.frames(2);
    ui.click(ui.item("causal"));
    REQUIRE(ui.scenario().causal);
    CHECK(ui.head().weights(2, 0) == doctest::Approx(0.187).epsilon(1e-2));

    ui.type_into(ui.item("window"), "2");
    CHECK(ui.scenario().window == 2);
    CHECK(ui.head().weights(2, 0) == 0.0); // "the" is 2 positions before "sat"
    CHECK(ui.head().weights(2, 1) + ui.head().weights(2, 2) == doctest::Approx(1.0));
    ui.frame();
    CHECK(shown_calculation(ui).keys[0].masked);
    CHECK(shown_calculation(ui).keys[0].scaled == "outside the sliding window (k_the is 2 positions before q_sat, the window is 2): −∞");
    CHECK(ui.shows("sliding window of 2", "Calculation"));
    // The heatmap greys the cell and says why on hover.
    const ui::HeatmapView& hm = ui.st().view.state<ui::HeatmapView>();
    ui.move(ImVec2(hm.origin.x + 0.5f * hm.cell, hm.origin.y + 2.5f * hm.cell));
    ui.frame();
    CHECK(ui.shows("masked: this key is outside the sliding window"));

    const double before_cap = ui.head().weights(2, 2);
    ui.type_into(ui.item("softcap"), "1.5");
    CHECK(ui.scenario().softcap == 1.5);
    // q_sat · k_sat = 6, / √2, then 1.5 · tanh(x / 1.5).
    CHECK(ui.head().scaled(2, 2) == doctest::Approx(1.5 * std::tanh(6.0 / std::sqrt(2.0) / 1.5)).epsilon(1e-12));
    CHECK(ui.head().weights(2, 2) < before_cap - 0.1);
    ui.frame();
    CHECK(has(shown_calculation(ui).keys[2].scaled, "1.5·tanh(4.243 / 1.5) = "));
    CHECK(ui.shows("1.5·tanh(x / 1.5)", "Calculation"));

    ui.type_into(ui.item("scale_factor"), "0.25");
    CHECK(ui.scenario().scale == core::ScoreScale::custom);
    CHECK(ui.scenario().scale_factor == 0.25);
    CHECK(ui.head().scaled(2, 2) == doctest::Approx(1.5 * std::tanh(6.0 * 0.25 / 1.5)).epsilon(1e-12));
    ui.frame();
    CHECK(has(shown_calculation(ui).keys[2].scaled, "6 × 0.25 = 1.500 → 1.5·tanh(1.500 / 1.5)"));
    CHECK(ui.shows("scores × 0.25 (instead of / √2)", "Calculation"));

    // Ticking "Scale by √d_k" goes back to 1/√d_k; undo brings the factor back.
    ui.click(ui.item("scale"));
    CHECK(ui.scenario().scale == core::ScoreScale::inv_sqrt_d_k);
    ui.key('Z', true);
    CHECK(ui.scenario().scale == core::ScoreScale::custom);
    CHECK(ui.scenario().scale_factor == 0.25);
    ui.key('Z', true);
    CHECK(ui.scenario().scale == core::ScoreScale::inv_sqrt_d_k);
    ui.key('Z', true);
    CHECK(ui.scenario().softcap == 0.0);
    CHECK(ui.scenario().window == 2);
}

TEST_CASE("ui: a negative window, a negative cap, a factor of 0 or a letter are refused with a message and change nothing") {
    Ui ui;
    ui.frames(2);
    ui.type_into(ui.item("window"), "3");
    ui.type_into(ui.item("softcap"), "20");
    const core::Scenario before = ui.scenario();
    REQUIRE(before.window == 3);

    ui.type_into(ui.item("window"), "-2");
    CHECK(ui.scenario() == before);
    CHECK(ui.st().view.status_is_error);
    CHECK(ui.st().view.status == "the window must be 0 (off) or a width of at least 1");
    CHECK(ui.shows("the window must be 0 (off)"));

    ui.type_into(ui.item("softcap"), "-1");
    CHECK(ui.scenario() == before);
    CHECK(ui.st().view.status == "the soft-cap is -1, expected 0 (off) or a number above 0");

    ui.type_into(ui.item("scale_factor"), "0");
    CHECK(ui.scenario() == before);
    CHECK(ui.st().view.status == "the score factor is 0, expected a number above 0");

    ui.type_into(ui.item("window"), "x");
    ui.type_into(ui.item("softcap"), "nan");
    CHECK(ui.scenario() == before);
}

TEST_CASE("ui: at 1280 × 720 the Controls panel's score rules fit side by side without overlapping") {
    Ui ui(core::preset_three_tokens(), ImVec2(1280, 720));
    ui.frames(3);
    headless::check_inside_apart(ui, "Controls", {"causal", "scale", "scale_factor", "window", "softcap"});
}
