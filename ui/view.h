// ui/view.h — what every panel shares: the selection, the status line, requests to the App, the
// open panels, and each panel's own state (kept here by type, declared in the panel's header).
//
// Panels draw their window's content only. They read the Result, change the scenario only through
// core::edits, and keep view-only choices in their own state struct. Each panel also records the
// geometry it laid out (grids, items), so that tests can click real positions.
#pragma once

#include "core/attention.h"
#include "core/learn/session.h"
#include "ui/file_request.h"
#include "ui/frame_policy.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <typeindex>
#include <vector>

namespace ui {

// Where a grid of cells ended up on screen (see ui/grid.h).
struct GridGeometry {
    ImVec2 cell_origin; // screen position of cell (0, 0)'s top-left corner, scrolling included
    ImVec2 cell_size;
    ImRect visible;     // the part of the screen the cells are drawn in
};

// What a number cell's width depends on: the largest finite |entry| and whether every finite entry is whole.
struct NumberRange {
    double max_abs = 0.0;
    bool all_integers = true;
};

// The ranges of the result matrices on screen, found once per result version: scanning the three
// n × n matrices every frame would cost more than a millisecond at n = 1024.
struct RangeCache {
    long long version = -1;
    std::map<const core::Matrix*, NumberRange> ranges;
};

// Each panel's own state, one object per type, made on first use and kept as long as the App.
// A state that owns a resource (a texture, a worker thread) releases it in its destructor.
class PanelStates {
public:
    template <class T>
    T& get() {
        std::shared_ptr<void>& slot = states_[std::type_index(typeid(T))];
        if (!slot) slot = std::make_shared<T>();
        return *static_cast<T*>(slot.get());
    }

private:
    std::map<std::type_index, std::shared_ptr<void>> states_;
};

// What an open lesson asks of the other panels, published by the Lesson panel in every frame (see
// publishers() in ui/panel_table.h) and read by the display panels; nothing else of the lesson is theirs.
struct LessonOverlay {
    // What is hidden until the open prediction is committed: rows of matrices, sizes by name, the
    // decoder's counts. Empty without a lesson or a prediction.
    core::learn::Secret secret;
    // Matrices, rows and cells to outline, wherever a panel shows them (see outline_highlights).
    std::vector<core::learn::MatrixPlace> highlights;
    // A click on a heatmap column answers the open prediction: the heatmap then records the column.
    bool column_answers = false;
    int clicked_column = -1; // until the Lesson panel takes it

    // Whether `row` of `matrix` (X Q K V scores scaled A Z; -1: any row) decides the open prediction.
    bool hides(const std::string& matrix, int row) const { return secret.hides(matrix, row); }
    // hides() for rows 0 … n - 1, 0 or 1.
    std::vector<char> hidden_rows(const std::string& matrix, int n) const {
        std::vector<char> out(static_cast<size_t>(n), 0);
        if (!secret.places.empty())
            for (int i = 0; i < n; ++i) out[static_cast<size_t>(i)] = secret.hides(matrix, i) ? 1 : 0;
        return out;
    }
};

// Row `row` of LessonOverlay::hidden_rows (false beyond it: a table drawn from a Result of another size).
inline bool hidden_at(const std::vector<char>& hidden, int row) { return row >= 0 && static_cast<size_t>(row) < hidden.size() && hidden[static_cast<size_t>(row)]; }
// The words shown where hidden numbers would be.
inline constexpr const char* reveal_hint = "commit your prediction to reveal";

// The panels' shared view state.
struct View {
    int selected_row = 0;  // the query row shown in the calculation and highlighted everywhere
    int selected_head = 0; // the focused head

    // Which panels are open, by PanelSpec::id (see ui/panel_table.h).
    std::map<std::string, bool, std::less<>> open;

    // One status line for the whole app: refused input, file errors, what undo did.
    std::string status;
    bool status_is_error = false;
    double status_time = 0.0;
    void tell(std::string message, bool error);

    // Requests that panels make and the App carries out after the editing panels.
    bool request_undo = false, request_redo = false, request_reset = false;
    bool request_open = false, request_save = false, request_save_as = false, request_quit = false;
    int request_preset = -1;
    std::optional<FileRequest> file_request; // the file dialog, for any Open, Save, Import or Export
    std::vector<std::string> bring_to_front; // panels (by id) to bring to the front
    // A workspace id (ui/workspace_table.h) to switch to before the next panels, with a way back:
    // a lesson opened, a model's attention opened, a head of the Train panel opened in Explore.
    std::string request_workspace;
    // A lesson step asks the Train panel to train its repeat run (resumed, or made when the run shown
    // is of another task); kept until the Train panel takes it.
    bool request_training = false;
    bool can_undo = false, can_redo = false; // as of the start of this frame

    long long result_version = 0; // bumps whenever the inputs change (the Result is recomputed every frame)
    RangeCache result_ranges;
    std::map<std::string, GridGeometry> grids; // by matrix name: "X", "W_Q", "Q", "A", …
    std::map<std::string, ImRect> items;       // a few controls by name, for tests: "causal", "d_model", …

    // What changes on screen by itself (ui/frame_policy.h): panels add to it as they draw, so the
    // window keeps drawing while it moves and rests otherwise. Cleared at each frame's start.
    Motion motion;

    LessonOverlay lesson; // what the open lesson hides and outlines (the Lesson panel publishes it)
    // What panels measured beyond the scenario for the lesson to read (the Train panel's accuracy
    // and head scores, core::learn::fact_names) in ImGui frame `facts_frame`; the Lesson panel reads
    // them while they are at most a frame old.
    core::learn::Facts facts;
    int facts_frame = -1;
    // Draws another panel's content inside the current window, by id (the App provides it): the
    // Lesson panel shows the Controls under a step that opens them.
    std::function<void(std::string_view id, core::Scenario&, const core::Result&)> draw_panel_content;

    // This panel's own state: e.g. v.state<HeatmapView>() (declared in ui/panels/explore/heatmap.h).
    template <class T>
    T& state() { return states.get<T>(); }
    PanelStates states;
};

} // namespace ui
