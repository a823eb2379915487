// The order panel: shuffling the tokens, with and without positions, and undoing it.
#include "headless.h"

#include "core/edits.h"
#include "ui/panels/explore/order.h"

#include <doctest/doctest.h>

#include <algorithm>

using headless::Ui;

TEST_CASE("order panel: shuffling permutes the outputs exactly without positions, and not with them") {
    Ui ui(core::preset_it_sentence());
    ui.st().view.open["order"] = true;
    ui.st().view.open["weights"] = false; // under the order panel: keep its text out of screen_text()
    ui.frames(2);
    const core::Scenario start = ui.scenario();
    const core::Matrix old_output = ui.app().result().output;

    ui.click(ui.item("shuffle"));
    const std::vector<int> perm = ui.st().view.state<ui::OrderView>().perm;
    REQUIRE(perm.size() == 7);
    core::Scenario expected = start;
    core::edits::permute_tokens(expected, perm);
    CHECK(ui.scenario() == expected);
    for (int i = 0; i < 7; ++i)
        CHECK((ui.app().result().output.row(i) - old_output.row(perm[i])).cwiseAbs().maxCoeff() <= 1e-12);
    ui.frame();
    CHECK(ui.shows("✓ z_i = old z_perm[i] for every row"));
    CHECK(ui.shows("new order: " + ui.scenario().tokens[0] + " " + ui.scenario().tokens[1]));
    for (double d : ui.st().view.state<ui::OrderView>().check.differences) CHECK(d <= 1e-12);

    // One undo step brings the old order back.
    ui.key('Z', true);
    CHECK(ui.scenario() == start);

    // With sinusoidal positions the same shuffle changes the outputs beyond a permutation.
    ui.click(ui.item("order_positions"));
    REQUIRE(ui.scenario().positional == core::Positional::sinusoidal);
    const core::Matrix positioned = ui.app().result().output;
    ui.click(ui.item("shuffle"));
    const std::vector<int> again = ui.st().view.state<ui::OrderView>().perm;
    double worst = 0.0;
    for (int i = 0; i < 7; ++i) worst = std::max(worst, (ui.app().result().output.row(i) - positioned.row(again[i])).cwiseAbs().maxCoeff());
    CHECK(worst > 1e-3);
    ui.frame();
    CHECK(ui.shows("✗ the outputs did not just move with their tokens"));
    CHECK(*std::max_element(ui.st().view.state<ui::OrderView>().check.differences.begin(), ui.st().view.state<ui::OrderView>().check.differences.end()) == doctest::Approx(worst));
}
