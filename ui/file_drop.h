// ui/file_drop.h — files dropped on the window, taken one at a time by the frame: a scenario
// opens (asking first about unsaved changes), a lesson starts, an array asks which matrix it
// fills (File ▸ Import array asks the same), attention weights may open in their viewer. What it
// keeps between frames is App::State::drops (ui/drops.h).
#pragma once

#include "ui/ui.h"

#include <string>

namespace ui {

// Reads `path` and asks which matrix it fills. Throws std::exception naming the file, asking
// nothing, when it cannot be read or fits no matrix of the scenario (the message lists its shapes).
void offer_array(App::State& st, const std::string& path);
// Takes dropped files while nothing is being asked.
void take_dropped_files(App::State& st);
// The questions: which matrix, unsaved changes, and the files that could not be used.
void draw_drop_modals(App::State& st);

} // namespace ui
