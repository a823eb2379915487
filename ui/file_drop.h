// ui/file_drop.h — files dropped on the window, taken one at a time by the frame: a scenario
// opens (asking first about unsaved changes), a lesson starts, an array asks which matrix it
// fills (File ▸ Import array asks the same), attention weights may open in their viewer.
#pragma once

#include "core/fill.h"
#include "ui/ui.h"

#include <imgui_internal.h>

#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ui {

// "Which matrix?": the arrays read from `path` and the matrices they fit.
struct ArrayOffer {
    std::string path;
    std::string shape;                         // as in the file: "(3, 4)", "(2, 4, 2)"
    std::vector<core::Matrix> arrays;          // one, or one per head
    std::vector<core::edits::MatrixSlot> fits; // never empty unless `attention`
    bool attention = false;                    // it also opens in the attention viewer
};

struct Drops {
    std::deque<std::string> queue;     // dropped, not taken yet
    std::optional<ArrayOffer> offer;   // the "which matrix" question is open
    std::string waiting_scenario;      // a dropped scenario, while the unsaved-changes question is open
    std::vector<std::string> problems; // files not used and why, told together once the queue is done
    // Where the modals' buttons were, for tests: "fill LABEL", "attention", "cancel", "save first",
    // "open anyway", "keep", "ok".
    std::map<std::string, ImRect> items;
};

// Reads `path` and asks which matrix it fills. Throws std::exception naming the file, asking
// nothing, when it cannot be read or fits no matrix of the scenario (the message lists its shapes).
void offer_array(App::State& st, const std::string& path);
// Takes dropped files while nothing is being asked.
void take_dropped_files(App::State& st);
// The questions: which matrix, unsaved changes, and the files that could not be used.
void draw_drop_modals(App::State& st);

} // namespace ui
