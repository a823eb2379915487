// ui/panels/train/train.h — train a tiny transformer and watch its heads form; open any head in the editor.
#pragma once

#include "core/train/knockouts.h"
#include "core/train/session.h"
#include "ui/panels/train/train_knockouts.h"
#include "ui/view.h"

#include <memory>
#include <string>
#include <vector>

namespace ui {

struct TrainView {
    core::train::TrainConfig config = default_config(); // what the controls show; applied by Reset
    std::unique_ptr<core::train::TrainSession> session;  // made on first draw; joins its worker when destroyed
    core::train::SessionView shown;                      // copied from the session each frame
    bool log_x = false;
    bool live = true;       // the grid follows training; else it shows checkpoint `scrub`
    int scrub = 0;
    int scrub_shown = -1;   // the checkpoint scrub_patterns were made for
    std::vector<core::Matrix> scrub_patterns;
    std::string path = "model.safetensors";
    // Heads knocked out by clicks on the grid, and the repeat accuracy with and without them.
    core::heads::Knockouts knockouts;
    KnockoutMeasure measured;

    static core::train::TrainConfig default_config();
};

// Edits the scenario only when a head is opened in the editor (core::edits::replace_scenario).
void draw_train_panel(core::Scenario& s, View& v);

// What "Open in editor" does for layer l, head h of what the grid shows (pauses training first).
void open_head_in_editor(TrainView& t, core::Scenario& s, int layer, int head);

} // namespace ui
