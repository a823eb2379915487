// ui/app.cpp — the frame: recompute, menus, panels in edit-then-display order, undo, files.
//
// [SECTION] Recompute and keep the scenario valid
// [SECTION] Layout
// [SECTION] Menu bar and shortcuts
// [SECTION] Requests (undo, presets, files)
// [SECTION] Open / Save as modal
// [SECTION] Help
// [SECTION] Frame
#include "ui/app_state.h"

#include "core/presets.h"
#include "core/scenario_io.h"
#include "ui/widgets.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>

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
    for (int& d : v.arrow.dims) d = std::clamp(d, 0, s.d_k() - 1);
}

//-----------------------------------------------------------------------------
// [SECTION] Layout
//-----------------------------------------------------------------------------

// Default places, computed from the display size: three columns, the editors on the left, the
// matrices and the calculation in the middle, the heatmap and the query arrow on the right.
ImRect default_rect(View::Panel p, ImVec2 display, float top) {
    const float e = em();
    const float W = display.x, H = display.y - top;
    const float c1 = std::max(22.0f * e, std::floor(W * 0.25f));
    const float c3 = std::max(22.0f * e, std::floor(W * 0.33f));
    const float c2 = W - c1 - c3;
    const float x1 = 0, x2 = c1, x3 = c1 + c2;
    const float controls_h = std::min(std::floor(H * 0.30f), 13.0f * e);
    const float tokens_h = std::floor((H - controls_h) * 0.45f);
    const float matrices_h = std::floor(H * 0.45f);
    const float heatmap_h = std::floor(H * 0.45f);
    auto rect = [&](float x, float y, float w, float h) { return ImRect(x, top + y, x + w, top + y + h); };
    switch (p) {
    case View::panel_controls: return rect(x1, 0, c1, controls_h);
    case View::panel_tokens: return rect(x1, controls_h, c1, tokens_h);
    case View::panel_weights: return rect(x1, controls_h + tokens_h, c1, H - controls_h - tokens_h);
    case View::panel_matrices: return rect(x2, 0, c2, matrices_h);
    case View::panel_calculation: return rect(x2, matrices_h, c2, H - matrices_h);
    case View::panel_heatmap: return rect(x3, 0, c3, heatmap_h);
    case View::panel_query_arrow: return rect(x3, heatmap_h, c3, H - heatmap_h);
    case View::panel_help:
    case View::panel_count: break;
    }
    const ImVec2 size(std::min(40.0f * e, W * 0.8f), std::min(28.0f * e, H * 0.8f));
    return rect((W - size.x) * 0.5f, (H - size.y) * 0.5f, size.x, size.y);
}

void place(App::State& st, View::Panel p) {
    // The menu bar's height is taken from the font: the viewport's work area only shrinks to make
    // room for it from the second frame on, after the panels were first placed.
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    const ImRect r = default_rect(p, vp->Size, ImGui::GetFrameHeight());
    const ImGuiCond cond = st.relayout ? ImGuiCond_Always : ImGuiCond_FirstUseEver;
    ImGui::SetNextWindowPos(ImVec2(vp->Pos.x + r.Min.x, vp->Pos.y + r.Min.y), cond);
    ImGui::SetNextWindowSize(r.GetSize(), cond);
}

const char* panel_title(View::Panel p) {
    switch (p) {
    case View::panel_controls: return "Controls";
    case View::panel_tokens: return "Tokens & embeddings";
    case View::panel_weights: return "Weights";
    case View::panel_matrices: return "Matrices";
    case View::panel_heatmap: return "Attention heatmap";
    case View::panel_calculation: return "Calculation";
    case View::panel_query_arrow: return "Query arrow";
    case View::panel_help: return "Help";
    case View::panel_count: break;
    }
    return "";
}

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
bool begin_panel(const char* title, bool* open, bool covers_another = false) {
    ImGui::SetNextWindowBgAlpha(covers_another || overlaps_another_window(title) ? 1.0f : 0.0f);
    return ImGui::Begin(title, open);
}

//-----------------------------------------------------------------------------
// [SECTION] Menu bar and shortcuts
//-----------------------------------------------------------------------------

// Letters beyond ImGuiKey_A/C/V/X/Y/Z are read as backend key codes: the GLFW backend indexes
// io.KeysDown by GLFW_KEY_*, which are the upper-case ASCII codes.
bool ctrl_pressed(int key) { return ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed(key, false); }

