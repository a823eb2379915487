// ui/panel_table.h — the one list of panels. The View and Help menus, the workspaces,
// App::frame() and the tests all read panel_table(); nothing else names a panel.
//
// How to add a panel:
//   1. Write ui/panels/<name>.{h,cpp}: its state struct (if any) and its draw function in the
//      header; the state is v.state<NameView>(), made on first use, kept (and destroyed) with the App.
//   2. Add one row to panel_table() in ui/panel_table.cpp, row<draw_NAME_panel>("id", "Title", menu,
//      "tip"): the draw gets the parts of the PanelContext its parameters name (a list of parameters
//      no panel had before needs one more `call` overload there), and the panel edits the scenario
//      exactly when its draw takes a core::Scenario& that is not const. Add the .cpp to CMakeLists.txt,
//      and the panel to the workspaces it belongs in (ui/workspace_table.cpp) with its place there.
//   3. In its draw: change the scenario only through core::edits, select with view.selected_row/head,
//      open another panel with view.open[id], ask the App for undo/files with view.request_*;
//      shared services go into ui/view.h, not here.
//      It includes no other panel's header (tests/include_rules.py checks): what it shares goes
//      into View (a plain struct its publish function fills, listed in publishers() beside the table,
//      as the Lesson panel's View::lesson).
//   A state owning a resource (a texture, a worker thread) releases or joins it in its destructor.
#pragma once

#include "ui/ui.h"
#include "ui/view.h"

#include <string_view>
#include <vector>

namespace ui {

// What a panel's draw function may use. Display panels (edits_scenario = false) must not change
// `scenario`: they are drawn after this frame's edits were recomputed.
struct PanelContext {
    core::Scenario& scenario;   // change it only through core::edits
    const core::Result& result; // computed from `scenario` as it was when this panel began
    View& view;                 // selection, status, requests, open panels, every panel's state
    TextureUploader& textures;  // for panels that draw big images
};

// Where the panel is listed: the first group of the View menu (the editors and tables), the second group
// (the topics, closed at start), its submenu of the Model workspace's panels (which together would
// run the menu past a 720-pixel screen), or the Help menu. Where a panel goes and whether it starts
// open is each workspace's (ui/workspace_table.h).
enum class Menu { view, view_topics, view_model, help };

struct PanelSpec {
    const char* id;       // stable name: View::open's key, tests, saved settings ("heatmap")
    const char* title;    // the window title and the menu item
    Menu menu;
    bool edits_scenario;  // drawn before the display panels, each followed by a recompute (row() sets it)
    const char* tip;      // the menu item's tooltip, or nullptr
    void (*draw)(PanelContext&);
};

const std::vector<PanelSpec>& panel_table();
// What panels share with the others through View (View::lesson, View::model), kept current: each is
// called at the start of every frame and after every recompute, whether its panel is open or not.
const std::vector<void (*)(PanelContext&)>& publishers();
// The row with this id, or nullptr.
const PanelSpec* find_panel(std::string_view id);

} // namespace ui
