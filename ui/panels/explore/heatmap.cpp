// ui/panels/explore/heatmap.cpp — the attention weights A as a heatmap: hover to read, click to select a row.
//
// [SECTION] Colours and texture
// [SECTION] Toolbar
// [SECTION] Cells and labels
// [SECTION] Panel
//
// Up to 48 tokens each cell is a rectangle; beyond that the map is one texture with a texel per
// cell, refreshed only when the weights change. Both zoom (mouse wheel) and pan (drag) the same way.
#include "ui/colour_maps.h"
#include "ui/panels/explore/heatmap.h"
#include "ui/grid.h"

#include "core/explain.h"
#include "ui/panels/shared/matrix_menu.h"
#include "ui/widgets.h"
#include "ui/panels/shared/zoom_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ui {

namespace {

constexpr int max_rect_cells = 48; // tokens per side drawn as rectangles
constexpr int texture_band_texels = 65536; // texels coloured and sent to the texture at a time

//-----------------------------------------------------------------------------
// [SECTION] Colours and texture
//-----------------------------------------------------------------------------

// Whether M's entries can be negative (the linear and delta rules): then it is drawn in the diverging
// colours, centred at 0, from −top to +top.
bool is_signed(const core::Scenario& s) { return s.rule != core::AttentionRule::softmax; }

// `top` is the weight drawn in the top colour: 1, or the largest weight when stretched; the largest
// |entry| for a signed M.
ImU32 weight_color(const core::Scenario& s, const core::HeadResult& hr, int i, int j, double top) {
    if (core::is_masked(s, i, j)) return masked_color();
    return is_signed(s) ? diverging_color(hr.weights(i, j) / top) : sequential_color(hr.weights(i, j) / top);
}

void refresh_texture(HeatmapView& hm, const core::Scenario& s, const core::HeadResult& hr, int head, long long version,
                     double top, TextureUploader& textures) {
    const int n = s.n();
    const int map = static_cast<int>(colour_maps().weights);
    if (hm.texture && hm.texture_version == version && hm.texture_head == head && hm.texture_size == n && hm.texture_top == top &&
        hm.texture_map == map)
        return;
    // A new size is a new texture; the same size is rewritten in place.
    if (hm.texture && hm.texture_size != n) {
        textures.release(hm.texture);
        hm.texture = nullptr;
    }
    if (!hm.texture) {
        hm.texture = textures.create(n, n);
        hm.uploader = &textures;
    }
    // Colour and send a band of rows at a time: a few hundred kB, not n² texels at once (64 MB at n = 4096).
    const int band = std::max(1, texture_band_texels / n);
    hm.band.resize(static_cast<size_t>(std::min(band, n)) * n * 4);
    for (int first = 0; first < n; first += band) {
        const int rows = std::min(band, n - first);
        for (int i = first; i < first + rows; ++i)
            for (int j = 0; j < n; ++j) put_rgba(&hm.band[(static_cast<size_t>(i - first) * n + j) * 4], weight_color(s, hr, i, j, top));
        textures.write_rows(hm.texture, first, rows, hm.band.data());
    }
    hm.texture_size = n;
    hm.texture_version = version;
    hm.texture_head = head;
    hm.texture_top = top;
    hm.texture_map = map;
}

// The weight as text that fits `width`, or empty when none does.
std::string fitting_weight(double w, float width) {
    const std::string full = core::format_number(w);
    char two[16];
    std::snprintf(two, sizeof two, "%.2f", w);
    const std::string bare = two[0] == '0' ? std::string(two + 1) : std::string(two);
    for (const std::string& t : {full, std::string(two), bare})
        if (ImGui::CalcTextSize(t.c_str()).x <= width) return t;
    return {};
}

// The colour bar under the map: 0 … top, or −top … 0 … +top for a signed M.
void legend(const ImVec2 pos, float width, bool masked, double top, bool signed_map) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float h = 0.7f * em();
    constexpr int steps = 32;
    auto colour = [signed_map](double u) { return signed_map ? diverging_color(2.0 * u - 1.0) : sequential_color(u); };
    for (int k = 0; k < steps; ++k) {
        const float x0 = pos.x + width * static_cast<float>(k) / steps, x1 = pos.x + width * static_cast<float>(k + 1) / steps;
        draw->AddRectFilledMultiColor(ImVec2(x0, pos.y), ImVec2(x1, pos.y + h), colour(double(k) / steps),
                                      colour(double(k + 1) / steps), colour(double(k + 1) / steps), colour(double(k) / steps));
    }
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float y = pos.y + h + 0.15f * em();
    char low[16];
    std::snprintf(low, sizeof low, "%.3g", -top);
    draw->AddText(ImVec2(pos.x, y), text, signed_map ? low : "0");
    char half[32], full[16];
    if (signed_map) std::snprintf(half, sizeof half, "0");
    else std::snprintf(half, sizeof half, "weight %.3g", top / 2);
    std::snprintf(full, sizeof full, "%.3g", top);
    draw->AddText(ImVec2(pos.x + width * 0.5f - ImGui::CalcTextSize(half).x * 0.5f, y), text, half);
    draw->AddText(ImVec2(pos.x + width - ImGui::CalcTextSize(full).x, y), text, full);
    if (masked) { // a signed map's numbers fill the line: "masked" goes under them
        const char* label = "masked";
        const float x = signed_map ? pos.x + 1.1f * em() : pos.x + width * 0.25f - ImGui::CalcTextSize(label).x * 0.5f;
        const float at = signed_map ? y + ImGui::GetTextLineHeight() : y;
        draw->AddRectFilled(ImVec2(x - 1.1f * em(), at + 0.15f * em()), ImVec2(x - 0.3f * em(), at + 0.85f * em()), masked_color());
        draw->AddText(ImVec2(x, at), text, label);
    }
}

