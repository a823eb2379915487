// ui/file_dialog.cpp — drawing the file dialog (see file_dialog.h).
//
// [SECTION] Opening and choosing
// [SECTION] The folder bar: parent and breadcrumbs
// [SECTION] Recent folders and files
// [SECTION] The list of entries
// [SECTION] The path box, the filter and the buttons
// [SECTION] Keys and the modal
#include "ui/file_dialog.h"

#include "ui/widgets.h"
#include "core/error_text.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>

namespace ui {

namespace fs = std::filesystem;
using core::io::FileBrowser;
using Kind = FileBrowser::Outcome::Kind;

const std::string& FileDialog::title() const {
    static const std::string none;
    return request ? request->title : none;
}

const std::string& FileDialog::error() const {
    static const std::string none;
    return browser ? browser->error() : none;
}

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Opening and choosing
//-----------------------------------------------------------------------------

bool saving(const FileDialog& d) { return d.request->mode == FileBrowser::Mode::save; }

void close(FileDialog& d) {
    d.request.reset();
    d.browser.reset();
    d.overwrite.clear();
    ImGui::CloseCurrentPopup();
}

// Hands the file to the caller; its error (naming the file) keeps the dialog open.
void accept(FileDialog& d, const std::string& path, core::io::Settings& settings) {
    try {
        d.request->accept(path);
    } catch (const std::exception& e) {
        d.browser->set_error(core::error_text(e));
        d.overwrite.clear();
        d.focus_field = true;
        return;
    }
    core::io::remember_recent_file(settings, path);
    close(d);
}

// Enter on the typed text, or on the selection when `typed` is empty.
void submit(FileDialog& d, const std::string& typed, core::io::Settings& settings) {
    const FileBrowser::Outcome o = d.browser->submit(typed);
    if (o.kind == Kind::folder_entered) {
        if (typed.empty()) return; // the keys stay with the list
        d.typed.clear();           // the box held that folder's path
        d.focus_field = true;
    } else if (o.kind == Kind::error) {
        d.focus_field = true;
    } else if (o.kind == Kind::file) {
        if (saving(d) && o.exists) d.overwrite = o.path;
        else accept(d, o.path, settings);
    }
}

void remember_item(FileDialog& d, const std::string& name) { d.items[name] = ImRect(ImGui::GetItemRectMin(), ImGui::GetItemRectMax()); }

//-----------------------------------------------------------------------------
// [SECTION] The folder bar: parent and breadcrumbs
//-----------------------------------------------------------------------------

// The parent button, then as many trailing segments of the path as fit ("…" for the rest).
void folder_bar(FileDialog& d) {
    FileBrowser& b = *d.browser;
    if (ImGui::ArrowButton("##up", ImGuiDir_Up)) b.go_up();
    remember_item(d, "up");
    tip("The parent folder (Backspace)");
    const std::vector<core::io::Crumb> crumbs = core::io::breadcrumbs(b.folder());
    const ImGuiStyle& style = ImGui::GetStyle();
    const float sep = ImGui::CalcTextSize("›").x + 2.0f * style.ItemSpacing.x;
    float room = ImGui::GetContentRegionAvail().x - ImGui::GetFrameHeight() - style.ItemSpacing.x - ImGui::CalcTextSize("…").x - sep;
    std::size_t first = crumbs.size();
    while (first > 0) {
        const float w = ImGui::CalcTextSize(crumbs[first - 1].label.c_str()).x + 2.0f * style.FramePadding.x + sep;
        if (w > room && first < crumbs.size()) break;
        room -= w;
        --first;
    }
    if (first > 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("…");
    }
    std::string go;
    for (std::size_t i = first; i < crumbs.size(); ++i) {
        ImGui::SameLine();
        if (i > first || first > 0) {
            ImGui::TextDisabled("›");
            ImGui::SameLine();
        }
        ImGui::PushID(static_cast<int>(i));
        if (ImGui::Button(crumbs[i].label.c_str())) go = crumbs[i].path;
        ImGui::PopID();
        remember_item(d, "crumb " + std::to_string(i));
    }
    if (!go.empty()) b.go_to(go);
}

//-----------------------------------------------------------------------------
// [SECTION] Recent folders and files
//-----------------------------------------------------------------------------

void recent_lists(FileDialog& d, const core::io::Settings& settings) {
    FileBrowser& b = *d.browser;
    ImGui::TextDisabled("Recent folders");
    if (settings.recent_folders.empty()) ImGui::TextDisabled("  (none yet)");
    for (std::size_t i = 0; i < settings.recent_folders.size(); ++i) {
        const fs::path folder = settings.recent_folders[i];
        const std::string name = (folder.has_filename() ? folder.filename().string() : folder.string()) + "##folder" + std::to_string(i);
        if (ImGui::Selectable(name.c_str(), folder == b.folder())) b.go_to(folder.string());
        remember_item(d, "recent folder " + std::to_string(i));
        tip(folder.c_str());
    }
    if (saving(d)) return;
    ImGui::Spacing();
    ImGui::TextDisabled("Recent files");
    const core::io::FileFilter& filter = b.filters()[static_cast<std::size_t>(b.filter())];
    for (std::size_t i = 0; i < settings.recent_files.size(); ++i) {
        const fs::path file = settings.recent_files[i];
        if (!filter.matches(file.filename().string())) continue;
        const std::string name = file.filename().string() + "##file" + std::to_string(i);
        if (ImGui::Selectable(name.c_str())) d.typed = file.string(), d.focus_field = true;
        remember_item(d, "recent file " + std::to_string(i));
        tip(file.c_str());
    }
}

//-----------------------------------------------------------------------------
// [SECTION] The list of entries
//-----------------------------------------------------------------------------

// One row; a click selects (Save: a file's name goes in the box), a double click opens.
void entry_row(FileDialog& d, int i, core::io::Settings& settings) {
    FileBrowser& b = *d.browser;
    const core::io::FolderEntry e = b.entries()[static_cast<std::size_t>(i)];
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    const std::string label = (e.folder ? "▸ " : "   ") + e.name + (e.folder ? "/" : "") + "##" + std::to_string(i);
    const bool selected = i == b.selected();
    if (ImGui::Selectable(label.c_str(), selected, ImGuiSelectableFlags_SpanAllColumns | ImGuiSelectableFlags_AllowDoubleClick)) {
        b.select(i);
        if (saving(d) && !e.folder) d.typed = e.name;
        if (ImGui::IsMouseDoubleClicked(0)) submit(d, "", settings);
    }
    if (selected && d.scroll_to_selection) ImGui::SetScrollHereY();
    remember_item(d, "entry " + e.name);
    ImGui::TableNextColumn();
    if (!e.folder) ImGui::TextDisabled("%s", core::io::size_text(e.size).c_str());
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", core::io::date_text(e.modified).c_str());
}

void entry_list(FileDialog& d, float height, core::io::Settings& settings) {
    const ImGuiTableFlags flags = ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersOuter | ImGuiTableFlags_SizingFixedFit;
    if (!ImGui::BeginTable("entries", 3, flags, ImVec2(0, height))) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Name", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthFixed, 5.5f * em());
    ImGui::TableSetupColumn("Modified", ImGuiTableColumnFlags_WidthFixed, 8.5f * em());
    ImGui::TableHeadersRow();
    // Rows are drawn from a copy of the count: a double click may enter another folder.
    const int count = static_cast<int>(d.browser->entries().size());
    for (int i = 0; i < count && i < static_cast<int>(d.browser->entries().size()); ++i) entry_row(d, i, settings);
    if (count == 0) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextDisabled("(no folders and no files of this kind here)");
    }
    d.scroll_to_selection = false;
    ImGui::EndTable();
}

