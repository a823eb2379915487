// ui/panels/lesson.h — the Lesson panel (the step text, back and next, predictions, challenges,
// hints) and the Learn menu. The step engine is core::learn::Session; this only draws it and
// carries its states into the App's scenario and view.
#pragma once

#include "core/learn/session.h"
#include "ui/view.h"

#include <optional>
#include <string>
#include <vector>

namespace ui {

struct LessonView {
    core::learn::ProgressStore store{core::learn::default_progress_path()};
    bool store_loaded = false;
    bool keep_progress = true;               // false for --screenshot: nothing is written
    std::optional<core::learn::Session> session;
    std::optional<core::learn::StepState> pending; // to apply at the start of the panel's next draw
    std::vector<core::learn::MatrixPlace> highlights; // the open step's
    // What the panels hide before a prediction is committed (ui/panels/lesson_secret.h), and when it was worked out.
    core::learn::Secret secret;
    struct SecretKey {
        int frame = -1, step = -1;
        bool committed = false;
        int n = 0;
        bool operator==(const SecretKey& o) const { return frame == o.frame && step == o.step && committed == o.committed && n == o.n; }
    } secret_key;
    std::vector<core::learn::Lesson> builtin; // listed by the Learn menu, loaded once
    bool builtin_loaded = false;
};

// Opens a lesson (a built-in id or a file) at step `step` (1-based; 0 resumes where the learner
// left it) and opens the panel; false with `error` ("FILE:LINE: …") when it does not load.
bool start_lesson(View& v, const std::string& id_or_file, int step, std::string& error);
// Ends the lesson; the scenario stays as it is.
void close_lesson(View& v);

void draw_lesson_panel(core::Scenario& s, const core::Result& r, View& v);
// The Learn menu of the menu bar: the built-in lessons, "Open lesson file…", close.
void draw_learn_menu(View& v);

} // namespace ui
