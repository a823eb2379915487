// tests/calculation_shown.h — the written-out calculation the Calculation panel shows for the
// selected query row (it must be that row's).
#pragma once

#include "tests/headless.h"
#include "ui/panels/explore/calculation.h"

inline const core::HeadExplanation& shown_calculation(headless::Ui& ui) {
    const ui::CalculationCache& c = ui.st().view.state<ui::CalculationCache>();
    REQUIRE(c.row == ui.st().view.selected_row);
    return c.explanation.heads.at(0);
}
