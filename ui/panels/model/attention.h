// ui/panels/model/attention.h — a real model's attention weights (core/io/attention_file.h): a grid of
// layer × head thumbnails that fills in while a worker thread reads the file, and one head (or the
// mean of a layer's heads) as a zoomable map with token labels, hover, and the top keys of a query.
#pragma once

#include "core/io/attention_file.h"
#include "core/worker.h"
#include "ui/panels/shared/texture_atlas.h"
#include "ui/ui.h"
#include "ui/view.h"
#include "ui/panels/shared/zoom_map.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace ui {

struct AttentionView : ZoomMap { // the map of one head, zoomed by the wheel, panned by dragging
    AttentionView() = default;
    AttentionView(const AttentionView&) = delete;
    AttentionView& operator=(const AttentionView&) = delete;
    ~AttentionView() { close(); }

    // Opens the weights at `path`, the labels from `labels_path` when it is not empty (else those in
    // the file, else 1, 2, 3, …), and starts the thumbnails. False, with `error` set, on a bad file;
    // what was open stays open then.
    bool open(const std::string& path, const std::string& labels_path);
    // Stops the worker, releases the textures, forgets the file.
    void close();
    // Thumbnails made so far, and how many there are in all.
    int summarised() const { return done.load(std::memory_order_acquire); }
    // Thumbnails still to be read or put in the atlas: the grid fills in over the next frames.
    bool thumbnails_pending() const { return uploaded < total(); }
    int total() const { return file ? file->layers() * file->heads() : 0; }
    // Heads with a weight above the diagonal, among those summarised.
    int non_causal_heads() const;

    std::unique_ptr<core::io::AttentionFile> file;
    std::vector<std::string> labels; // n names
    std::string error;               // the last open() that failed
    std::string labels_input;        // the open prompt's labels file

    // The worker fills summaries[k] (k = layer * heads + head), then raises `done` past k.
    std::vector<core::io::HeadSummary> summaries;
    std::atomic<int> done{0};
    core::Worker<bool> worker;
    TextureUploader* uploader = nullptr; // the one that made the textures below
    TextureAtlas atlas;                  // every thumbnail: layers × heads cells of thumb_side texels
    int thumb_side = 0;                  // texels of one thumbnail
    int uploaded = 0;                    // thumbnails in the atlas

    // Which map: the grid (layer < 0), one head, or a layer's mean over heads.
    int layer = -1, head = 0;
    bool mean = false;
    bool stretch = true;   // colours span 0 … the largest weight (attention over many keys is small)
    int selected_row = -1; // the query whose top keys are listed
    static constexpr int top_count = 10;
    std::vector<std::pair<int, float>> top; // the selected row's top keys, largest first

    // The map's texture, filled a band of rows per frame so that no frame waits for n² cells.
    ImTextureID map = nullptr;
    int map_rows_done = 0, map_layer = -1, map_head = -1;
    bool map_mean = false, map_stretch = false;
    float map_top = 1.0f;
    std::vector<unsigned char> band;
    std::vector<float> row, scratch;

    const std::string& token(int i) const { return labels[static_cast<std::size_t>(i)]; }

    // Recorded each frame, for the tests: where thumbnail (layer, head) k is.
    std::vector<ImRect> thumb_rects;
};

// Draws the viewer into the current window: the grid, and a head's map and top keys in its place
// unless the map has its own panel open. With `v`, the open prompt asks for files through the
// file dialog (View::file_request).
void draw_attention_viewer(AttentionView& st, TextureUploader& textures, View* v = nullptr);
// The panels, each on v.state<AttentionView>(): the viewer; and the Model workspace's pieces, the
// chosen head's map (labels on both axes, a colour bar, hover) and the chosen query's top keys,
// with the viewer's grid beside them.
void draw_attention_panel(View& v, TextureUploader& textures);
void draw_attention_map_panel(View& v, TextureUploader& textures);
void draw_attention_keys_panel(View& v);
// File ▸ Open attention weights…: opens the panel and asks for the file.
void ask_attention_file(View& v);

// Between the viewer (attention.cpp) and the map (attention_map.cpp):
// RGBA of weight w on colours from 0 to `top` (viridis; NaN, a masked cell, grey).
void put_texel(unsigned char* rgba, float w, float top);
// The map's title and choices; `back` adds "◂ All heads" (when the grid is not beside the map).
void map_toolbar(AttentionView& st, bool back);
// The map, its labels, colour bar and hover; `below`: room to leave under it. False while bands
// of its rows are still to be drawn (in the frames after).
bool map_view(AttentionView& st, TextureUploader& textures, float below);
// The selected query's largest weights, or how to select one.
void top_keys(AttentionView& st);

} // namespace ui
