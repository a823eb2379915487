// ui/app.cpp — the frame: recompute, menus, panels in edit-then-display order, undo, files.
//
// [SECTION] Recompute and keep the scenario valid
// [SECTION] Layout
// [SECTION] Menu bar and shortcuts
// [SECTION] Requests (undo, presets, files; the file dialogs are in app_files.cpp)
// [SECTION] Panels
// [SECTION] Frame
#include "ui/app_files.h"

#include "core/edits.h"
#include "core/error_text.h"
#include "core/io/formats.h"
#include "core/presets.h"
#include "ui/colour_maps.h"
#include "ui/file_drop.h"
#include "ui/model_service.h"
#include "ui/panels/model/attention.h"
#include "ui/panels/learn/lesson.h"
#include "ui/panels/learn/review.h"
#include "ui/panel_table.h"
#include "ui/shortcuts.h"
#include "ui/widgets.h"
#include "ui/workspaces.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>
#include <utility>

namespace ui {

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Recompute and keep the scenario valid
//-----------------------------------------------------------------------------

// Each frame starts with a full recompute (`always`): the design keeps no Result across frames.
// After each editing panel only a changed scenario is recomputed (`if_changed`, a memcmp of the
// inputs), so an edit shows in every later panel of the same frame without computing six times.
// result_version counts changes of the inputs, so panels may keep what they derive from the Result.
// An invalid scenario (which no panel should produce) is refused and the last valid one restored.
enum class Recompute { always, if_changed };
void recompute(App::State& st, Recompute when) {
    const bool changed = st.view.result_version == 0 || !same_bits(st.scenario, st.computed);
    if (!changed && when == Recompute::if_changed) return;
    try {
        core::compute_into(st.scenario, st.result);
        if (changed) st.computed = st.scenario;
    } catch (const core::ScenarioError& e) {
        st.view.tell(std::string("edit refused: ") + e.what(), true);
        st.scenario = st.computed;
        core::compute_into(st.scenario, st.result);
    }
    if (changed) ++st.view.result_version;
}

void clamp_view(App::State& st) {
    View& v = st.view;
    const core::Scenario& s = st.scenario;
    v.selected_row = std::clamp(v.selected_row, 0, s.n() - 1);
    v.selected_head = std::clamp(v.selected_head, 0, static_cast<int>(s.heads.size()) - 1);
}

//-----------------------------------------------------------------------------
// [SECTION] Layout (each workspace's places: ui/workspaces.h)
//-----------------------------------------------------------------------------

// Whether the panel `title` overlapped another window (not a popup) at the last frame. Tiled
// panels may share a fraction of a pixel along an edge; that is not overlapping.
bool overlaps_another_window(const char* title) {
    const ImGuiWindow* self = ImGui::FindWindowByName(title);
    if (!self || !self->WasActive) return false;
    constexpr ImGuiWindowFlags transient = ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip;
    for (const ImGuiWindow* other : GImGui->Windows) {
        if (other == self || !other->WasActive || other->Hidden || (other->Flags & transient)) continue;
        const ImRect shared(ImMax(self->Rect().Min, other->Rect().Min), ImMin(self->Rect().Max, other->Rect().Max));
        if (shared.GetWidth() >= 1.0f && shared.GetHeight() >= 1.0f) return true;
    }
    return false;
}

// Begin() for every panel. The frame is cleared to the panels' background colour, so a panel on
// its own needs no background of its own: skipping it saves filling the whole screen once more,
// which is the largest single cost of a frame under a software rasteriser (llvmpipe: ~7 ms at
// 1600 × 1000). A panel that overlaps another is opaque, so the one underneath never shows through.
bool begin_panel(const char* title, bool* open, bool covers_another) {
    ImGui::SetNextWindowBgAlpha(covers_another || overlaps_another_window(title) ? 1.0f : 0.0f);
    return ImGui::Begin(title, open);
}

//-----------------------------------------------------------------------------
// [SECTION] Menu bar and shortcuts
//-----------------------------------------------------------------------------

// The heatmap panel (or a child of it) has the keyboard focus: the arrow keys move its row.
bool heatmap_has_focus() {
    const PanelSpec* heatmap = find_panel("heatmap");
    const ImGuiWindow* focused = GImGui->NavWindow;
    return heatmap && focused && focused->RootWindow == ImGui::FindWindowByName(heatmap->title);
}

void set_zoom(App::State& st, int percent) {
    st.settings.zoom_percent = percent;
    st.view.tell("zoom " + std::to_string(percent) + " %", false);
}

// What a shortcut (ui/shortcuts.h) or its menu item does.
void do_command(App::State& st, Command command) {
    View& v = st.view;
    core::io::Settings& s = st.settings;
    switch (command) {
    case Command::open: v.request_open = true; break;
    case Command::open_recent_latest:
        if (!s.recent_files.empty()) st.open_path = s.recent_files.front();
        else v.tell("no recent files yet", false);
        break;
    case Command::save: v.request_save = true; break;
    case Command::save_as: v.request_save_as = true; break;
    case Command::quit: v.request_quit = true; break;
    case Command::undo: v.request_undo = true; break;
    case Command::redo: v.request_redo = true; break;
    case Command::zoom_in: set_zoom(st, core::io::next_zoom_step(s.zoom_percent, +1)); break;
    case Command::zoom_out: set_zoom(st, core::io::next_zoom_step(s.zoom_percent, -1)); break;
    case Command::zoom_reset: set_zoom(st, 100); break;
    case Command::shortcuts: st.show_shortcuts = !st.show_shortcuts; break;
    case Command::workspace_1:
    case Command::workspace_2:
    case Command::workspace_3:
    case Command::workspace_4:
        switch_workspace(st.workspaces, v, static_cast<int>(command) - static_cast<int>(Command::workspace_1), false);
        break;
    case Command::previous_row:
    case Command::next_row:
        if (heatmap_has_focus()) v.selected_row += command == Command::next_row ? 1 : -1; // clamped by clamp_view
        break;
    case Command::edit_cell:
    case Command::next_cell:
    case Command::cancel_edit: break; // ImGui's keyboard navigation and text input do these
    }
}

void shortcuts(App::State& st) {
    for (Command command : pressed_commands()) do_command(st, command);
}

// A menu item that carries out `command` and shows its keys.
void command_item(App::State& st, const char* label, Command command, bool enabled = true) {
    if (ImGui::MenuItem(label, keys_of(command), false, enabled)) do_command(st, command);
}

// File ▸ Recent files: the list File ▸ Open's dialog shares (core::io::Settings::recent_files).
void recent_files_menu(App::State& st) {
    std::vector<std::string>& recent = st.settings.recent_files;
    if (!ImGui::BeginMenu("Recent files", !recent.empty())) return;
    for (std::size_t i = 0; i < recent.size(); ++i) {
        const std::string name = std::filesystem::path(recent[i]).filename().string() + "##" + std::to_string(i);
        if (ImGui::MenuItem(name.c_str(), i == 0 ? keys_of(Command::open_recent_latest) : nullptr)) st.open_path = recent[i];
        tip(recent[i].c_str());
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Clear the list")) recent.clear();
    ImGui::EndMenu();
}

// View ▸ Theme, Colour maps and Zoom: kept in the settings.
void appearance_menus(App::State& st) {
    core::io::Settings& s = st.settings;
    if (ImGui::BeginMenu("Theme")) {
        if (ImGui::MenuItem("Dark", nullptr, s.theme == core::io::Theme::dark)) s.theme = core::io::Theme::dark;
        if (ImGui::MenuItem("Light, high contrast", nullptr, s.theme == core::io::Theme::light)) s.theme = core::io::Theme::light;
        tip("Black on white with strong borders, for projectors and bright rooms");
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Colour maps")) {
        ImGui::TextDisabled("Weights (0 to 1)");
        if (ImGui::MenuItem("Viridis", nullptr, s.weights_map == core::io::WeightsMap::viridis)) s.weights_map = core::io::WeightsMap::viridis;
        if (ImGui::MenuItem("Cividis", nullptr, s.weights_map == core::io::WeightsMap::cividis)) s.weights_map = core::io::WeightsMap::cividis;
        tip("Blue to yellow, made to read the same with red-green colour-vision deficiency");
        ImGui::Separator();
        ImGui::TextDisabled("Signed values (scores, Q, K, V, Z): centred on 0");
        if (ImGui::MenuItem("Blue – red", nullptr, s.signed_map == core::io::SignedMap::blue_red)) s.signed_map = core::io::SignedMap::blue_red;
        if (ImGui::MenuItem("Purple – orange", nullptr, s.signed_map == core::io::SignedMap::purple_orange)) s.signed_map = core::io::SignedMap::purple_orange;
        ImGui::EndMenu();
    }
    const std::string zoom = "Zoom (" + std::to_string(s.zoom_percent) + " %)";
    if (ImGui::BeginMenu(zoom.c_str())) {
        command_item(st, "Zoom in", Command::zoom_in, s.zoom_percent < core::io::zoom_steps.back());
        command_item(st, "Zoom out", Command::zoom_out, s.zoom_percent > core::io::zoom_steps.front());
        command_item(st, "Actual size (100 %)", Command::zoom_reset, s.zoom_percent != 100);
        ImGui::EndMenu();
    }
}

// One checkable item per panel listed in `menu`.
void panel_items(View& v, Menu menu) {
    for (const PanelSpec& p : panel_table()) {
        if (p.menu != menu) continue;
        ImGui::MenuItem(p.title, nullptr, &v.open[p.id]);
        if (p.tip) tip(p.tip);
    }
}

void menu_bar(App::State& st) {
    View& v = st.view;
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        command_item(st, "Open…", Command::open);
        recent_files_menu(st);
        command_item(st, "Save", Command::save);
        command_item(st, "Save as…", Command::save_as);
        if (ImGui::MenuItem("Import an array into a matrix…")) ask_import(st);
        static const std::string import_tip = "A " + core::io::extension_list(core::io::Kind::array, " or ") +
                                              " array into X, a weight matrix or Q, K, V: you pick which of those it fits";
        tip(import_tip.c_str());
        if (ImGui::MenuItem("Open attention weights…")) ask_attention_file(v);
        static const std::string attention_tip = "A model's attention weights (" + core::io::extension_list(core::io::Kind::attention, ", ") +
                                                 "), in a panel of their own";
        tip(attention_tip.c_str());
        if (ImGui::MenuItem("Open model…")) ask_model(v);
        tip("A Hugging Face checkpoint (a directory, or one in the Hugging Face cache) or the bundled model: type a prompt, see every head");
        if (ImGui::MenuItem("Open the bundled model", nullptr, false, !bundled_model_dir().empty())) v.state<ModelService>().open(bundled_model_dir(), v);
        ImGui::Separator();
        command_item(st, "Quit", Command::quit);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Edit")) {
        command_item(st, "Undo", Command::undo, v.can_undo);
        command_item(st, "Redo", Command::redo, v.can_redo);
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Presets")) {
        const auto& list = core::presets();
        for (size_t i = 0; i < list.size(); ++i) {
            if (ImGui::MenuItem(list[i].name)) v.request_preset = static_cast<int>(i);
            tip(list[i].description);
        }
        ImGui::Separator();
        if (ImGui::MenuItem("Reset")) v.request_reset = true;
        tip("Back to the scenario the program started with");
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("View")) {
        panel_items(v, Menu::view);
        ImGui::Separator();
        panel_items(v, Menu::view_topics);
        if (ImGui::BeginMenu("Model panels")) {
            panel_items(v, Menu::view_model);
            ImGui::EndMenu();
        }
        ImGui::Separator();
        appearance_menus(st);
        ImGui::Separator();
        workspace_menu(st.workspaces, v);
        if (ImGui::MenuItem("Reset layout")) reset_workspace(st.workspaces, v);
        tip("The current workspace's panels back in their places, those it starts with open");
        ImGui::EndMenu();
    }
    draw_learn_menu(v);
    draw_review_menu_item(v);
    if (ImGui::BeginMenu("Help")) { // last, as on every desktop
        panel_items(v, Menu::help);
        ImGui::Separator();
        if (ImGui::MenuItem("Keyboard shortcuts", keys_of(Command::shortcuts), st.show_shortcuts)) do_command(st, Command::shortcuts);
        ImGui::MenuItem("About attnviz", nullptr, &st.show_about);
        ImGui::EndMenu();
    }
    // The status line: refusals and file errors stay readable for a while, then fade out.
    constexpr double status_seconds = 12.0;
    if (const double left = v.status_time + status_seconds - ImGui::GetTime(); !v.status.empty() && left > 0.0) {
        v.motion.wake_after(left); // a frame without it when it is gone
        ImGui::SameLine(0, 2.0f * em());
        ImGui::PushStyleColor(ImGuiCol_Text, v.status_is_error ? error_text_colour() : ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        ImGui::TextUnformatted(v.status.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::EndMainMenuBar();
}

//-----------------------------------------------------------------------------
// [SECTION] Requests (undo, presets, files)
//-----------------------------------------------------------------------------

void carry_out_requests(App::State& st) {
    View& v = st.view;
    if (v.request_undo) v.tell(st.history.undo(st.scenario) ? "undone" : "nothing to undo", false);
    if (v.request_redo) v.tell(st.history.redo(st.scenario) ? "redone" : "nothing to redo", false);
    if (v.request_reset) {
        core::edits::replace_scenario(st.scenario, st.initial);
        v.tell("reset to the starting scenario", false);
    }
    if (v.request_preset >= 0 && v.request_preset < static_cast<int>(core::presets().size())) {
        const core::PresetInfo& p = core::presets()[v.request_preset];
        core::edits::replace_scenario(st.scenario, p.make());
        v.tell(std::string("preset: ") + p.name, false);
    }
    if (v.request_open) ask_open(st);
    if (v.request_save_as || (v.request_save && st.path.empty())) ask_save_as(st);
    else if (v.request_save) {
        try {
            save_scenario_to(st, st.path);
        } catch (const std::exception& e) {
            v.tell(core::error_text(e), true);
        }
    }
    if (!st.open_path.empty()) {
        try {
            open_scenario_file(st, st.open_path);
        } catch (const std::exception& e) {
            v.tell(core::error_text(e), true);
        }
        st.open_path.clear();
    }
    if (v.request_quit) {
        if (!st.path.empty() && st.scenario != st.saved) st.confirm_quit = true;
        else st.quit = true;
    }
    v.request_undo = v.request_redo = v.request_reset = v.request_open = v.request_save = v.request_save_as = v.request_quit = false;
    v.request_preset = -1;
    for (const std::string& id : v.bring_to_front) // in the Learn workspace, never over the lesson's text
        if (const PanelSpec* p = find_panel(id)) ImGui::SetWindowFocus(p->title);
    v.bring_to_front.clear();
    if (v.file_request) {
        start_file_dialog(st.dialog, std::move(*v.file_request), st.settings);
        v.file_request.reset();
    }
}

//-----------------------------------------------------------------------------
// [SECTION] Panels
//-----------------------------------------------------------------------------

// What the panels share through the View, from this Result (publishers()).
void publish(App::State& st) {
    PanelContext context{st.scenario, st.result, st.view, st.textures};
    for (const auto publish : publishers()) publish(context);
}

// After anything that may have edited the scenario: carry out what was asked, recompute, keep
// the selection inside the (possibly smaller) scenario, and publish what the panels share.
void settle(App::State& st) {
    carry_out_requests(st);
    recompute(st, Recompute::if_changed);
    clamp_view(st);
    publish(st);
}

// One panel at its place in the current workspace, if it is open; an editing panel's changes are
// carried out and recomputed at once, so no later panel reads a Result of another shape than the scenario.
void draw_panel(App::State& st, const PanelSpec& p) {
    Workspaces& w = st.workspaces;
    bool& open = st.view.open[p.id];
    if (!open) return note_open(w, p.id, false);
    const bool just_opened = !was_open(w, p.id);
    if (just_opened && workspace_opening(w.current, p.id) >= 0) return; // its workspace comes first (follow_opened_panels)
    place_panel(w, p.id, just_opened);
    const bool visible = begin_panel(p.title, &open, just_opened && covers_another(st, p));
    record_panel(w, p.id);
    if (visible) {
        PanelContext context{st.scenario, st.result, st.view, st.textures};
        p.draw(context);
    }
    ImGui::End();
    note_open(w, p.id, open);
    if (p.edits_scenario) settle(st);
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Frame
//-----------------------------------------------------------------------------

App::App(core::Scenario initial, TextureUploader& textures, std::string file_path)
    : state_(std::make_unique<State>(std::move(initial), textures, std::move(file_path))) {
    core::require_valid(state_->scenario);
    switch_workspace(state_->workspaces, state_->view, 0, false); // Explore, as its table row lays it out
    if (ImGui::GetCurrentContext()) register_layout_handler(state_->workspaces); // else at the first frame
    state_->view.draw_panel_content = [&st = *state_](std::string_view id, core::Scenario& s, const core::Result& r) {
        if (const PanelSpec* p = find_panel(id)) {
            PanelContext context{s, r, st.view, st.textures};
            p->draw(context);
        }
    };
    recompute(*state_, Recompute::always);
}



void App::frame() {
    State& st = *state_;
    View& v = st.view;
    v.motion = Motion();
    use_colour_maps(ColourMaps{st.settings.weights_map, st.settings.signed_map, st.settings.theme});
    take_dropped_files(st); // before the recompute: a dropped scenario or array may change the scenario
    recompute(st, Recompute::always);
    clamp_view(st);
    publish(st);
    v.can_undo = st.history.can_undo(st.scenario);
    v.can_redo = st.history.can_redo();

    if (!ImGui::FindSettingsHandler("Workspace")) register_layout_handler(st.workspaces);
    adopt_loaded_layout(st.workspaces, v);
    if (st.workspaces.start >= 0) { // the command line's workspace beats the last session's and what it opened
        v.request_workspace.clear();
        switch_workspace(st.workspaces, v, std::exchange(st.workspaces.start, -1), false);
    }
    shortcuts(st);
    menu_bar(st);
    draw_workspace_bar(st.workspaces, v);
    settle(st);     // menu choices apply before anything is drawn from the scenario
    follow_opened_panels(st);
    begin_panels(st.workspaces, v);

    // Editing panels first, then the display panels, which show this frame's edits.
    for (const PanelSpec& p : panel_table())
        if (p.edits_scenario) draw_panel(st, p);
    for (const PanelSpec& p : panel_table())
        if (!p.edits_scenario) draw_panel(st, p);
    // The modals after every panel: ImGui 1.86 asserts when a window (a panel, a tooltip) appears
    // for the first time later in the frame in which a modal first does.
    draw_shortcuts_window(&st.show_shortcuts);
    draw_about_window(&st.show_about, st.locations);
    draw_file_dialog(st.dialog, st.settings);
    draw_drop_modals(st);
    quit_modal(st);
    draw_restore_notice(st);
    settle(st); // requests made by the display panels (none change the scenario) still get done
    st.workspaces.started = true;
    // One undo step per gesture: a drag or a typing session commits when its widget lets go.
    if (!ImGui::IsAnyItemActive()) st.history.commit(st.scenario);
}

void App::notify_restored(std::string text, bool offer_default) {
    state_->restore_notice = RestoreNotice{std::move(text), offer_default};
}

bool App::select_row(int row) {
    if (row < 0 || row >= state_->scenario.n()) return false;
    state_->view.selected_row = row;
    return true;
}

bool App::open_file(const std::string& path, std::string& error) {
    try {
        open_scenario_file(*state_, path);
        return true;
    } catch (const std::exception& e) {
        error = core::error_text(e);
        return false;
    }
}

bool App::open_lesson(const std::string& id_or_file, int step, bool keep_progress, std::string& error) {
    state_->view.state<LessonView>().keep_progress = keep_progress;
    return start_lesson(state_->view, id_or_file, step, error);
}

void App::drop_files(const std::vector<std::string>& paths) {
    state_->drops.queue.insert(state_->drops.queue.end(), paths.begin(), paths.end());
}

bool App::wants_to_quit() const { return state_->quit; }
void App::request_quit() { state_->view.request_quit = true; }
bool App::has_unsaved_changes() const { return state_->scenario != state_->saved; }
core::io::Settings& App::settings() { return state_->settings; }
void App::set_file_locations(FileLocations where) { state_->locations = std::move(where); }

std::string App::window_title() const {
    const State& st = *state_;
    if (st.path.empty()) return "attnviz";
    return "attnviz — " + std::filesystem::path(st.path).filename().string() + (has_unsaved_changes() ? " •" : "");
}
const core::Scenario& App::scenario() const { return state_->scenario; }
const core::Result& App::result() const { return state_->result; }
App::State& App::state() { return *state_; }

} // namespace ui
