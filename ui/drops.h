// ui/drops.h — what the App keeps of files dropped on the window between frames (App::State::drops);
// ui/file_drop.h takes them and asks the questions.
#pragma once

#include "core/fill.h"

#include <imgui.h>
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

} // namespace ui