//-----------------------------------------------------------------------------
// [SECTION] Toolbar
//-----------------------------------------------------------------------------

// The title, the matrix menu, Fit and stretch; returns the weight drawn in the top colour.
double draw_toolbar(const core::Scenario& s, const core::Result& r, View& v, HeatmapView& hm) {
    const int head = v.selected_head;
    const core::HeadResult& hr = r.heads[head];
    const double largest = is_signed(s) ? std::max(hr.weights.cwiseAbs().maxCoeff(), 1e-12) : std::max(hr.weights.maxCoeff(), 1e-12);
    const char* letter = is_signed(s) ? "M" : "A";
    if (r.heads.size() > 1) ImGui::Text("%s, head %d of %d", letter, head + 1, static_cast<int>(r.heads.size()));
    else if (s.rule == core::AttentionRule::linear) ImGui::Text("M = %s, no softmax", core::softmax_argument(s).c_str());
    else if (s.rule == core::AttentionRule::delta) ImGui::Text("M of the delta rule: Z = M V");
    else ImGui::Text("A = softmax(%s)", core::softmax_argument(s).c_str());
    {
        const std::string what = s.rule == core::AttentionRule::delta    ? "M of the delta rule"
                                 : s.rule == core::AttentionRule::linear ? "M of linear attention"
                                                                         : "Attention weights A";
        const std::string title = r.heads.size() > 1 ? what + ", head " + std::to_string(head + 1) : what;
        const core::io::FigureSpec figure = core::io::heatmap_spec(s, hr.weights, title, hm.stretch);
        matrix_menu("heatmap", hr.weights, {s.tokens, s.tokens}, v, &figure);
    }
    ImGui::SameLine();
    fit_button(hm);
    ImGui::SameLine();
    ImGui::BeginDisabled(is_signed(s));
    ImGui::Checkbox("stretch", &hm.stretch);
    ImGui::EndDisabled();
    tip(is_signed(s) ? "M's entries are signed: its colours always span −largest … +largest |entry|, centred at 0."
                     : "Colour from 0 to the largest weight instead of 0 to 1: with many tokens every weight is small, "
                       "and stretching shows their differences.");
    // The reading hint only where the line has room: the map's height matters more.
    const char* hint = "rows: queries · columns: keys";
    if (same_line_if_fits(ImGui::CalcTextSize(hint).x)) ImGui::TextDisabled("%s", hint);
    return hm.stretch || is_signed(s) ? largest : 1.0;
}

//-----------------------------------------------------------------------------
// [SECTION] Cells and labels
//-----------------------------------------------------------------------------

// What one frame of the map shares: the head drawn, the visible cells and the cell under the mouse.
struct Frame {
    const core::Scenario& s;
    const core::HeadResult& hr;
    double top;              // the weight drawn in the top colour
    VisibleCells rows, cols; // in view
    int hover_row = -1, hover_col = -1; // the label column counts as the row (hover_col < 0)
    std::vector<char> hidden; // rows an open prediction keeps hidden (View::lesson)
};

// Rows an open prediction keeps hidden: one grey band each, with the reason where it fits.
void hide_rows(ImDrawList* draw, const Frame& f, const HeatmapView& hm) {
    for (int i = f.rows.first; i < f.rows.last; ++i) {
        if (!hidden_at(f.hidden, i)) continue;
        const ImVec2 a = hm.cell_min(i, f.cols.first), b = hm.cell_min(i + 1, f.cols.last);
        draw->AddRectFilled(a, b, hidden_colour());
        const ImVec2 size = ImGui::CalcTextSize(reveal_hint);
        if (size.y <= b.y - a.y && size.x <= hm.area.GetWidth())
            draw->AddText(ImVec2(hm.area.GetCenter().x - 0.5f * size.x, 0.5f * (a.y + b.y - size.y)), IM_COL32(225, 225, 225, 255), reveal_hint);
    }
}

