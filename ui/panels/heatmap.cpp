// ui/panels/heatmap.cpp — the attention weights A as a heatmap: hover to read, click to select a row.
//
// [SECTION] Colours and texture
// [SECTION] Panel
//
// Up to 48 tokens each cell is a rectangle; beyond that the map is one texture with a texel per
// cell, refreshed only when the weights change. Both zoom (mouse wheel) and pan (drag) the same way.
#include "ui/colour_maps.h"
#include "ui/panels/heatmap.h"

#include "core/explain.h"
#include "ui/grid.h"
#include "ui/matrix_menu.h"
#include "ui/widgets.h"

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

// `top` is the weight drawn in the top colour: 1, or the largest weight when stretched.
ImU32 weight_color(const core::Scenario& s, const core::HeadResult& hr, int i, int j, double top) {
    return core::is_masked(s, i, j) ? masked_color() : sequential_color(hr.weights(i, j) / top);
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
            for (int j = 0; j < n; ++j) {
                const ImU32 c = weight_color(s, hr, i, j, top); // ImU32 is ABGR: bytes R, G, B, A in memory order
                unsigned char* p = &hm.band[(static_cast<size_t>(i - first) * n + j) * 4];
                p[0] = static_cast<unsigned char>(c >> IM_COL32_R_SHIFT);
                p[1] = static_cast<unsigned char>(c >> IM_COL32_G_SHIFT);
                p[2] = static_cast<unsigned char>(c >> IM_COL32_B_SHIFT);
                p[3] = 255;
            }
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

void legend(const ImVec2 pos, float width, bool masked, double top) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float h = 0.7f * em();
    constexpr int steps = 32;
    for (int k = 0; k < steps; ++k) {
        const float x0 = pos.x + width * static_cast<float>(k) / steps, x1 = pos.x + width * static_cast<float>(k + 1) / steps;
        draw->AddRectFilledMultiColor(ImVec2(x0, pos.y), ImVec2(x1, pos.y + h), sequential_color(double(k) / steps),
                                      sequential_color(double(k + 1) / steps), sequential_color(double(k + 1) / steps),
                                      sequential_color(double(k) / steps));
    }
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const float y = pos.y + h + 0.15f * em();
    draw->AddText(ImVec2(pos.x, y), text, "0");
    char half[32], full[16];
    std::snprintf(half, sizeof half, "weight %.3g", top / 2);
    std::snprintf(full, sizeof full, "%.3g", top);
    draw->AddText(ImVec2(pos.x + width * 0.5f - ImGui::CalcTextSize(half).x * 0.5f, y), text, half);
    draw->AddText(ImVec2(pos.x + width - ImGui::CalcTextSize(full).x, y), text, full);
    if (masked) {
        const char* label = "masked";
        const float x = pos.x + width * 0.25f - ImGui::CalcTextSize(label).x * 0.5f;
        draw->AddRectFilled(ImVec2(x - 1.1f * em(), y + 0.15f * em()), ImVec2(x - 0.3f * em(), y + 0.85f * em()), masked_color());
        draw->AddText(ImVec2(x, y), text, label);
    }
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Panel
//-----------------------------------------------------------------------------

void draw_heatmap_panel(const core::Scenario& s, const core::Result& r, View& v, TextureUploader& textures) {
    HeatmapView& hm = v.state<HeatmapView>();
    const int n = s.n();
    const int head = v.selected_head;
    const core::HeadResult& hr = r.heads[head];
    const ImGuiIO& io = ImGui::GetIO();
    const float e = em();

    if (r.heads.size() > 1) ImGui::Text("A, head %d of %d", head + 1, static_cast<int>(r.heads.size()));
    else ImGui::TextUnformatted("A = softmax(QKᵀ / √d_k)");
    {
        const double figure_top = hm.stretch ? std::max(hr.weights.maxCoeff(), 1e-12) : 1.0;
        const std::string title = r.heads.size() > 1 ? "Attention weights A, head " + std::to_string(head + 1) : "Attention weights A";
        const core::io::FigureSpec figure{title, s.tokens, s.causal, figure_top};
        matrix_menu("heatmap", hr.weights, {s.tokens, s.tokens}, v, &figure);
    }
    ImGui::SameLine();
    ImGui::TextDisabled("rows: queries · columns: keys");
    // Always there (disabled when not zoomed), so the map does not shift when zooming starts.
    ImGui::SameLine();
    ImGui::BeginDisabled(hm.zoom == 1.0f);
    if (ImGui::SmallButton("Fit")) hm.zoom = 1.0f, hm.pan = ImVec2(0, 0);
    ImGui::EndDisabled();
    tip("Zoom with the mouse wheel, pan by dragging; this shows the whole map again.");
    ImGui::SameLine();
    ImGui::Checkbox("stretch", &hm.stretch);
    tip("Colour from 0 to the largest weight instead of 0 to 1: with many tokens every weight is small, "
        "and stretching shows their differences.");
    const double top = hm.stretch ? std::max(hr.weights.maxCoeff(), 1e-12) : 1.0;

    // Geometry: labels on the left and on top, the square map, the legend underneath.
    const float label_w = std::min(token_label_width(s), 6.0f * e) + 0.6f * e;
    const float top_h = ImGui::GetTextLineHeightWithSpacing();
    const float legend_h = 2.4f * e; // the colour bar and its numbers
    const float hint_h = n > max_rect_cells ? ImGui::GetTextLineHeightWithSpacing() : 0.0f;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::max(4.0f * e, std::min(avail.x - label_w, avail.y - top_h - legend_h - hint_h));
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const ImRect map(ImVec2(p0.x + label_w, p0.y + top_h), ImVec2(p0.x + label_w + side, p0.y + top_h + side));

    // A release without a drag is a click; a drag pans.
    const bool released = ImGui::InvisibleButton("heatmap", ImVec2(label_w + side, top_h + side));
    ImGui::SetItemUsingMouseWheel();
    const bool hovered = ImGui::IsItemHovered();
    const bool clicked = released && io.MouseDragMaxDistanceSqr[0] < io.MouseDragThreshold * io.MouseDragThreshold;
    const ImVec2 mouse = io.MousePos;

    // Zoom about the mouse, pan by dragging; the view never leaves the matrix.
    const float n_f = static_cast<float>(n);
    float cells = n_f / hm.zoom;
    float cell = side / cells;
    if (hovered && io.MouseWheel != 0.0f && map.Contains(mouse)) {
        const ImVec2 anchor(hm.pan.x + (mouse.x - map.Min.x) / cell, hm.pan.y + (mouse.y - map.Min.y) / cell);
        hm.zoom = std::clamp(hm.zoom * std::pow(1.25f, io.MouseWheel), 1.0f, std::max(1.0f, n_f / 2.0f));
        cells = n_f / hm.zoom;
        cell = side / cells;
        hm.pan = ImVec2(anchor.x - (mouse.x - map.Min.x) / cell, anchor.y - (mouse.y - map.Min.y) / cell);
    }
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left))
        hm.pan = ImVec2(hm.pan.x - io.MouseDelta.x / cell, hm.pan.y - io.MouseDelta.y / cell);
    hm.pan.x = std::clamp(hm.pan.x, 0.0f, n_f - cells);
    hm.pan.y = std::clamp(hm.pan.y, 0.0f, n_f - cells);

    hm.cell = cell;
    hm.origin = ImVec2(map.Min.x - hm.pan.x * cell, map.Min.y - hm.pan.y * cell);
    hm.area = map;
    hm.label_left = p0.x;
    hm.textured = n > max_rect_cells;
    auto cell_min = [&](int i, int j) { return ImVec2(hm.origin.x + static_cast<float>(j) * cell, hm.origin.y + static_cast<float>(i) * cell); };
    const int first_row = std::clamp(static_cast<int>(hm.pan.y), 0, n - 1);
    const int first_col = std::clamp(static_cast<int>(hm.pan.x), 0, n - 1);
    const int last_row = std::min(n, static_cast<int>(std::ceil(hm.pan.y + cells)));
    const int last_col = std::min(n, static_cast<int>(std::ceil(hm.pan.x + cells)));

    // Which cell the mouse is over; the label column counts as the row.
    int hover_row = -1, hover_col = -1;
    if ((hovered || clicked) && mouse.y >= map.Min.y && mouse.y < map.Max.y && mouse.x >= p0.x && mouse.x < map.Max.x) {
        hover_row = std::clamp(static_cast<int>((mouse.y - hm.origin.y) / cell), 0, n - 1);
        if (mouse.x >= map.Min.x) hover_col = std::clamp(static_cast<int>((mouse.x - hm.origin.x) / cell), 0, n - 1);
    }
    if (clicked && hover_row >= 0) v.selected_row = hover_row;

    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(map.Min, map.Max, true);
    if (hm.textured) {
        refresh_texture(hm, s, hr, head, v.result_version, top, textures);
        draw->AddImage(hm.texture, map.Min, map.Max, ImVec2(hm.pan.x / n_f, hm.pan.y / n_f),
                       ImVec2((hm.pan.x + cells) / n_f, (hm.pan.y + cells) / n_f));
    } else {
        for (int i = first_row; i < last_row; ++i)
            for (int j = first_col; j < last_col; ++j) {
                const ImVec2 a = cell_min(i, j);
                draw->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), weight_color(s, hr, i, j, top));
            }
    }
    // Each weight written in its cell once the cells are big enough to read.
    if (cell >= 2.2f * e) {
        NumberFont mono;
        for (int i = first_row; i < last_row; ++i)
            for (int j = first_col; j < last_col; ++j) {
                if (core::is_masked(s, i, j)) continue;
                const std::string text = fitting_weight(hr.weights(i, j), cell - 0.3f * e);
                if (text.empty()) continue;
                const ImVec2 a = cell_min(i, j);
                const ImVec2 size = ImGui::CalcTextSize(text.c_str());
                draw->AddText(ImVec2(a.x + (cell - size.x) * 0.5f, a.y + (cell - size.y) * 0.5f),
                              text_color_on(weight_color(s, hr, i, j, top)), text.c_str());
            }
    }
    const float thick = std::max(2.0f, 0.12f * e);
    if (v.selected_row >= first_row && v.selected_row < last_row) {
        const ImVec2 a = cell_min(v.selected_row, 0);
        draw->AddRect(a, ImVec2(a.x + n_f * cell, a.y + cell), selection_color(), 0.0f, 0, thick);
    }
    if (hover_col >= 0) {
        const ImVec2 a = cell_min(hover_row, hover_col);
        draw->AddRect(a, ImVec2(a.x + cell, a.y + cell), IM_COL32_WHITE, 0.0f, 0, 0.5f * thick);
    }
    draw->PopClipRect();

    // Row labels (clickable, see above) and column labels, where the cells leave room for them.
    const float line = ImGui::GetTextLineHeight();
    draw->PushClipRect(ImVec2(p0.x, map.Min.y), ImVec2(map.Min.x, map.Max.y), true);
    for (int i = first_row; i < last_row; ++i) {
        if (cell < 0.8f * line && i != v.selected_row) continue;
        const ImU32 color = i == v.selected_row ? selection_color() : i == hover_row ? IM_COL32_WHITE : ImGui::GetColorU32(ImGuiCol_Text);
        // Rows thinner than a line show only the selected label, kept whole inside the map's height.
        const float y = cell_min(i, 0).y + (cell - line) * 0.5f;
        draw->AddText(ImVec2(p0.x + 0.2f * e, cell < line ? std::clamp(y, map.Min.y, map.Max.y - line) : y), color, s.tokens[i].c_str());
    }
    draw->PopClipRect();
    if (cell >= 1.6f * e) {
        for (int j = first_col; j < last_col; ++j) {
            const ImVec2 a = cell_min(0, j);
            const float x0 = std::max(a.x, map.Min.x), x1 = std::min(a.x + cell, map.Max.x);
            const ImVec4 clip(x0, p0.y, x1, map.Min.y);
            const ImVec2 size = ImGui::CalcTextSize(s.tokens[j].c_str());
            draw->AddText(ImGui::GetFont(), ImGui::GetFontSize(), ImVec2(std::max(x0, a.x + (cell - size.x) * 0.5f), p0.y),
                          j == hover_col ? IM_COL32_WHITE : ImGui::GetColorU32(ImGuiCol_Text), s.tokens[j].c_str(), nullptr, 0.0f, &clip);
        }
    }

    if (hover_col >= 0 && !ImGui::IsItemActive()) {
        const int i = hover_row, j = hover_col;
        ImGui::BeginTooltip();
        ImGui::Text("query: %s (row %d)", s.tokens[i].c_str(), i + 1);
        ImGui::Text("key: %s (column %d)", s.tokens[j].c_str(), j + 1);
        if (core::is_masked(s, i, j)) {
            ImGui::TextUnformatted("masked: this key comes after the query");
            ImGui::TextUnformatted("score −∞, weight 0");
        } else {
            ImGui::Text("score%s: %s", s.scale ? " (scaled)" : "", core::format_number(hr.scaled(i, j)).c_str());
            ImGui::Text("weight: %s", core::format_number(hr.weights(i, j)).c_str());
        }
        ImGui::TextDisabled("click to explain this row");
        ImGui::EndTooltip();
    } else if (hover_row >= 0 && hover_col < 0 && !ImGui::IsItemActive()) {
        ImGui::SetTooltip("%s: click to explain this row", s.tokens[hover_row].c_str());
    }

    legend(ImVec2(map.Min.x, map.Max.y + 0.5f * e), side, s.causal, top);
    ImGui::SetCursorScreenPos(ImVec2(p0.x, map.Max.y + legend_h));
    if (hm.textured) ImGui::TextDisabled("%d × %d: wheel to zoom, drag to pan", n, n);
}

} // namespace ui