void shortcuts(App::State& st) {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput) return; // a text box is active: Ctrl+Z there is its own undo
    View& v = st.view;
    if (ctrl_pressed(ImGui::GetKeyIndex(ImGuiKey_Z))) (io.KeyShift ? v.request_redo : v.request_undo) = true;
    if (ctrl_pressed(ImGui::GetKeyIndex(ImGuiKey_Y))) v.request_redo = true;
    if (ctrl_pressed('O')) v.request_open = true;
    if (ctrl_pressed('S')) (io.KeyShift ? v.request_save_as : v.request_save) = true;
    if (ctrl_pressed('Q')) v.request_quit = true;
}

void menu_bar(App::State& st) {
    View& v = st.view;
    if (!ImGui::BeginMainMenuBar()) return;
    if (ImGui::BeginMenu("File")) {
        if (ImGui::MenuItem("Open…", "Ctrl+O")) v.request_open = true;
        if (ImGui::MenuItem("Save", "Ctrl+S")) v.request_save = true;
        if (ImGui::MenuItem("Save as…", "Ctrl+Shift+S")) v.request_save_as = true;
        ImGui::Separator();
        if (ImGui::MenuItem("Quit", "Ctrl+Q")) v.request_quit = true;
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Edit")) {
        if (ImGui::MenuItem("Undo", "Ctrl+Z", false, v.can_undo)) v.request_undo = true;
        if (ImGui::MenuItem("Redo", "Ctrl+Shift+Z", false, v.can_redo)) v.request_redo = true;
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
        for (int p = 0; p < View::panel_help; ++p) ImGui::MenuItem(panel_title(static_cast<View::Panel>(p)), nullptr, &v.open[p]);
        ImGui::Separator();
        ImGui::MenuItem("Heads", nullptr, &v.heads.open);
        tip("Every head's weights side by side; add and remove heads; the concatenation, W_O and the output.");
        ImGui::MenuItem("Decode with a KV cache", nullptr, &v.decode.open);
        tip("Generate one token at a time and watch the key and value caches grow.");
        ImGui::MenuItem("Why divide by √d_k", nullptr, &v.scaling.open);
        tip("Random q and k: the variance of q·k with and without the division, and what it does to softmax.");
        ImGui::MenuItem("Order and position", nullptr, &v.order.open);
        tip("Shuffle the tokens: without positions the outputs shuffle the same way.");
        ImGui::Separator();
        if (ImGui::MenuItem("Reset layout")) {
            st.relayout = true;
            std::fill(std::begin(v.open), std::end(v.open) - 1, true);
        }
        ImGui::EndMenu();
    }
    if (ImGui::BeginMenu("Help")) {
        ImGui::MenuItem("Quick guide", nullptr, &v.open[View::panel_help]);
        ImGui::EndMenu();
    }
    // The status line: refusals and file errors stay readable for a while, then fade out.
    if (!v.status.empty() && ImGui::GetTime() - v.status_time < 12.0) {
        ImGui::SameLine(0, 2.0f * em());
        ImGui::PushStyleColor(ImGuiCol_Text, v.status_is_error ? ImVec4(1.0f, 0.42f, 0.38f, 1.0f) : ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        ImGui::TextUnformatted(v.status.c_str());
        ImGui::PopStyleColor();
    }
    ImGui::EndMainMenuBar();
}

//-----------------------------------------------------------------------------
// [SECTION] Requests (undo, presets, files)
//-----------------------------------------------------------------------------

void open_dialog(App::State& st, FileDialog::Mode mode) {
    st.dialog.mode = mode;
    st.dialog.path = st.path;
    st.dialog.error.clear();
    st.dialog.focus = true;
}

void save_to(App::State& st, const std::string& path) {
    core::save_scenario_file(path, st.scenario); // throws ScenarioError; atomic
    st.path = path;
    st.view.tell("saved " + path, false);
}

void carry_out_requests(App::State& st) {
    View& v = st.view;
    if (v.request_undo) v.tell(st.history.undo(st.scenario) ? "undone" : "nothing to undo", false);
    if (v.request_redo) v.tell(st.history.redo(st.scenario) ? "redone" : "nothing to redo", false);
    if (v.request_reset) {
        st.scenario = st.initial;
        v.tell("reset to the starting scenario", false);
    }
    if (v.request_preset >= 0 && v.request_preset < static_cast<int>(core::presets().size())) {
        const core::PresetInfo& p = core::presets()[v.request_preset];
        st.scenario = p.make();
        v.tell(std::string("preset: ") + p.name, false);
    }
    if (v.request_open) open_dialog(st, FileDialog::Mode::open);
    if (v.request_save_as || (v.request_save && st.path.empty())) open_dialog(st, FileDialog::Mode::save_as);
    else if (v.request_save) {
        try {
            save_to(st, st.path);
        } catch (const std::exception& e) {
            v.tell(e.what(), true);
        }
    }
    if (v.request_quit) st.quit = true;
    v.request_undo = v.request_redo = v.request_reset = v.request_open = v.request_save = v.request_save_as = v.request_quit = false;
    v.request_preset = -1;
}

//-----------------------------------------------------------------------------
// [SECTION] Open / Save as modal
//-----------------------------------------------------------------------------

void file_modal(App::State& st) {
    FileDialog& d = st.dialog;
    const bool opening = d.mode == FileDialog::Mode::open;
    const char* title = opening ? "Open scenario" : "Save scenario as";
    if (d.mode != FileDialog::Mode::none && !ImGui::IsPopupOpen(title)) ImGui::OpenPopup(title);
    ImGui::SetNextWindowSize(ImVec2(36.0f * em(), 0.0f));
    if (!ImGui::BeginPopupModal(title, nullptr, ImGuiWindowFlags_NoSavedSettings)) return;
    ImGui::TextWrapped(opening ? "Path of a scenario file (the JSON format of attnviz --dump's input):"
                               : "Path to write the scenario to (written to a temporary file, then renamed):");
    if (d.focus) {
        ImGui::SetKeyboardFocusHere();
        d.focus = false;
    }
    ImGui::SetNextItemWidth(-FLT_MIN);
    const bool entered = ImGui::InputText("##path", &d.path, ImGuiInputTextFlags_EnterReturnsTrue);
    tip("A file path, absolute or relative to the folder attnviz was started in");
    if (!d.error.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.42f, 0.38f, 1.0f));
        ImGui::TextWrapped("%s", d.error.c_str());
        ImGui::PopStyleColor();
        ImGui::TextDisabled("The current scenario is unchanged.");
    }
    const bool go = ImGui::Button(opening ? "Open" : "Save") || entered;
    tip(opening ? "Read the file; on any error nothing changes" : "Write the file");
    ImGui::SameLine();
    const bool cancel = ImGui::Button("Cancel") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false);
    tip("Close without opening or saving");
    if (go) {
        try {
            if (opening) {
                core::Scenario loaded = core::load_scenario_file(d.path); // fully validated before anything changes
                st.scenario = std::move(loaded);
                st.path = d.path;
                st.view.tell("opened " + d.path, false);
            } else {
                save_to(st, d.path);
            }
            d.mode = FileDialog::Mode::none;
            ImGui::CloseCurrentPopup();
        } catch (const std::exception& e) {
            d.error = e.what();
            d.focus = true;
            st.view.tell(d.error, true);
        }
    } else if (cancel) {
        d.mode = FileDialog::Mode::none;
        ImGui::CloseCurrentPopup();
    }
    ImGui::EndPopup();
}

