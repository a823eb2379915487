// ui/panels/explore/weights.h — the focused head's W_Q, W_K and W_V, edited in place; d_k and d_v.
#pragma once

#include "ui/view.h"

namespace ui {

void draw_weights_panel(core::Scenario& s, View& v); // edits the scenario

} // namespace ui
