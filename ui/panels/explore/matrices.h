// ui/panels/explore/matrices.h — Q, K, V, the scores, the weights and the output, as tables.
#pragma once

#include "ui/view.h"

namespace ui {

void draw_matrices_panel(const core::Scenario& s, const core::Result& r, View& v);

} // namespace ui