//-----------------------------------------------------------------------------
// [SECTION] The path box, the filter and the buttons
//-----------------------------------------------------------------------------

// The box: a path (absolute, relative to the folder, or from ~), or the file name to save as.
// Returns whether Enter was pressed in it.
bool path_box(FileDialog& d) {
    ImGui::AlignTextToFramePadding();
    ImGui::TextUnformatted(saving(d) ? "File name" : "Path");
    ImGui::SameLine();
    if (d.focus_field) {
        ImGui::SetKeyboardFocusHere();
        d.focus_field = false;
    }
    if (d.typing && !d.pending.empty()) { // the box has the keys again: the letters replace its text
        ImGui::GetIO().AddInputCharactersUTF8(d.pending.c_str());
        d.pending.clear();
    }
    ImGui::SetNextItemWidth(-FLT_MIN);
    const bool entered = ImGui::InputTextWithHint("##path", saving(d) ? "name of the file" : "type a path, or pick a file above",
                                                  &d.typed, ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_AutoSelectAll);
    d.typing = ImGui::IsItemActive();
    remember_item(d, "field");
    tip("Absolute, relative to the folder shown, or starting with ~; Enter opens it");
    return entered;
}

void filter_and_hidden(FileDialog& d) {
    FileBrowser& b = *d.browser;
    ImGui::SetNextItemWidth(18.0f * em());
    const std::string current = b.filters()[static_cast<std::size_t>(b.filter())].text();
    if (ImGui::BeginCombo("##filter", current.c_str())) {
        for (std::size_t i = 0; i < b.filters().size(); ++i) {
            const std::string label = b.filters()[i].text() + "##" + std::to_string(i);
            if (ImGui::Selectable(label.c_str(), static_cast<int>(i) == b.filter())) b.set_filter(static_cast<int>(i));
            remember_item(d, "filter " + std::to_string(i));
        }
        ImGui::EndCombo();
    }
    remember_item(d, "filter");
    ImGui::SameLine();
    bool hidden = b.hidden();
    if (ImGui::Checkbox("Hidden files", &hidden)) b.set_hidden(hidden);
    remember_item(d, "hidden");
}

