// ui/workspaces.h — the workspaces at run time (their table is ui/workspace_table.h): which one is
// current, each one's open panels and places as the user left them, the tab bar under the menu,
// View ▸ Workspace, and their sections of the layout file.
#pragma once

#include "ui/workspace_table.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <map>
#include <string>
#include <vector>

namespace ui {

struct View;

struct PanelLayout {
    Place place;
    bool open = false;
};
using WorkspaceLayout = std::map<std::string, PanelLayout, std::less<>>; // by PanelSpec::id

struct Workspaces {
    Workspaces(); // every workspace as its table row lays it out, Explore current

    int current = 0;
    int start = -1;         // the workspace the command line named, taken at the first frame
    std::vector<WorkspaceLayout> layouts; // one per table row
    bool place_all = true;  // the next frame puts every panel at its place (start, switch, reset)
    bool placing = false;   // this frame does
    int back_to = -1;       // the workspace a jump came from, offered as "◂ Back to …" (-1: none)
    int tab_shown = -1;     // the tab the tab bar showed selected at the last frame
    bool started = false;   // a frame was drawn: from then on a jump offers the way back
    bool loaded = false;    // the layout file's sections were read: the View takes their open panels
    ImVec2 work_size{0, 0}; // the work area the places were last put in
    // Where each open panel of the current workspace goes this frame: its place, grown down into the
    // places below it that no open panel takes (see fitted_place); and those that moved since the last.
    std::map<std::string, Place, std::less<>> fitted;
    std::vector<std::string> fitted_open, refit; // the open panels they were fitted to
};

// The work area in screen pixels: the display below the menu bar and the tab bar.
ImRect work_area();
ImRect to_pixels(const Place& p, const ImRect& area);

// Makes workspace `k` current. The current one keeps its panels as they are; k's come back as it
// left them, with `k`'s home panel open. `way_back`: offer a button back to the one left.
void switch_workspace(Workspaces& w, View& v, int k, bool way_back);
// View ▸ Reset layout: the current workspace as its table row lays it out.
void reset_workspace(Workspaces& w, View& v);
// After the layout file was read: the View's open panels become the current workspace's.
void adopt_loaded_layout(Workspaces& w, View& v);
// The start of a frame's panels: whether to place them all (a switch, a reset, a new display size),
// and where each open panel goes, given which panels `v` has open.
void begin_panels(Workspaces& w, const View& v);
// A panel at its table place grows down over the places below it while no open panel takes them,
// and gives them back when one opens there; one the user moved or resized stays where they put it.
Place fitted_place(const Workspaces& w, const View& v, const std::string& id);

// For each open panel: before its Begin, puts it at its place when it just opened or all are
// placed; inside its Begin … End, records where the user has it.
void place_panel(const Workspaces& w, const char* id, bool just_opened);
void record_panel(Workspaces& w, const char* id);
// Whether the panel was open at the last frame in the current workspace; sets what it is now.
bool was_open(const Workspaces& w, const char* id);
void note_open(Workspaces& w, const char* id, bool open);

// The tab bar under the main menu bar, and View ▸ Workspace.
void draw_workspace_bar(Workspaces& w, View& v);
void workspace_menu(Workspaces& w, View& v);

// The layout file's [Workspace][id] sections (one line per panel: its place and whether it is
// open) and [Workspace][#current]. Lines that do not parse, name no known panel or place a panel
// outside the window are skipped.
std::string layout_text(const Workspaces& w);
void read_layout_line(Workspaces& w, const std::string& section, const std::string& line);
// Registers the sections' handler in the current ImGui context, reading them from the layout file
// when ImGui has read it already; unregister before `w` goes.
void register_layout_handler(Workspaces& w);
void unregister_layout_handler();

} // namespace ui
