// Undo and redo: ui::History by itself, and through the window's shortcuts.
#include "headless.h"

#include "ui/history.h"

#include <doctest/doctest.h>

using headless::Ui;

TEST_CASE("ui: undo restores the previous scenario, redo re-applies it — a drag is one step") {
    Ui ui;
    ui.frames(2);
    const core::Scenario start = ui.scenario();
    ui.type_into(ui.grid_cell("X", 0, 0), "3");
    const core::Scenario typed = ui.scenario();
    REQUIRE(typed.X(0, 0) == 3.0);

    ui.key('Z', true);
    CHECK(ui.scenario() == start);
    CHECK(ui.head().Q(0, 0) == 1.0);
    ui.key('Z', true, true);
    CHECK(ui.scenario() == typed);
    CHECK(ui.head().Q(0, 0) == 3.0);

    // A drag over many frames changes the value many times but is undone in one step.
    const ImVec2 cell = ui.grid_cell("W_K", 1, 1);
    ui.drag(cell, ImVec2(cell.x + 60.0f, cell.y), 12);
    CHECK(ui.scenario().heads[0].W_K(1, 1) > 1.3);
    ui.key('Z', true);
    CHECK(ui.scenario() == typed);
}

TEST_CASE("history: commit, undo, redo and the depth cap") {
    core::Scenario s = core::preset_three_tokens();
    ui::History h(s, 3);
    CHECK_FALSE(h.can_undo(s));
    for (int k = 1; k <= 5; ++k) {
        s.X(0, 0) = k;
        h.commit(s);
    }
    CHECK(h.undo_steps() == 3); // the oldest steps went first
    CHECK(h.undo(s));
    CHECK(s.X(0, 0) == 4);
    CHECK(h.redo(s));
    CHECK(s.X(0, 0) == 5);
    while (h.undo(s)) {}
    CHECK(s.X(0, 0) == 2);
    // An edit after undo drops the redo steps.
    s.causal = true;
    h.commit(s);
    CHECK_FALSE(h.can_redo());
}

TEST_CASE("ui: the Causal and Scale switches change the weights, and undo takes each back") {
    Ui ui;
    ui.frames(2);
    const core::Scenario start = ui.scenario();
    ui.click(ui.item("causal"));
    CHECK(ui.scenario().causal);
    CHECK(ui.head().weights(0, 1) == 0.0); // "the" no longer sees "cat"
    ui.click(ui.item("scale"));
    CHECK(ui.scenario().scale == core::ScoreScale::none);
    CHECK(ui.head().scaled(2, 1) == doctest::Approx(2.0)); // q_sat · k_cat, not divided by √2

    ui.key('Z', true);
    CHECK(ui.scenario().scale == core::ScoreScale::inv_sqrt_d_k);
    CHECK(ui.scenario().causal);
    ui.key('Z', true);
    CHECK(ui.scenario() == start);
    CHECK(ui.head().weights(0, 1) == doctest::Approx(0.108).epsilon(1e-2));
    ui.key('Z', true, true);
    CHECK(ui.scenario().causal);
    CHECK(ui.scenario().scale == core::ScoreScale::inv_sqrt_d_k);
}