// What goes below the lists: the path box, the error, the filter row, the overwrite question.
float footer_height(const FileDialog& d) {
    const float rows = d.overwrite.empty() ? 2.0f : 3.0f;
    float h = rows * ImGui::GetFrameHeightWithSpacing();
    if (!d.error().empty()) {
        const float wrap = ImGui::GetContentRegionAvail().x;
        h += ImGui::CalcTextSize(d.error().c_str(), nullptr, false, wrap).y + ImGui::GetTextLineHeightWithSpacing() + 2.0f * ImGui::GetStyle().ItemSpacing.y;
    }
    return h;
}

void error_line(const FileDialog& d) {
    if (d.error().empty()) return;
    ImGui::PushStyleColor(ImGuiCol_Text, error_text_colour());
    ImGui::TextWrapped("%s", d.error().c_str());
    ImGui::PopStyleColor();
    ImGui::TextDisabled(saving(d) ? "Nothing was written." : "Nothing was changed.");
}

// Open / Save and Cancel, right-aligned; or, for an existing file, Replace and Keep.
void buttons(FileDialog& d, bool entered, core::io::Settings& settings) {
    if (!d.overwrite.empty()) {
        ImGui::AlignTextToFramePadding();
        ImGui::Text("%s is already there. Replace it?", fs::path(d.overwrite).filename().c_str());
        ImGui::SameLine();
        if (ImGui::Button("Replace")) accept(d, d.overwrite, settings);
        remember_item(d, "replace");
        ImGui::SameLine();
        if (ImGui::Button("Keep it")) d.overwrite.clear(), d.focus_field = true;
        remember_item(d, "keep");
        return;
    }
    const char* go = saving(d) ? "Save" : "Open";
    const ImGuiStyle& style = ImGui::GetStyle();
    const float w = ImGui::CalcTextSize(go).x + ImGui::CalcTextSize("Cancel").x + 4.0f * style.FramePadding.x + style.ItemSpacing.x;
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMax().x - w));
    const bool clicked = ImGui::Button(go);
    remember_item(d, "accept");
    ImGui::SameLine();
    const bool cancel = ImGui::Button("Cancel");
    remember_item(d, "cancel");
    if (cancel) close(d);
    else if (clicked || entered) submit(d, d.typed.empty() ? "" : d.typed, settings);
}

