// ui/shortcuts.cpp — the table of shortcuts, reading them from the keyboard, and the F1 window.
#include "ui/shortcuts.h"

#include "ui/widgets.h"

#include <imgui.h>

#include <cstring>

namespace ui {

const std::vector<Shortcut>& shortcut_table() {
    static const std::vector<Shortcut> table = {
        {"File", "Ctrl+O", "Open a scenario or tensor file", Command::open, 'O', Mods::ctrl},
        {"File", "Ctrl+R", "Open the most recent file again", Command::open_recent_latest, 'R', Mods::ctrl},
        {"File", "Ctrl+S", "Save", Command::save, 'S', Mods::ctrl},
        {"File", "Ctrl+Shift+S", "Save as…", Command::save_as, 'S', Mods::ctrl_shift},
        {"File", "Ctrl+Q", "Quit (asks first when a named file has unsaved changes)", Command::quit, 'Q', Mods::ctrl},
        {"Edit", "Ctrl+Z", "Undo", Command::undo, 'Z', Mods::ctrl},
        {"Edit", "Ctrl+Shift+Z", "Redo", Command::redo, 'Z', Mods::ctrl_shift},
        {"Edit", "Ctrl+Y", "Redo", Command::redo, 'Y', Mods::ctrl},
        {"View", "Ctrl+=", "Zoom in (to 300 %)", Command::zoom_in, keys::equal, Mods::ctrl_any_shift},
        {"View", "Ctrl+Keypad +", "Zoom in", Command::zoom_in, keys::keypad_add, Mods::ctrl},
        {"View", "Ctrl+-", "Zoom out (to 75 %)", Command::zoom_out, keys::minus, Mods::ctrl},
        {"View", "Ctrl+Keypad -", "Zoom out", Command::zoom_out, keys::keypad_subtract, Mods::ctrl},
        {"View", "Ctrl+0", "Zoom back to 100 %", Command::zoom_reset, keys::zero, Mods::ctrl},
        {"View", "F1", "Show or hide this list", Command::shortcuts, keys::f1, Mods::none},
        {"Workspaces", "Ctrl+1", "Explore: edit the scenario, see every matrix", Command::workspace_1, keys::digit_1, Mods::ctrl},
        {"Workspaces", "Ctrl+2", "Learn: a lesson beside the panels it opens", Command::workspace_2, keys::digit_1 + 1, Mods::ctrl},
        {"Workspaces", "Ctrl+3", "Train: a tiny transformer on the whole screen", Command::workspace_3, keys::digit_1 + 2, Mods::ctrl},
        {"Workspaces", "Ctrl+4", "Model: a model's attention on the whole screen", Command::workspace_4, keys::digit_1 + 3, Mods::ctrl},
        {"Heatmap (when it has the focus)", "Up", "Select the row above", Command::previous_row, keys::up, Mods::none},
        {"Heatmap (when it has the focus)", "Down", "Select the row below", Command::next_row, keys::down, Mods::none},
        {"Matrix cells", "Enter", "Type a new value into the focused cell", Command::edit_cell, keys::enter, Mods::none, true},
        {"Matrix cells", "Tab", "Keep what was typed and move to the next cell", Command::next_cell, keys::tab, Mods::none, true},
        {"Matrix cells", "Escape", "Stop typing, keeping the old value", Command::cancel_edit, keys::escape, Mods::none, true},
    };
    return table;
}

const char* keys_of(Command command) {
    for (const Shortcut& s : shortcut_table())
        if (s.command == command) return s.keys;
    return nullptr;
}

namespace {

bool mods_match(Mods mods, const ImGuiIO& io) {
    switch (mods) {
    case Mods::none: return !io.KeyCtrl && !io.KeyAlt;
    case Mods::ctrl: return io.KeyCtrl && !io.KeyShift && !io.KeyAlt;
    case Mods::ctrl_shift: return io.KeyCtrl && io.KeyShift && !io.KeyAlt;
    case Mods::ctrl_any_shift: return io.KeyCtrl && !io.KeyAlt;
    }
    return false;
}

} // namespace

std::vector<Command> pressed_commands() {
    std::vector<Command> pressed;
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput) return pressed;
    for (const Shortcut& s : shortcut_table())
        if (!s.by_widgets && mods_match(s.mods, io) && ImGui::IsKeyPressed(s.key, s.mods == Mods::none))
            pressed.push_back(s.command);
    return pressed;
}

void draw_shortcuts_window(bool* open) {
    if (!*open) return;
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(ImVec2(vp->WorkPos.x + vp->WorkSize.x * 0.5f, vp->WorkPos.y + vp->WorkSize.y * 0.5f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowSizeConstraints(ImVec2(0, 0), ImVec2(vp->WorkSize.x * 0.9f, vp->WorkSize.y * 0.9f));
    if (ImGui::Begin(shortcuts_window_title, open, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) {
        const char* group = nullptr;
        for (const Shortcut& s : shortcut_table()) {
            if (!group || std::strcmp(group, s.group) != 0) {
                if (group) ImGui::EndTable();
                group = s.group;
                ImGui::Spacing();
                ImGui::TextDisabled("%s", group);
                ImGui::BeginTable(group, 2, ImGuiTableFlags_SizingFixedFit);
                ImGui::TableSetupColumn("keys", ImGuiTableColumnFlags_WidthFixed, 9.0f * em());
            }
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s.keys);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(s.what);
        }
        if (group) ImGui::EndTable();
    }
    ImGui::End();
}

} // namespace ui
