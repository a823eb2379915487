// ui/shortcuts.h — every keyboard shortcut in one table. The menus show their keys from it, the
// Keyboard shortcuts window (F1) lists it group by group, the App carries out what it names and
// the tests press every row of it. A new shortcut is one new row.
#pragma once

#include <vector>

namespace ui {

enum class Command {
    open, open_recent_latest, save, save_as, quit,
    undo, redo,
    zoom_in, zoom_out, zoom_reset, shortcuts,
    workspace_1, workspace_2, workspace_3, workspace_4, // the rows of ui/workspace_table.h, in order
    previous_row, next_row,
    edit_cell, next_cell, cancel_edit,
};

enum class Mods { none, ctrl, ctrl_shift, ctrl_any_shift };

struct Shortcut {
    const char* group; // heading in the F1 window
    const char* keys;  // as the menus and the F1 window show them
    const char* what;
    Command command;
    int key;           // key index as ImGui's GLFW backend fills io.KeysDown (GLFW_KEY_*)
    Mods mods;
    // Carried out by the widgets themselves (ImGui's keyboard navigation and text input), so
    // pressed_commands() does not report it; it is listed for the user and tested all the same.
    bool by_widgets = false;
};

// Key indices (GLFW_KEY_*), so ui/ need not include GLFW.
namespace keys {
constexpr int tab = 258, enter = 257, escape = 256, up = 265, down = 264, f1 = 290;
constexpr int digit_1 = 49;
constexpr int equal = 61, minus = 45, zero = 48, keypad_add = 334, keypad_subtract = 333, keypad_0 = 320;
} // namespace keys

const std::vector<Shortcut>& shortcut_table();

// The keys of `command`'s first row ("Ctrl+S"), for a menu item; nullptr when it has none.
const char* keys_of(Command command);

// The commands whose keys went down this frame, in table order. None while a text field has the
// keyboard (there Ctrl+Z is the field's own undo), and none of the rows marked by_widgets.
std::vector<Command> pressed_commands();

// The Keyboard shortcuts window: every row of the table, grouped. `open` is its close box.
void draw_shortcuts_window(bool* open);
constexpr const char* shortcuts_window_title = "Keyboard shortcuts";

} // namespace ui
