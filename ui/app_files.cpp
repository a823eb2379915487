// ui/app_files.cpp — the App's files: File ▸ Open, Save as and Import through the file dialog,
// opening and saving the scenario, and the question about unsaved changes at quit.
//
// [SECTION] The file dialogs
// [SECTION] Opening and saving
// [SECTION] Unsaved changes at quit
#include "ui/app_files.h"

#include "core/edits.h"
#include "core/error_text.h"
#include "core/io/formats.h"
#include "core/io/scenario_io.h"
#include "ui/file_drop.h"

#include <filesystem>

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] The file dialogs
//-----------------------------------------------------------------------------

namespace {

// The folder of the scenario's file, where its dialogs start ("": the most recent folder).
std::string folder_of(const std::string& path) { return path.empty() ? "" : std::filesystem::path(path).parent_path().string(); }

} // namespace

void ask_open(App::State& st) {
    using core::io::Kind;
    std::vector<core::io::FileFilter> filters = {core::io::filter_of(Kind::scenario, "Scenarios"),
                                                 core::io::filter_of(Kind::array, "Arrays, opened as X")};
    st.view.file_request = FileRequest{core::io::FileBrowser::Mode::open, "Open scenario", std::move(filters), "",
                                       folder_of(st.path), [&st](const std::string& path) { open_scenario_file(st, path); }};
}

void ask_save_as(App::State& st) {
    const std::string name = st.path.empty() ? "scenario.json" : std::filesystem::path(st.path).filename().string();
    st.view.file_request = FileRequest{core::io::FileBrowser::Mode::save, "Save scenario as", {core::io::filter_of(core::io::Kind::scenario, "Scenarios")}, name,
                                       folder_of(st.path), [&st](const std::string& path) { save_scenario_to(st, path); }};
}

void ask_import(App::State& st) {
    st.view.file_request = FileRequest{core::io::FileBrowser::Mode::open, "Import an array into a matrix",
                                       {core::io::filter_of(core::io::Kind::array, "Arrays")}, "",
                                       "", [&st](const std::string& path) { offer_array(st, path); }};
}

//-----------------------------------------------------------------------------
// [SECTION] Opening and saving
//-----------------------------------------------------------------------------

void save_scenario_to(App::State& st, const std::string& path) {
    core::io::save_scenario_file(path, st.scenario); // throws ScenarioError; atomic
    st.path = path;
    st.saved = st.scenario;
    core::io::remember_recent_file(st.settings, path);
    st.view.tell("saved " + path, false);
}

void open_scenario_file(App::State& st, const std::string& path) {
    core::edits::replace_scenario(st.scenario, core::io::load_scenario_file(path));
    st.path = path;
    st.saved = st.scenario;
    core::io::remember_recent_file(st.settings, path);
    st.view.tell("opened " + path, false);
}

//-----------------------------------------------------------------------------
// [SECTION] Unsaved changes at quit
//-----------------------------------------------------------------------------

// Quitting with unsaved changes to a named file: Save, Discard or Cancel. The autosaved session
// keeps the changes whichever is chosen.
void quit_modal(App::State& st) {
    const char* title = "Unsaved changes";
    if (st.confirm_quit && !ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoSavedSettings)) return;
    ImGui::Text("%s has changes that are not saved.", std::filesystem::path(st.path).filename().string().c_str());
    ImGui::TextDisabled("Either way the session is autosaved and comes back at the next start.");
    const bool save = ImGui::Button("Save and quit");
    ImGui::SameLine();
    const bool discard = ImGui::Button("Quit without saving");
    ImGui::SameLine();
    const bool cancel = ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
    if (save) {
        try {
            save_scenario_to(st, st.path);
            st.quit = true;
        } catch (const std::exception& e) {
            st.view.tell(core::error_text(e), true); // stay, so the changes are not lost
        }
    }
    if (discard) st.quit = true;
    if (st.quit || cancel) {
        st.confirm_quit = false;
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

} // namespace ui
