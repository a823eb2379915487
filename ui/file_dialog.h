// ui/file_dialog.h — the one file dialog every Open, Save, Import and Export uses: breadcrumbs,
// the parent folder, the folder's entries with size and date, a filter by extension, hidden
// files, recent folders and files, a typed path, and the keys (Up/Down, Enter, Backspace, Escape).
// What it lists and does is core::io::FileBrowser; this draws it.
#pragma once

#include "core/io/settings.h"
#include "ui/file_request.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ui {

struct FileDialog {
    std::optional<FileRequest> request; // open while set
    std::optional<core::io::FileBrowser> browser;
    std::string typed;           // the path (Open) or file name (Save) box
    bool focus_field = false;    // give the box the keyboard at the next frame
    bool typing = false;         // the box had the keyboard at the last frame
    bool scroll_to_selection = false;
    std::string pending;         // letters typed while the list had the keys, for the box once it has them
    std::string overwrite;       // Save: this file is there; waiting for Replace or Keep
    // Where things were drawn, for tests: "up", "crumb I", "entry NAME", "recent folder I",
    // "recent file I", "filter", "hidden", "field", "accept", "cancel", "replace", "keep".
    std::map<std::string, ImRect> items;
    bool open() const { return request.has_value(); }
    const std::string& title() const;
    const std::string& error() const; // the browser's, or ""
};

// Opens the dialog (or replaces the one open) for `request`, in its folder, else the most recent.
void start_file_dialog(FileDialog& d, FileRequest request, const core::io::Settings& settings);
// Draws the modal while it is open. An accepted file goes first in the recent lists.
void draw_file_dialog(FileDialog& d, core::io::Settings& settings);

} // namespace ui
