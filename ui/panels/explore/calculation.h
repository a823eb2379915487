// ui/panels/explore/calculation.h — the selected row's calculation, written out step by step.
#pragma once

#include "core/explain.h"
#include "ui/view.h"

namespace ui {

struct CalculationCache {
    long long version = -1;   // result version the explanation was made from
    int row = -1;
    core::RowExplanation explanation;
    float score_w = 0.0f, scaled_w = 0.0f; // widest score and scaled-score texts, in the number font
    int head = -1;            // the focused head whose block was last opened
};

void draw_calculation_panel(const core::Scenario& s, const core::Result& r, View& v);

} // namespace ui