// The cells (rectangles, or one texture beyond max_rect_cells), their weights when they are big
// enough to read, the selected row's outline and the hovered cell's.
void draw_cells(ImDrawList* draw, const Frame& f, View& v, HeatmapView& hm, TextureUploader& textures) {
    const float cell = hm.cell, e = em(), n_f = static_cast<float>(f.s.n()), cells = n_f / hm.zoom;
    draw->PushClipRect(hm.area.Min, hm.area.Max, true);
    if (hm.textured) {
        refresh_texture(hm, f.s, f.hr, v.selected_head, v.result_version, f.top, textures);
        draw->AddImage(hm.texture, hm.area.Min, hm.area.Max, ImVec2(hm.pan.x / n_f, hm.pan.y / n_f),
                       ImVec2((hm.pan.x + cells) / n_f, (hm.pan.y + cells) / n_f));
    } else {
        for (int i = f.rows.first; i < f.rows.last; ++i)
            for (int j = f.cols.first; j < f.cols.last; ++j) {
                const ImVec2 a = hm.cell_min(i, j);
                draw->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), weight_color(f.s, f.hr, i, j, f.top));
            }
    }
    {
        NumberFont mono;
        const float pad = 0.2f * e;
        if (cell - pad >= ImGui::CalcTextSize("000").x) { // three digits fit (".45" at the least); else hover shows them
            for (int i = f.rows.first; i < f.rows.last; ++i)
                for (int j = f.cols.first; j < f.cols.last; ++j) {
                    if (core::is_masked(f.s, i, j) || hidden_at(f.hidden, i)) continue;
                    const std::string text = fitting_weight(f.hr.weights(i, j), cell - pad);
                    if (text.empty()) continue;
                    const ImVec2 a = hm.cell_min(i, j);
                    const ImVec2 size = ImGui::CalcTextSize(text.c_str());
                    draw->AddText(ImVec2(a.x + (cell - size.x) * 0.5f, a.y + (cell - size.y) * 0.5f),
                                  text_color_on(weight_color(f.s, f.hr, i, j, f.top)), text.c_str());
                }
        }
    }
    hide_rows(draw, f, hm);
    const float thick = std::max(2.0f, 0.12f * e);
    if (v.selected_row >= f.rows.first && v.selected_row < f.rows.last) {
        const ImVec2 a = hm.cell_min(v.selected_row, 0);
        draw->AddRect(a, ImVec2(a.x + n_f * cell, a.y + cell), selection_color(), 0.0f, 0, thick);
    }
    if (f.hover_col >= 0) {
        const ImVec2 a = hm.cell_min(f.hover_row, f.hover_col);
        draw->AddRect(a, ImVec2(a.x + cell, a.y + cell), IM_COL32_WHITE, 0.0f, 0, 0.5f * thick);
    }
    draw->PopClipRect();
}

// Row labels (clickable) and column labels, where the cells leave room for them.
void draw_labels(ImDrawList* draw, const Frame& f, int selected_row, const HeatmapView& hm) {
    const float cell = hm.cell, e = em(), line = ImGui::GetTextLineHeight(), left = hm.label_left;
    const ImRect& map = hm.area;
    draw->PushClipRect(ImVec2(left, map.Min.y), ImVec2(map.Min.x, map.Max.y), true);
    for (int i = f.rows.first; i < f.rows.last; ++i) {
        if (cell < 0.8f * line && i != selected_row) continue;
        const ImU32 color = i == selected_row ? selection_color() : i == f.hover_row ? IM_COL32_WHITE : ImGui::GetColorU32(ImGuiCol_Text);
        // Rows thinner than a line show only the selected label, kept whole inside the map's height.
        const float y = hm.cell_min(i, 0).y + (cell - line) * 0.5f;
        draw->AddText(ImVec2(left + 0.2f * e, cell < line ? std::clamp(y, map.Min.y, map.Max.y - line) : y), color, f.s.tokens[i].c_str());
    }
    draw->PopClipRect();
    if (cell < 1.6f * e) return;
    const float label_top = map.Min.y - ImGui::GetTextLineHeightWithSpacing();
    for (int j = f.cols.first; j < f.cols.last; ++j) {
        const ImVec2 a = hm.cell_min(0, j);
        const float x0 = std::max(a.x, map.Min.x), x1 = std::min(a.x + cell, map.Max.x);
        const ImVec4 clip(x0, label_top, x1, map.Min.y);
        // A label wider than its column is cut with "…"; the tooltip names the whole token.
        const std::string label = fit_text(f.s.tokens[j], cell - 0.2f * e);
        const ImVec2 size = ImGui::CalcTextSize(label.c_str());
        draw->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(std::max(x0, a.x + (cell - size.x) * 0.5f), label_top),
                      j == f.hover_col ? IM_COL32_WHITE : ImGui::GetColorU32(ImGuiCol_Text), label.c_str(), nullptr, 0.0f, &clip);
    }
}

