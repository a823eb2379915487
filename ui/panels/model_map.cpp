// ui/panels/model_map.cpp
//
// [SECTION] Cells and labels
// [SECTION] The panel
#include "ui/panels/model_map.h"
#include "ui/model_service.h"

#include "ui/colour_maps.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ui {

bool ModelMapView::Blocks::operator==(const Blocks& o) const {
    return serial == o.serial && layer == o.layer && head == o.head && colour_map == o.colour_map && top == o.top && row0 == o.row0 &&
           col0 == o.col0 && step == o.step && rows == o.rows && cols == o.cols;
}

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Cells and labels
//-----------------------------------------------------------------------------

// The visible cells; below a pixel and a half per cell each block takes the largest of those it covers.
ModelMapView::Blocks visible_blocks(const ModelMapView& st, const core::model::Snapshot& s, int l, int h, float top, VisibleCells rows,
                                    VisibleCells cols) {
    ModelMapView::Blocks b;
    b.serial = s.serial, b.layer = l, b.head = h, b.colour_map = static_cast<int>(colour_maps().weights), b.top = top;
    b.step = std::max(1, static_cast<int>(std::ceil(1.5f / st.cell)));
    b.row0 = rows.first, b.col0 = cols.first;
    b.rows = (rows.last - rows.first + b.step - 1) / b.step;
    b.cols = (cols.last - cols.first + b.step - 1) / b.step;
    return b;
}

void paint(ModelMapView& st, const ModelMapView::Blocks& b, const float* a, int t, TextureUploader& textures) {
    const bool same_size = st.texture && st.painted.rows == b.rows && st.painted.cols == b.cols;
    st.texels.resize(static_cast<std::size_t>(b.rows) * static_cast<std::size_t>(b.cols) * 4);
    for (int bi = 0; bi < b.rows; ++bi)
        for (int bj = 0; bj < b.cols; ++bj) {
            const int i = b.row0 + bi * b.step, j = b.col0 + bj * b.step;
            float w = 0;
            for (int di = 0; di < b.step && i + di < t; ++di)
                for (int dj = 0; dj < b.step && j + dj < t; ++dj) w = std::max(w, a[(i + di) * t + j + dj]);
            const ImU32 c = j > i && w == 0.0f ? masked_color() : sequential_color(w / b.top);
            put_rgba(&st.texels[(static_cast<std::size_t>(bi) * static_cast<std::size_t>(b.cols) + static_cast<std::size_t>(bj)) * 4], c);
        }
    if (!same_size) {
        if (st.texture) st.uploader->release(st.texture);
        st.texture = textures.create(b.cols, b.rows);
        st.uploader = &textures;
    }
    textures.write_rows(st.texture, 0, b.rows, st.texels.data());
    st.painted = b;
    ++st.paintings;
}

// The head's largest weight, found once per map: at 8192 tokens a map is 67 million weights.
float largest_weight(ModelMapView& st, const core::model::Snapshot& s, const float* a) {
    const ModelMapView::Largest of{s.serial, st.layer, st.head, 0.0f};
    if (st.largest.serial != of.serial || st.largest.layer != of.layer || st.largest.head != of.head) {
        const std::size_t cells = static_cast<std::size_t>(s.t()) * static_cast<std::size_t>(s.t());
        st.largest = of;
        st.largest.weight = std::max(1e-6f, *std::max_element(a, a + cells));
    }
    return st.largest.weight;
}

// The visible blocks as one image, painted when they changed.
void cells(ImDrawList* draw, ModelMapView& st, const ModelMapView::Blocks& b, const float* a, int t, TextureUploader& textures) {
    if (b.rows <= 0 || b.cols <= 0) return;
    if (!st.texture || !(st.painted == b)) paint(st, b, a, t, textures);
    const ImVec2 p = st.cell_min(b.row0, b.col0);
    const float block = st.cell * static_cast<float>(b.step);
    draw->AddImage(st.texture, p, ImVec2(p.x + block * static_cast<float>(b.cols), p.y + block * static_cast<float>(b.rows)));
}

