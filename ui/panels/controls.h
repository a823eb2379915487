// ui/panels/controls.h — switches, presets, reset, files and undo.
#pragma once

#include "ui/view.h"

namespace ui {

void draw_controls_panel(core::Scenario& s, View& v); // edits the scenario

} // namespace ui
