// ui/app_state.h — what App keeps between frames. Tests include it to look inside.
#pragma once

#include "ui/drops.h"
#include "ui/file_dialog.h"
#include "ui/panel_table.h"
#include "ui/history.h"
#include "ui/view.h"
#include "ui/ui.h"
#include "ui/workspaces.h"

#include <string>
#include <vector>

namespace ui {

// Start-up restored the autosaved session (or could not): say so, and offer the worked example.
struct RestoreNotice {
    std::string text; // empty: nothing to say
    bool offer_default = false;
};

struct App::State {
    State(core::Scenario start, TextureUploader& uploader, std::string file)
        : initial(start), scenario(start), saved(start), history(start), textures(uploader), path(std::move(file)) {}

    core::Scenario initial;  // what Reset goes back to
    core::Scenario scenario; // what the user edits
    core::Scenario computed; // the scenario `result` was computed from: always valid
    core::Scenario saved;    // as last opened from or saved to `path`: unsaved changes differ from it
    core::Result result;
    View view;
    History history;
    TextureUploader& textures;
    std::string path; // where Save writes; empty until opened or saved as
    FileDialog dialog;         // every Open, Save, Import and Export (ui/file_dialog.h)
    Drops drops;               // files dropped on the window (ui/file_drop.h)
    RestoreNotice restore_notice;
    Workspaces workspaces;     // the current one, and each one's panels as the user left them
    bool quit = false;
    bool confirm_quit = false; // the Save / Discard / Cancel question is open
    core::io::Settings settings;   // theme, zoom, colour maps, recent files (the window saves them)
    FileLocations locations;   // for Help ▸ About
    bool show_shortcuts = false, show_about = false;
    std::string open_path;     // File ▸ Recent files: open this at the next settle
};

// Reads `path` (fully validated first) and makes it the scenario, or throws ScenarioError naming
// the file and changes nothing.
void open_scenario_file(App::State& st, const std::string& path);
// Writes the scenario to `path` atomically; it becomes the file Save writes. Throws ScenarioError.
void save_scenario_to(App::State& st, const std::string& path);

// A workspace's home panel (the Lesson, Train, a model's attention) opened anywhere, or a panel's
// request: that workspace becomes current, with a way back (ui/app_workspaces.cpp).
void follow_opened_panels(App::State& st);
// Whether panel `p`, opening now, opens exactly where an earlier row of the panel table, open in
// this workspace, already is (then it is opaque from its first frame).
bool covers_another(const App::State& st, const PanelSpec& p);

// The restore notice as a modal; "Start from the worked example" is one undoable edit.
void draw_restore_notice(App::State& st);

} // namespace ui