// Row labels left of the map and column labels under it, every k-th where they would overlap.
void labels(ImDrawList* draw, ModelMapView& st, const core::model::Snapshot& s, VisibleCells rows, VisibleCells cols, float label_w, int selected) {
    const float line = ImGui::GetTextLineHeight();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const int row_step = std::max(1, static_cast<int>(std::ceil(line / st.cell)));
    st.row_labels = st.column_labels = 0;
    for (int i = rows.first; i < rows.last; ++i) {
        if (i % row_step && i != selected) continue;
        const std::string name = fit_text(s.labels[static_cast<std::size_t>(i)], label_w - 0.3f * em());
        const float y = std::clamp(st.origin.y + static_cast<float>(i) * st.cell + 0.5f * (st.cell - line), st.area.Min.y, st.area.Max.y - line);
        draw->AddText(ImVec2(st.area.Min.x - 0.2f * em() - ImGui::CalcTextSize(name.c_str()).x, y), i == selected ? selection_color() : text, name.c_str());
        ++st.row_labels;
    }
    st.column_labels = column_labels(draw, s.labels, cols.first, cols.last, st.origin.x, st.cell, st.area.Max.y + 0.2f * em(), st.area.Min.x - label_w,
                                     st.area.Max.x);
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] The panel
//-----------------------------------------------------------------------------

void draw_model_map_panel(View& v, TextureUploader& textures) {
    ModelService& m = v.state<ModelService>();
    ModelMapView& st = v.state<ModelMapView>();
    st.layer = st.head = -1;
    if (!m.has_attention()) {
        dim_text(m.session.has_model() ? "The map appears once the prompt has run." : "No model is open.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    const int t = s.t();
    const std::shared_ptr<const core::model::MatrixF> weights = core::model::head_map_soon(m.shown, m.layer, m.head);
    if (!weights) {
        dim_text("Computing the map of layer " + std::to_string(m.layer + 1) + ", head " + std::to_string(m.head + 1) + " from its queries and keys…");
        return;
    }
    const float* a = weights->data(); // (t, t)
    st.layer = m.layer, st.head = m.head;
    ImGui::Text("Layer %d, head %d", m.layer + 1, m.head + 1);
    ImGui::SameLine();
    ImGui::Checkbox("stretch", &st.stretch);
    tip("Colour from 0 to the head's largest weight instead of 0 to 1.");
    ImGui::SameLine();
    fit_button(st);
    const float top = st.stretch ? largest_weight(st, s, a) : 1.0f;
    const SquareMap map = square_map_layout(s.labels, 7);
    const float label_w = map.label_w, side = map.side, below = map.below;
    const ImVec2 p0 = map.p0;
    const ImRect area(ImVec2(p0.x + label_w, p0.y), ImVec2(p0.x + label_w + side, p0.y + side));
    const MapMouse input = zoom_and_pan("map", st, t, p0, area);
    const VisibleCells rows = visible_cells(st.pan.y, input.cells, t), cols = visible_cells(st.pan.x, input.cells, t);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(area.Min, area.Max, true);
    cells(draw, st, visible_blocks(st, s, m.layer, m.head, top, rows, cols), a, t, textures);
    const int selected = m.query_position();
    const float y = st.origin.y + static_cast<float>(selected) * st.cell;
    draw->AddRect(ImVec2(area.Min.x, y), ImVec2(area.Max.x, y + std::max(st.cell, 2.0f)), selection_color(), 0, 0, 2.0f);
    draw->PopClipRect();
    labels(draw, st, s, rows, cols, label_w, selected);
    colour_bar(draw, ImVec2(area.Max.x + 0.5f * em(), area.Min.y), side, top);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if ((input.hovered || input.clicked) && area.Contains(mouse)) {
        const int i = std::clamp(static_cast<int>((mouse.y - st.origin.y) / st.cell), 0, t - 1);
        const int j = std::clamp(static_cast<int>((mouse.x - st.origin.x) / st.cell), 0, t - 1);
        if (input.clicked) {
            m.query = i, m.key = j;
            v.open["model_why"] = true; // the score explained: the reason to click a cell
        }
        if (!ImGui::IsItemActive())
            ImGui::SetTooltip("query %s (position %d)\nkey %s (position %d)\nweight %.4f\nclick: why this query attends to this key",
                              s.labels[static_cast<std::size_t>(i)].c_str(), i + 1, s.labels[static_cast<std::size_t>(j)].c_str(), j + 1,
                              static_cast<double>(a[i * t + j]));
    }
    ImGui::SetCursorScreenPos(ImVec2(p0.x, area.Max.y + below));
    ImGui::Dummy(ImVec2(0, 0));
}

} // namespace ui