//-----------------------------------------------------------------------------
// [SECTION] Keys and the modal
//-----------------------------------------------------------------------------

bool pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key), true); }

// Up/Down move the selection (and take the keys from the box); outside the box Enter opens the
// selection, Backspace the parent, and letters go back to the box. Escape: Keep the file, else cancel.
void keys(FileDialog& d, core::io::Settings& settings) {
    FileBrowser& b = *d.browser;
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) {
        if (!d.overwrite.empty()) d.overwrite.clear();
        else close(d);
        return;
    }
    const int by = pressed(ImGuiKey_DownArrow) ? 1 : pressed(ImGuiKey_UpArrow) ? -1 : 0;
    if (by != 0 && d.overwrite.empty()) {
        b.move_selection(by);
        d.scroll_to_selection = true;
        if (saving(d) && b.selected() >= 0 && !b.entries()[static_cast<std::size_t>(b.selected())].folder)
            d.typed = b.entries()[static_cast<std::size_t>(b.selected())].name;
        if (d.typing) ImGui::ClearActiveID();
        d.typing = false;
        return;
    }
    if (d.typing || !d.overwrite.empty()) return;
    const ImVector<ImWchar>& letters = ImGui::GetIO().InputQueueCharacters;
    if (!letters.empty()) { // typing while the list has the keys goes to the box
        for (ImWchar c : letters) {
            char utf8[5];
            d.pending += ImTextCharToUtf8(utf8, c);
        }
        d.focus_field = true;
        return;
    }
    if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter), false)) submit(d, b.selected() >= 0 ? "" : d.typed, settings);
    else if (pressed(ImGuiKey_Backspace)) b.go_up();
}

} // namespace

void start_file_dialog(FileDialog& d, FileRequest request, const core::io::Settings& settings) {
    std::string folder = request.folder;
    if (folder.empty() && !settings.recent_folders.empty()) folder = settings.recent_folders.front();
    d.browser.emplace(request.mode, request.filters, folder);
    d.typed = request.name;
    d.request = std::move(request);
    d.focus_field = true;
    d.typing = false;
    d.overwrite.clear();
    d.items.clear();
}

void draw_file_dialog(FileDialog& d, core::io::Settings& settings) {
    if (!d.open()) return;
    const std::string title = d.request->title; // the request may end inside
    if (!ImGui::IsPopupOpen(title.c_str())) ImGui::OpenPopup(title.c_str());
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowSize(ImVec2(std::min(52.0f * em(), display.x * 0.95f), std::min(32.0f * em(), display.y * 0.9f)), ImGuiCond_Appearing);
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Appearing, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(1.0f); // the panels' text must not show through the list
    if (!ImGui::BeginPopupModal(title.c_str(), nullptr, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoNavInputs)) return;
    keys(d, settings);
    if (d.open()) {
        folder_bar(d);
        const float height = std::max(6.0f * em(), ImGui::GetContentRegionAvail().y - footer_height(d));
        ImGui::BeginChild("recent", ImVec2(12.0f * em(), height), true);
        recent_lists(d, settings);
        ImGui::EndChild();
        ImGui::SameLine();
        entry_list(d, height, settings);
    }
    if (d.open()) {
        const bool entered = path_box(d);
        error_line(d);
        filter_and_hidden(d);
        buttons(d, entered, settings);
    }
    ImGui::EndPopup();
}

} // namespace ui
