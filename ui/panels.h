// ui/panels.h — the panels and the small view state they share.
//
// Panels draw their window's content only. They read the Result, write edits only into the
// Scenario, and keep view-only choices (selected row and head, zoom, which dimensions the query
// arrow shows) in View. Each panel also records the geometry it laid out, so that tests can click
// real positions.
#pragma once

#include "core/attention.h"
#include "core/decoder.h"
#include "core/experiments.h"
#include "core/explain.h"
#include "ui/ui.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
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

struct HeatmapView {
    bool stretch = false;     // colours span 0 … the largest weight instead of 0 … 1
    float zoom = 1.0f;        // cells across = n / zoom
    ImVec2 pan{0, 0};         // first visible cell (fractional), in cells
    // Recorded each frame:
    ImVec2 origin{0, 0};      // screen position of cell (0, 0)'s top-left corner (may be off the map when panned)
    float cell = 0.0f;        // cell side in pixels
    ImRect area;              // the map on screen
    float label_left = 0.0f;  // row labels (clickable) span label_left … area.Min.x
    bool textured = false;    // drawn as one texture rather than one rectangle per cell
    // The texture for large n, refreshed when the weights or the head change.
    ImTextureID texture = nullptr;
    std::vector<unsigned char> band; // RGBA texels of the rows being written
    int texture_size = 0;
    long long texture_version = -1;
    int texture_head = -1;
    double texture_top = -1.0; // the weight that maps to the top colour
};

struct ArrowView {
    int dims[2] = {0, 1};     // the two query dimensions the plane shows (d_k ≠ 2: a projection)
    bool show_values = false;
    bool dragging = false;
    // Axis range in world units; frozen while dragging so the plane does not move under the mouse.
    ImVec2 world_min{-1, -1}, world_max{1, 1};
    // Recorded each frame: screen = origin + (x, -y) · scale.
    ImVec2 origin{0, 0};
    float scale = 1.0f;
    ImRect plane;
    // Convenience for tests and for grabbing: where q's tip is on screen.
    ImVec2 q_tip{0, 0};
};

struct CalculationCache {
    long long version = -1;   // result version the explanation was made from
    int row = -1;
    core::RowExplanation explanation;
    float score_w = 0.0f, scaled_w = 0.0f; // widest score and scaled-score texts, in the number font
    int head = -1;            // the focused head whose block was last opened
};

// Issue 4's panels. They start closed; the View menu opens them.
struct HeadsView {
    bool open = false;
    std::uint64_t next_seed = 1; // seeds the weights of the next added head
    // Thumbnails: per head, blocks × blocks shares of attention (row-major), refreshed per result version.
    long long version = -1;
    int blocks = 0;
    std::vector<std::vector<float>> shares;
    std::vector<ImRect> thumbnails; // recorded: each head's thumbnail on screen
};

struct DecodeView {
    bool open = false;
    std::optional<core::Decoder> decoder; // built from the computed scenario
    long long version = -1;               // result version the decoder was built for
    int steps = 0;                        // steps taken: tokens 1..steps are in the caches
    core::DecodeStep last;                // the result of step `steps` (when steps ≥ 1)
    bool playing = false;
    float timer = 0.0f;                   // seconds since the last automatic step
};

struct ScalingView {
    bool open = false;
    int d_k = 64, samples = 10000;
    std::uint64_t seed = 1;
    bool same_axis = true;
    // What was last run, so the experiment reruns only when an input changes.
    int ran_d_k = 0, ran_samples = 0;
    std::uint64_t ran_seed = 0;
    core::ScalingExperiment experiment;
};

struct OrderView {
    bool open = false;
    std::uint64_t next_seed = 1;
    std::vector<int> perm;                // the last shuffle: new token i was old token perm[i]
    // The check, redone per result version: per new row i, max |z_i − old z_perm[i]|, and the
    // rounding error allowed for "the same" (relative to the largest output entry).
    long long version = -1;
    std::vector<double> differences;
    double tolerance = 0.0;
};

// The panels' shared view state.
struct View {
    int selected_row = 0;
    int selected_head = 0;

    enum Panel { panel_controls, panel_tokens, panel_weights, panel_matrices, panel_heatmap, panel_calculation, panel_query_arrow, panel_help, panel_count };
    bool open[panel_count] = {true, true, true, true, true, true, true, false};

    // One status line for the whole app: refused input, file errors, what undo did.
    std::string status;
    bool status_is_error = false;
    double status_time = 0.0;
    void tell(std::string message, bool error);

    // Requests that panels make and the App carries out after the editing panels.
    bool request_undo = false, request_redo = false, request_reset = false;
    bool request_open = false, request_save = false, request_save_as = false, request_quit = false;
    int request_preset = -1;
    bool can_undo = false, can_redo = false; // as of the start of this frame

    long long result_version = 0; // bumps whenever the inputs change (the Result is recomputed every frame)
    HeatmapView heatmap;
    ArrowView arrow;
    CalculationCache calculation;
    RangeCache result_ranges;
    std::map<std::string, GridGeometry> grids; // by matrix name: "X", "W_Q", "Q", "A", …
    std::map<std::string, ImRect> items;       // a few controls by name, for tests: "causal", "d_model", …
    HeadsView heads;
    DecodeView decode;
    ScalingView scaling;
    OrderView order;
};

// Editing panels: they may change the scenario.
void draw_controls_panel(core::Scenario& s, View& v);
void draw_tokens_panel(core::Scenario& s, View& v);
void draw_weights_panel(core::Scenario& s, View& v);
void draw_query_arrow_panel(core::Scenario& s, const core::Result& r, View& v);
// Display panels: drawn after the edits of this frame were recomputed.
void draw_matrices_panel(const core::Scenario& s, const core::Result& r, View& v);
void draw_heatmap_panel(const core::Scenario& s, const core::Result& r, View& v, TextureUploader& textures);
void draw_calculation_panel(const core::Scenario& s, const core::Result& r, View& v);

// Issue 4: several heads, the KV cache, why √d_k, order and position.
void draw_heads_panel(core::Scenario& s, const core::Result& r, View& v);  // editing
void draw_order_panel(core::Scenario& s, const core::Result& r, View& v);  // editing
void draw_decode_panel(const core::Scenario& s, const core::Result& r, View& v);
void draw_scaling_panel(View& v);

} // namespace ui
