// ui/panels/model/attention_map.cpp — one head (or the mean of a layer's heads) of a model's attention
// weights as a zoomable map with token labels and a colour bar, and a query's top keys: in the
// viewer in place of its grid, or as panels of their own in the Model workspace (see attention.h).
//
// [SECTION] The map's texture
// [SECTION] The toolbar
// [SECTION] Labels and the colour bar
// [SECTION] The map and the top keys
// [SECTION] The panels
#include "ui/panels/model/attention.h"

#include "ui/widgets.h"
#include "ui/panels/shared/zoom_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ui {

namespace {

constexpr long long band_reads = 1 << 18; // weights read into the map per frame (about 2 ms)

//-----------------------------------------------------------------------------
// [SECTION] The map's texture
//-----------------------------------------------------------------------------

float map_top_of(const AttentionView& st) {
    if (!st.stretch) return 1.0f;
    float top = 1e-12f;
    const int heads = st.file->heads();
    for (int h = 0; h < heads; ++h) {
        const int k = st.layer * heads + h;
        if ((st.mean || h == st.head) && k < st.summarised()) top = std::max(top, st.summaries[static_cast<std::size_t>(k)].max_weight);
    }
    return top == 1e-12f ? 1.0f : top; // not summarised yet: 0 … 1
}

void read_map_row(AttentionView& st, int i, float* out) {
    if (st.mean) core::io::mean_row(*st.file, st.layer, i, out, st.scratch);
    else st.file->read_row(st.layer, st.head, i, out);
}

// Restarts the map when the head, the mean or the colours changed; then fills one band of rows.
void fill_map(AttentionView& st, TextureUploader& textures) {
    const int n = st.file->n();
    const float top = map_top_of(st);
    if (st.map_layer != st.layer || st.map_head != st.head || st.map_mean != st.mean || st.map_stretch != st.stretch || st.map_top != top) {
        if (!st.map) st.map = textures.create(n, n);
        st.map_layer = st.layer, st.map_head = st.head, st.map_mean = st.mean, st.map_stretch = st.stretch, st.map_top = top;
        st.map_rows_done = 0;
    }
    if (st.map_rows_done >= n) return;
    const long long per_row = static_cast<long long>(n) * (st.mean ? st.file->heads() : 1);
    const int rows = static_cast<int>(std::clamp<long long>(band_reads / per_row, 1, n - st.map_rows_done));
    st.band.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(n) * 4);
    st.row.resize(static_cast<std::size_t>(n));
    for (int r = 0; r < rows; ++r) {
        read_map_row(st, st.map_rows_done + r, st.row.data());
        for (int j = 0; j < n; ++j) put_texel(&st.band[(static_cast<std::size_t>(r) * static_cast<std::size_t>(n) + static_cast<std::size_t>(j)) * 4], st.row[static_cast<std::size_t>(j)], top);
    }
    textures.write_rows(st.map, st.map_rows_done, rows, st.band.data());
    st.map_rows_done += rows;
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] The toolbar
//-----------------------------------------------------------------------------

// The map's title and choices; `back` adds "◂ All heads" (when the grid is not beside the map).
void map_toolbar(AttentionView& st, bool back) {
    const core::io::AttentionFile& f = *st.file;
    if (back) {
        if (ImGui::SmallButton("◂ All heads")) st.layer = -1;
        ImGui::SameLine();
    }
    if (st.mean) ImGui::Text("layer %d, mean of %d heads", st.layer + 1, f.heads());
    else ImGui::Text("layer %d, head %d", st.layer + 1, st.head + 1);
    const float box = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemInnerSpacing.x;
    same_line_if_fits(box + ImGui::CalcTextSize("mean over heads").x);
    if (ImGui::Checkbox("mean over heads", &st.mean)) st.top.clear();
    same_line_if_fits(box + ImGui::CalcTextSize("stretch").x);
    ImGui::Checkbox("stretch", &st.stretch);
    tip("Colour from 0 to the largest weight instead of 0 to 1.");
    same_line_if_fits(ImGui::CalcTextSize("Fit").x + 2.0f * ImGui::GetStyle().FramePadding.x);
    fit_button(st);
    if (!st.mean && st.layer * f.heads() + st.head < st.summarised()) {
        const core::io::HeadSummary& s = st.summaries[static_cast<std::size_t>(st.layer * f.heads() + st.head)];
        if (s.above_max > core::io::causal_tolerance) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1, 0.45f, 0.4f, 1));
            ImGui::TextWrapped("not causal: weight above the diagonal, %.3g per query; the largest %.4g (query %s → key %s)",
                               s.above_mass, static_cast<double>(s.above_max), st.token(s.above_row).c_str(), st.token(s.above_col).c_str());
            ImGui::PopStyleColor();
        } else {
            ImGui::TextDisabled("causal: no weight above the diagonal");
        }
    }
}

//-----------------------------------------------------------------------------
// [SECTION] Labels and the colour bar
//-----------------------------------------------------------------------------

