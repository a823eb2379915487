// ui/panels/learn/lesson.h — the Lesson panel (the step text, back and next, predictions, challenges,
// hints) and the Learn menu. The step engine is core::learn::Session; this only draws it and
// carries its states into the App's scenario and view. What the other panels must hide or
// outline it publishes in View::lesson (publish_lesson_overlay); they read nothing else of it.
// Its question, explain and recap steps are in lesson_checks.h.
#pragma once

#include "core/learn/session.h"
#include "ui/panels/learn/lesson_circuit.h"
#include "ui/panels/learn/lesson_model.h"
#include "ui/view.h"

#include <optional>
#include <string>
#include <vector>

namespace ui {

// The window beside the Lesson panel that shows a step's real model (its grid of heads or circuit maps).
inline constexpr const char* lesson_model_window = "The real model";

struct LessonView {
    core::learn::ProgressStore store{core::learn::default_progress_path()};
    bool store_loaded = false;
    bool keep_progress = true;               // false for --screenshot: nothing is written
    std::optional<core::learn::Session> session;
    std::optional<core::learn::StepState> pending; // to apply at the start of the panel's next draw
    // When View::lesson's secret was last worked out; reset when a lesson starts or closes.
    struct SecretKey {
        long long result_version = -1;
        int step = -1;
        bool committed = false;
        bool operator==(const SecretKey& o) const { return result_version == o.result_version && step == o.step && committed == o.committed; }
    } secret_key;
    ModelHeads model_heads; // the grid of a model's heads that a step shows, and the head picked
    CircuitMaps circuit;    // the patching and attribution maps that a step shows, and the head picked
    // The toy example's panels that a lesson on a real model closed; the next lesson without one reopens them.
    std::vector<std::string> toy_panels_hidden;
    std::vector<core::learn::Lesson> builtin; // listed by the Learn menu, loaded once
    bool builtin_loaded = false;
};

// Opens a lesson (a built-in id or a file) at step `step` (1-based; 0 resumes where the learner
// left it) and opens the panel; false with `error` ("FILE:LINE: …") when it does not load.
bool start_lesson(View& v, const std::string& id_or_file, int step, std::string& error);
// Ends the lesson; the scenario stays as it is.
void close_lesson(View& v);

void draw_lesson_panel(core::Scenario& s, const core::Result& r, View& v);
// Once a frame and after every recompute (publishers() in ui/panel_table.h): View::lesson from the
// open step, worked out again when the Result, the step or the commitment changes, and a checked
// answer whose step was left filed in Review.
void publish_lesson_overlay(const core::Scenario& s, const core::Result& r, View& v);
// The Learn menu of the menu bar: the built-in lessons, "Open lesson file…", close.
void draw_learn_menu(View& v);

} // namespace ui