//-----------------------------------------------------------------------------
// [SECTION] Help
//-----------------------------------------------------------------------------

void help_window(App::State& st) {
    if (!st.view.open[View::panel_help]) return;
    place(st, View::panel_help);
    if (begin_panel(panel_title(View::panel_help), &st.view.open[View::panel_help])) {
        ImGui::TextWrapped("Attention(Q, K, V) = softmax(QKᵀ / √d_k) · V, with Q = X·W_Q, K = X·W_K, V = X·W_V.");
        ImGui::Spacing();
        ImGui::BulletText("Edit a token's embedding or a weight: drag a cell, or double-click it and type.");
        ImGui::BulletText("Every matrix, the heatmap and the calculation follow in the same frame.");
        ImGui::BulletText("Click a heatmap row (or its label) to read that token's calculation.");
        ImGui::BulletText("Drag the tip of q in the query arrow panel to steer one query.");
        ImGui::BulletText("Heatmap: mouse wheel zooms, dragging pans.");
        ImGui::BulletText("Ctrl+Z undoes, Ctrl+Shift+Z redoes; one drag is one step.");
        ImGui::Spacing();
        ImGui::TextDisabled("attnviz: scaled dot-product attention, made visible.");
    }
    ImGui::End();
}

// After anything that may have edited the scenario: carry out what was asked, recompute, and keep
// the selection inside the (possibly smaller) scenario.
void settle(App::State& st) {
    carry_out_requests(st);
    recompute(st, Recompute::if_changed);
    clamp_view(st);
}

