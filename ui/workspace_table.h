// ui/workspace_table.h — the one list of workspaces, beside the panel table (ui/panel_table.h).
// A workspace is a list of (panel, place in fractions of the work area, open at start); the tab bar
// under the menu, Ctrl+1 … Ctrl+4, View ▸ Workspace, the layout file and the tests all read it.
//
// How to add a workspace, or a panel to one: add a row (or a PanelPlace to a row) below. A panel a
// workspace does not list opens there at the centre. Opening one of a workspace's `homes` from
// anywhere (a menu, a lesson, a dropped file) switches to that workspace.
#pragma once

#include <string_view>
#include <vector>

namespace ui {

// A rectangle in fractions of the work area (the window below the menu bar and the tab bar).
struct Place {
    float x0, y0, x1, y1;
};

struct PanelPlace {
    const char* panel; // PanelSpec::id
    Place place;
    bool open_at_start;
    // It lies over the workspace's other places: Train in Learn, where a lesson on the tiny model
    // opens it alone beside the lesson's text.
    bool over_others = false;
};

struct WorkspaceSpec {
    const char* id;    // stable name: --workspace, the layout file, tests ("train")
    const char* title; // the tab and the menu item
    const char* tip;
    // The panels whose opening switches here (none for some); the first is always open here.
    std::vector<const char*> homes;
    std::vector<PanelPlace> panels;
};

const std::vector<WorkspaceSpec>& workspace_table();
// The row's index with this id, or -1.
int find_workspace(std::string_view id);
// Where `panel` goes in workspace `w`: its row, or the centre for a panel the workspace does not list.
Place place_in(const WorkspaceSpec& w, std::string_view panel);
// The workspace among whose homes `panel` is, or -1.
int home_workspace_of(std::string_view panel);
// The workspace that opening `panel` in workspace `current` takes you to: its home, unless
// `current` lists it (Learn lists Train, for a lesson on the tiny model); else -1.
int workspace_opening(int current, std::string_view panel);

} // namespace ui
