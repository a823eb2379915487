// ui/app_state.h — what App keeps between frames. Tests include it to look inside.
#pragma once

#include "ui/history.h"
#include "ui/view.h"
#include "ui/ui.h"

#include <string>

namespace ui {

// The Open / Save as modal.
struct FileDialog {
    enum class Mode { none, open, save_as };
    Mode mode = Mode::none;
    std::string path;
    std::string error; // shown in red in the modal; the scenario is untouched
    bool focus = false; // put the cursor in the path box on the next frame
};

// Start-up restored the autosaved session (or could not): say so, and offer the worked example.
struct RestoreNotice {
    std::string text; // empty: nothing to say
    bool offer_default = false;
};

struct App::State {
    State(core::Scenario start, TextureUploader& uploader, std::string file)
        : initial(start), scenario(start), history(start), textures(uploader), path(std::move(file)) {}

    core::Scenario initial;  // what Reset goes back to
    core::Scenario scenario; // what the user edits
    core::Scenario computed; // the scenario `result` was computed from: always valid
    core::Result result;
    View view;
    History history;
    TextureUploader& textures;
    std::string path; // where Save writes; empty until opened or saved as
    FileDialog dialog;
    RestoreNotice restore_notice;
    bool relayout = false; // View ▸ Reset layout: place every panel again
    bool quit = false;
};

// The restore notice as a modal; "Start from the worked example" is one undoable edit.
void draw_restore_notice(App::State& st);

} // namespace ui