// Begin() for a panel at its default place; false when it is hidden or collapsed.
template <class Draw>
void panel(App::State& st, View::Panel p, Draw&& draw) {
    if (!st.view.open[p]) return;
    place(st, p);
    if (begin_panel(panel_title(p), &st.view.open[p])) draw();
    ImGui::End();
}

// Issue 4's panels start closed. Each opens exactly over the issue-3 panel it is least needed
// with (`slot`), so it covers one panel instead of overlapping several.
template <class Draw>
void cover_panel(App::State& st, const char* title, bool& open, View::Panel slot, Draw&& draw) {
    if (!open) return;
    place(st, slot);
    if (begin_panel(title, &open, true)) draw();
    ImGui::End();
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Frame
//-----------------------------------------------------------------------------

App::App(core::Scenario initial, TextureUploader& textures, std::string file_path)
    : state_(std::make_unique<State>(std::move(initial), textures, std::move(file_path))) {
    core::require_valid(state_->scenario);
    recompute(*state_, Recompute::always);
}

App::~App() {
    if (state_->view.heatmap.texture) state_->textures.release(state_->view.heatmap.texture);
}

void App::frame() {
    State& st = *state_;
    View& v = st.view;
    recompute(st, Recompute::always);
    clamp_view(st);
    v.can_undo = st.history.can_undo(st.scenario);
    v.can_redo = st.history.can_redo();

    shortcuts(st);
    menu_bar(st);
    settle(st);     // menu choices apply before anything is drawn from the scenario

    // Editing panels first, each followed by a recompute if it changed the scenario, so that no
    // panel ever reads a Result of another shape than the scenario (a token added, d_k changed).
    // The display panels after them show this frame's edits.
    panel(st, View::panel_controls, [&] { draw_controls_panel(st.scenario, v); });
    settle(st);
    panel(st, View::panel_tokens, [&] { draw_tokens_panel(st.scenario, v); });
    settle(st);
    panel(st, View::panel_weights, [&] { draw_weights_panel(st.scenario, v); });
    settle(st);
    panel(st, View::panel_query_arrow, [&] { draw_query_arrow_panel(st.scenario, st.result, v); });
    settle(st);
    cover_panel(st, "Heads", v.heads.open, View::panel_query_arrow, [&] { draw_heads_panel(st.scenario, st.result, v); });
    settle(st);
    cover_panel(st, "Order and position", v.order.open, View::panel_weights, [&] { draw_order_panel(st.scenario, st.result, v); });
    settle(st);
    panel(st, View::panel_matrices, [&] { draw_matrices_panel(st.scenario, st.result, v); });
    panel(st, View::panel_heatmap, [&] { draw_heatmap_panel(st.scenario, st.result, v, st.textures); });
    panel(st, View::panel_calculation, [&] { draw_calculation_panel(st.scenario, st.result, v); });
    cover_panel(st, "Decode with a KV cache", v.decode.open, View::panel_matrices, [&] { draw_decode_panel(st.scenario, st.result, v); });
    cover_panel(st, "Why divide by √d_k", v.scaling.open, View::panel_calculation, [&] { draw_scaling_panel(v); });
    help_window(st);
    // The modals after every panel: ImGui 1.86 asserts when a window (a panel, a tooltip) appears
    // for the first time later in the frame in which a modal first does.
    file_modal(st);
    draw_restore_notice(st);
    settle(st); // requests made by the display panels (none change the scenario) still get done
    st.relayout = false;
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

bool App::wants_to_quit() const { return state_->quit; }
const core::Scenario& App::scenario() const { return state_->scenario; }
const core::Result& App::result() const { return state_->result; }
App::State& App::state() { return *state_; }

} // namespace ui