namespace {

// Text from `pos` upwards, turned a quarter left: a column's label above the map.
void add_text_upwards(ImDrawList* draw, ImVec2 pos, ImU32 colour, const char* text) {
    const int first = draw->VtxBuffer.Size;
    draw->AddText(pos, colour, text);
    for (int i = first; i < draw->VtxBuffer.Size; ++i) {
        ImDrawVert& v = draw->VtxBuffer[i];
        const ImVec2 d(v.pos.x - pos.x, v.pos.y - pos.y);
        v.pos = ImVec2(pos.x + d.y, pos.y - d.x);
    }
}

// Every `step`-th label (and the selected one) where the cells are narrower than a line of text.
int label_step(float cell) { return std::max(1, static_cast<int>(std::ceil(ImGui::GetTextLineHeight() / std::max(cell, 1e-3f)))); }

// The weights' colours from 0 (bottom) to `top`, beside the map, with three values.
void colour_bar(ImDrawList* draw, ImVec2 min, float height, float top) {
    const float w = 0.9f * em();
    constexpr int steps = 48;
    for (int k = 0; k < steps; ++k) {
        const float y0 = min.y + height * static_cast<float>(k) / steps, y1 = min.y + height * static_cast<float>(k + 1) / steps;
        draw->AddRectFilled(ImVec2(min.x, y0), ImVec2(min.x + w, y1 + 1.0f), sequential_color(1.0 - (k + 0.5) / steps));
    }
    draw->AddRect(min, ImVec2(min.x + w, min.y + height), ImGui::GetColorU32(ImGuiCol_Border));
    const float line = ImGui::GetTextLineHeight();
    for (int k = 0; k <= 2; ++k) {
        char text[24];
        std::snprintf(text, sizeof text, "%.2g", static_cast<double>(top) * (2 - k) / 2.0);
        const float y = std::clamp(min.y + height * static_cast<float>(k) / 2.0f - 0.5f * line, min.y - 0.5f * line, min.y + height - line);
        draw->AddText(ImVec2(min.x + w + 0.3f * em(), y), ImGui::GetColorU32(ImGuiCol_Text), text);
    }
}

// The map's labels: rows on the left, columns above (turned), thinned to one in `step` cells.
void axis_labels(AttentionView& st, ImDrawList* draw, ImVec2 p0, const ImRect& area, float cells) {
    const int n = st.file->n();
    const float e = em(), line = ImGui::GetTextLineHeight(), cell = st.cell;
    const int step = label_step(cell);
    const auto colour = [&](int i) { return i == st.selected_row ? selection_color() : ImGui::GetColorU32(ImGuiCol_Text); };
    draw->PushClipRect(ImVec2(p0.x, area.Min.y), ImVec2(area.Min.x, area.Max.y), true);
    const VisibleCells rows = visible_cells(st.pan.y, cells, n);
    for (int i = rows.first; i < rows.last; ++i) {
        if (i % step != 0 && i != st.selected_row) continue;
        const float y = st.origin.y + static_cast<float>(i) * cell + 0.5f * (cell - line);
        const std::string name = fit_text(st.token(i), area.Min.x - p0.x - 0.4f * e);
        draw->AddText(ImVec2(p0.x + 0.2f * e, std::clamp(y, area.Min.y, area.Max.y - line)), colour(i), name.c_str());
    }
    draw->PopClipRect();
    draw->PushClipRect(ImVec2(area.Min.x, p0.y), ImVec2(area.Max.x, area.Min.y), true);
    const VisibleCells cols = visible_cells(st.pan.x, cells, n);
    for (int j = cols.first; j < cols.last; ++j) {
        if (j % step != 0) continue;
        const float x = st.origin.x + static_cast<float>(j) * cell + 0.5f * (cell - line);
        const std::string name = fit_text(st.token(j), area.Min.y - p0.y - 0.4f * e);
        add_text_upwards(draw, ImVec2(x, area.Min.y - 0.2f * e), ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
    }
    draw->PopClipRect();
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] The map and the top keys
//-----------------------------------------------------------------------------

namespace {

float hovered_weight(AttentionView& st, int row, int col) {
    if (!st.mean) return st.file->at(st.layer, st.head, row, col);
    st.row.resize(static_cast<std::size_t>(st.file->n()));
    core::io::mean_row(*st.file, st.layer, row, st.row.data(), st.scratch);
    return st.row[static_cast<std::size_t>(col)];
}

} // namespace

// The map: labels on both axes (keys above, queries left), a colour bar on the right, hover for a
// cell's weight, a click to choose the query whose top keys are listed. `below`: room left under it.
bool map_view(AttentionView& st, TextureUploader& textures, float below) {
    const int n = st.file->n();
    const float e = em(), n_f = static_cast<float>(n);
    fill_map(st, textures);
    const float label_w = 6.0f * e, label_h = 5.0f * e, bar_w = 4.5f * e;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::floor(std::max(4.0f * e, std::min(avail.x - label_w - bar_w, avail.y - label_h - below)));
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const ImRect area(ImVec2(p0.x + label_w, p0.y + label_h), ImVec2(p0.x + label_w + side, p0.y + label_h + side));
    const MapMouse input = zoom_and_pan("map", st, n, p0, area);
    const float cells = input.cells, cell = st.cell;
    const ImVec2 mouse = ImGui::GetIO().MousePos;

    int hover_row = -1, hover_col = -1;
    if ((input.hovered || input.clicked) && area.Contains(mouse)) {
        hover_row = std::clamp(static_cast<int>((mouse.y - st.origin.y) / cell), 0, n - 1);
        hover_col = std::clamp(static_cast<int>((mouse.x - st.origin.x) / cell), 0, n - 1);
    }
    if (input.clicked && hover_row >= 0) st.selected_row = hover_row;

    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddImage(st.map, area.Min, area.Max, ImVec2(st.pan.x / n_f, st.pan.y / n_f), ImVec2((st.pan.x + cells) / n_f, (st.pan.y + cells) / n_f));
    if (st.selected_row >= 0) {
        draw->PushClipRect(area.Min, area.Max, true);
        const float y = st.origin.y + static_cast<float>(st.selected_row) * cell;
        draw->AddRect(ImVec2(area.Min.x, y), ImVec2(area.Max.x, y + std::max(cell, 2.0f)), selection_color(), 0, 0, 2.0f);
        draw->PopClipRect();
    }
    axis_labels(st, draw, p0, area, cells);
    colour_bar(draw, ImVec2(area.Max.x + 0.6f * e, area.Min.y), side, st.map_top);
    const char* keys = "keys →";
    draw->AddText(ImVec2(p0.x + 0.2f * e, p0.y), ImGui::GetColorU32(ImGuiCol_TextDisabled), keys);
    draw->AddText(ImVec2(p0.x + 0.2f * e, area.Min.y - ImGui::GetTextLineHeightWithSpacing()), ImGui::GetColorU32(ImGuiCol_TextDisabled), "queries ↓");
    if (hover_col >= 0 && !ImGui::IsItemActive()) {
        const float w = hovered_weight(st, hover_row, hover_col);
        ImGui::SetTooltip("query %s (row %d)\nkey %s (column %d)\nweight %.4f%s", st.token(hover_row).c_str(), hover_row + 1,
                          st.token(hover_col).c_str(), hover_col + 1, static_cast<double>(w),
                          hover_col > hover_row && w > core::io::causal_tolerance ? "\nabove the diagonal: a later key" : "");
    }
    ImGui::SetCursorScreenPos(ImVec2(p0.x, area.Max.y + 0.3f * e));
    if (st.map_rows_done < n) ImGui::ProgressBar(static_cast<float>(st.map_rows_done) / n_f, ImVec2(-1, 0), "drawing");
    else ImGui::Dummy(ImVec2(1, 1));
    return st.map_rows_done >= n;
}

void top_keys(AttentionView& st) {
    if (st.selected_row < 0) {
        ImGui::TextWrapped("Click a row of the map to list the keys its query attends to most. The wheel zooms, a drag pans.");
        return;
    }
    const int n = st.file->n();
    st.row.resize(static_cast<std::size_t>(n));
    read_map_row(st, st.selected_row, st.row.data());
    st.top = core::io::top_k(st.row.data(), n, AttentionView::top_count);
    ImGui::TextWrapped("query %s (row %d): its %d largest weights", st.token(st.selected_row).c_str(), st.selected_row + 1, static_cast<int>(st.top.size()));
    weight_bars(static_cast<int>(st.top.size()), 8.0f * em(), sequential_color(0.6), st.top.empty() ? 1.0 : st.top[0].second,
                [&](int k) { return st.labels[static_cast<std::size_t>(st.top[static_cast<std::size_t>(k)].first)].c_str(); },
                [&](int k) { return static_cast<double>(st.top[static_cast<std::size_t>(k)].second); }, [](int) { return false; });
}


//-----------------------------------------------------------------------------
// [SECTION] The panels
//-----------------------------------------------------------------------------

void draw_attention_panel(View& v, TextureUploader& textures) { draw_attention_viewer(v.state<AttentionView>(), textures, &v); }

void draw_attention_map_panel(View& v, TextureUploader& textures) {
    AttentionView& st = v.state<AttentionView>();
    if (st.uploader && st.uploader != &textures) st.close();
    st.uploader = &textures;
    if (!st.file) {
        ImGui::TextWrapped("No attention weights are open.");
        if (ImGui::Button("Open attention weights…")) ask_attention_file(v);
        return;
    }
    if (st.layer < 0) {
        ImGui::TextWrapped("Click a head in the grid of layers × heads to see its map here, or a layer's \"mean\".");
        return;
    }
    map_toolbar(st, false);
    if (!map_view(st, textures, 0.0f)) v.motion.moving = true;
}

void draw_attention_keys_panel(View& v) {
    AttentionView& st = v.state<AttentionView>();
    if (!st.file || st.layer < 0) {
        ImGui::TextWrapped("The keys a query attends to most: choose a head, then click a row of its map.");
        return;
    }
    top_keys(st);
}

} // namespace ui
