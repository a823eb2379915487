// ui/panels/explore/controls.h — switches, presets, reset, files and undo.
#pragma once

#include "core/presets.h"
#include "ui/view.h"

namespace ui {

// The NumPy draw's seed and size while the scenario is one (the NumPy presets): the controls that
// redraw Q, K and V are shown only then.
struct NumpyDrawView {
    bool linked = false;
    core::NumpyRandomParams params;
    long long checked_version = -1; // the result version last looked at while not linked
};

void draw_controls_panel(core::Scenario& s, View& v); // edits the scenario

} // namespace ui