// The hovered cell's query, key, score and weight (or the hovered row label's token).
void hover_tooltip(const Frame& f) {
    if (f.hover_row < 0 || ImGui::IsItemActive()) return;
    const core::Scenario& s = f.s;
    const int i = f.hover_row, j = f.hover_col;
    if (j < 0) {
        ImGui::SetTooltip("%s: click to explain this row", s.tokens[i].c_str());
        return;
    }
    ImGui::BeginTooltip();
    ImGui::Text("query: %s (row %d)", s.tokens[i].c_str(), i + 1);
    ImGui::Text("key: %s (column %d)", s.tokens[j].c_str(), j + 1);
    if (hidden_at(f.hidden, i)) {
        ImGui::TextDisabled("score and weight: %s", reveal_hint);
    } else if (core::is_masked(s, i, j)) {
        ImGui::TextUnformatted(core::outside_window(s, i, j) ? "masked: this key is outside the sliding window"
                                                             : "masked: this key comes after the query");
        ImGui::TextUnformatted(is_signed(s) ? "M 0" : "score −∞, weight 0");
    } else {
        if (s.rule != core::AttentionRule::delta)
            ImGui::Text("score%s: %s", s.scale != core::ScoreScale::none || s.softcap_in_use() > 0 ? " (scaled)" : "",
                        core::format_number(f.hr.scaled(i, j)).c_str());
        ImGui::Text("%s: %s", is_signed(s) ? "M" : "weight", core::format_number(f.hr.weights(i, j)).c_str());
    }
    ImGui::TextDisabled("click to explain this row");
    ImGui::EndTooltip();
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Panel
//-----------------------------------------------------------------------------

void draw_heatmap_panel(const core::Scenario& s, const core::Result& r, View& v, TextureUploader& textures) {
    HeatmapView& hm = v.state<HeatmapView>();
    const int n = s.n();
    const float e = em();
    Frame f{s, r.heads[v.selected_head], draw_toolbar(s, r, v, hm), {}, {}, -1, -1, v.lesson.hidden_rows("A", s.n())};

    // Geometry: labels on the left and on top, the square map, the legend underneath.
    const float label_w = std::min(token_label_width(s), 6.0f * e) + 0.6f * e;
    const float top_h = ImGui::GetTextLineHeightWithSpacing();
    const float legend_h = (is_signed(s) && s.sees_only_past() ? 3.4f : 2.4f) * e; // the colour bar, its numbers ("masked" under a signed map's)
    const float hint_h = n > max_rect_cells ? ImGui::GetTextLineHeightWithSpacing() : 0.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::max(4.0f * e, std::min(avail.x - label_w, avail.y - top_h - legend_h - hint_h));
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const ImRect map(ImVec2(p0.x + label_w, p0.y + top_h), ImVec2(p0.x + label_w + side, p0.y + top_h + side));

    const MapMouse mouse = zoom_and_pan("heatmap", hm, n, p0, map);
    hm.label_left = p0.x;
    hm.textured = n > max_rect_cells;
    f.rows = visible_cells(hm.pan.y, mouse.cells, n);
    f.cols = visible_cells(hm.pan.x, mouse.cells, n);
    const ImVec2 at = ImGui::GetIO().MousePos;
    if ((mouse.hovered || mouse.clicked) && at.y >= map.Min.y && at.y < map.Max.y && at.x >= p0.x && at.x < map.Max.x) {
        f.hover_row = std::clamp(static_cast<int>((at.y - hm.origin.y) / hm.cell), 0, n - 1);
        if (at.x >= map.Min.x) f.hover_col = std::clamp(static_cast<int>((at.x - hm.origin.x) / hm.cell), 0, n - 1);
    }
    if (mouse.clicked && f.hover_row >= 0) v.selected_row = f.hover_row;
    if (mouse.clicked && f.hover_col >= 0 && v.lesson.column_answers) v.lesson.clicked_column = f.hover_col; // a prediction's answer

    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw_cells(draw, f, v, hm, textures);
    outline_highlights(v, "A", GridGeometry{hm.origin, ImVec2(hm.cell, hm.cell), hm.area}, n, n);
    draw_labels(draw, f, v.selected_row, hm);
    hover_tooltip(f);
    legend(ImVec2(map.Min.x, map.Max.y + 0.5f * e), side, s.sees_only_past(), f.top, is_signed(s));
    ImGui::SetCursorScreenPos(ImVec2(p0.x, map.Max.y + legend_h));
    if (hm.textured) ImGui::TextDisabled("%d × %d: wheel to zoom, drag to pan", n, n);
}

} // namespace ui
