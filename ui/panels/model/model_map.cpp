// ui/panels/model/model_map.cpp
//
// [SECTION] Cells and labels
// [SECTION] The panel
#include "ui/panels/model/model_map.h"
#include "ui/model_service.h"

#include "core/io/figure.h"
#include "core/io/files.h"
#include "ui/colour_maps.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ui {

bool ModelMapView::Blocks::operator==(const Blocks& o) const {
    return serial == o.serial && layer == o.layer && head == o.head && colour_map == o.colour_map && window == o.window && diverging == o.diverging &&
           top == o.top && row0 == o.row0 &&
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
    b.serial = s.serial, b.layer = l, b.head = h, b.top = top, b.diverging = st.diverging;
    b.colour_map = st.diverging ? 16 + static_cast<int>(colour_maps().signed_map) * 2 + static_cast<int>(colour_maps().theme) : static_cast<int>(colour_maps().weights);
    b.window = s.result.kinds.empty() ? 0 : s.result.kinds[static_cast<std::size_t>(l)].window;
    b.step = std::max(1, static_cast<int>(std::ceil(1.5f / st.cell)));
    b.row0 = rows.first, b.col0 = cols.first;
    b.rows = (rows.last - rows.first + b.step - 1) / b.step;
    b.cols = (cols.last - cols.first + b.step - 1) / b.step;
    return b;
}

// A key before a query's sliding window: a checker of the mask's grey and a lighter one, which no
// weight's colour and no masked cell has (cell (i, j) takes one by the parity of i + j).
ImU32 outside_window_color(int i, int j) {
    if ((i + j) % 2) return masked_color();
    return colour_maps().theme == core::io::Theme::light ? IM_COL32(215, 215, 215, 255) : IM_COL32(120, 120, 120, 255);
}

// A cell's colour: its weight, or why it has none (the causal mask's grey, the window's checker).
ImU32 cell_color(int i, int j, float w, const ModelMapView::Blocks& b) {
    if (w == 0.0f && j > i) return masked_color();
    if (b.diverging) return diverging_color(w / b.top);
    if (w == 0.0f && b.window > 0 && i - j >= b.window) return outside_window_color(i, j);
    return sequential_color(w / b.top);
}

void paint(ModelMapView& st, const ModelMapView::Blocks& b, const float* a, int t, TextureUploader& textures) {
    const bool same_size = st.texture && st.painted.rows == b.rows && st.painted.cols == b.cols;
    st.texels.resize(static_cast<std::size_t>(b.rows) * static_cast<std::size_t>(b.cols) * 4);
    for (int bi = 0; bi < b.rows; ++bi)
        for (int bj = 0; bj < b.cols; ++bj) {
            const int i = b.row0 + bi * b.step, j = b.col0 + bj * b.step;
            float w = 0; // the largest weight it covers; signed: the entry of largest magnitude
            for (int di = 0; di < b.step && i + di < t; ++di)
                for (int dj = 0; dj < b.step && j + dj < t; ++dj) {
                    const float x = a[(i + di) * t + j + dj];
                    if (b.diverging ? std::abs(x) > std::abs(w) : x > w) w = x;
                }
            const ImU32 c = cell_color(i, j, w, b);
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
        const auto [low, high] = std::minmax_element(a, a + cells);
        st.largest.weight = std::max(1e-6f, st.diverging ? std::max(-*low, *high) : *high);
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

// A square of 3 × 3 cells coloured as colour(i, j) and what it stands for, on the line.
template <class Colour> void legend_entry(Colour colour, const char* text) {
    const float side = ImGui::GetTextLineHeight() * 0.8f, cell = side / 3;
    const ImVec2 at = ImGui::GetCursorScreenPos();
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
            const ImVec2 p(at.x + static_cast<float>(j) * cell, at.y + 0.1f * side + static_cast<float>(i) * cell);
            ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + cell, p.y + cell), colour(i, j));
        }
    ImGui::Dummy(ImVec2(side, side));
    ImGui::SameLine();
    ImGui::TextUnformatted(text);
}

// Under the title, where the layer has a window: which grey is the mask and which the window.
void window_legend(int window) {
    if (window <= 0) return;
    legend_entry([](int, int) { return masked_color(); }, "after the query (causal mask)");
    ImGui::SameLine(0, 1.5f * em());
    legend_entry(outside_window_color, ("outside its window of " + std::to_string(window) + " keys").c_str());
}

// Each visible query's learned sink share (layer l, head h) in a column right of the map, 0 … 1 in
// the weights' colours; returns the hovered query or -1.
int sink_column(ImDrawList* draw, const ModelMapView& st, const core::model::Snapshot& s, int l, int h, VisibleCells rows, ImRect column) {
    const int t = s.t();
    const float* share = s.result.sink_share.data() + (static_cast<std::ptrdiff_t>(l) * s.heads() + h) * t;
    draw->PushClipRect(column.Min, column.Max, true);
    for (int i = rows.first; i < rows.last; ++i) {
        const float y = st.origin.y + static_cast<float>(i) * st.cell;
        draw->AddRectFilled(ImVec2(column.Min.x, y), ImVec2(column.Max.x, y + st.cell), sequential_color(share[i]));
    }
    draw->PopClipRect();
    const char* label = "sink";
    draw->AddText(ImVec2(column.Min.x, column.Max.y + 0.2f * em()), ImGui::GetColorU32(ImGuiCol_Text), label);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if (!column.Contains(mouse) || !ImGui::IsWindowHovered()) return -1;
    return std::clamp(static_cast<int>((mouse.y - st.origin.y) / st.cell), 0, t - 1);
}

// The head's map as a labelled PNG figure (core/io/figure.h), in the map's colours: a linear head's
// on the diverging map from −max|M| to +max|M|. The map is copied when the file is chosen.
void save_figure_button(View& v, const core::model::Snapshot& s, const std::shared_ptr<const core::model::MatrixF>& map, ModelMapView& st) {
    if (ImGui::Button("Save figure…")) {
        const std::string name = "head " + std::to_string(st.layer + 1) + "." + std::to_string(st.head + 1);
        v.file_request = FileRequest{core::io::FileBrowser::Mode::save, "Save " + name, {{"PNG images", {".png"}}}, name + ".png", "",
                                     [map, labels = s.labels, name, diverging = st.diverging, stretch = st.stretch, &v](const std::string& path) {
                                         const core::Matrix w = map->cast<double>(); // (t, t)
                                         const double top = diverging ? std::max(1e-12, w.cwiseAbs().maxCoeff()) : stretch ? std::max(1e-12, w.maxCoeff()) : 1.0;
                                         const core::io::FigureSpec spec{(diverging ? "M of " : "Attention of ") + name, labels, true, top, diverging};
                                         try {
                                             core::io::write_file_atomically(path, core::io::png_bytes(core::io::heatmap_figure_png(w, spec)));
                                         } catch (const core::io::ExportError& e) {
                                             throw core::io::ExportError(path + ": " + e.what());
                                         }
                                         v.tell("Saved " + path, false);
                                     }};
    }
    remember(v, "model map save figure");
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
    const core::model::AttentionKind kind = s.result.kinds.empty() ? core::model::AttentionKind{} : s.result.kinds[static_cast<std::size_t>(m.layer)];
    if (kind.linear != st.diverging) st.largest = {};
    st.diverging = kind.linear;
    ImGui::Text("Layer %d, head %d", m.layer + 1, m.head + 1);
    ImGui::SameLine();
    if (st.diverging) dim_text("signed M, ± its largest |entry|");
    else ImGui::Checkbox("stretch", &st.stretch);
    if (!st.diverging) tip("Colour from 0 to the head's largest weight instead of 0 to 1.");
    ImGui::SameLine();
    fit_button(st);
    ImGui::SameLine();
    save_figure_button(v, s, weights, st);
    const float top = st.stretch || st.diverging ? largest_weight(st, s, a) : 1.0f;
    st.range = top;
    st.window = kind.window;
    st.sink_column = kind.learned_sink() && !s.result.sink_share.empty();
    window_legend(st.window);
    const SquareMap map = square_map_layout(s.labels, 7);
    const float sink_w = st.sink_column ? 1.5f * em() : 0.0f; // the sink's column and its gap
    const float label_w = map.label_w, side = std::max(4.0f * em(), map.side - sink_w), below = map.below;
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
    const int sink_hovered = st.sink_column ? sink_column(draw, st, s, m.layer, m.head, rows,
                                                         ImRect(ImVec2(area.Max.x + 0.3f * em(), area.Min.y), ImVec2(area.Max.x + 1.2f * em(), area.Max.y)))
                                            : -1;
    if (sink_hovered >= 0) {
        const float share = s.result.sink_share[(static_cast<std::size_t>(m.layer) * static_cast<std::size_t>(s.heads()) + static_cast<std::size_t>(m.head)) *
                                                    static_cast<std::size_t>(t) + static_cast<std::size_t>(sink_hovered)];
        ImGui::SetTooltip("query %s (position %d)\nlearned sink: %.4f of its weight\nits keys share the other %.4f",
                          s.labels[static_cast<std::size_t>(sink_hovered)].c_str(), sink_hovered + 1, static_cast<double>(share), 1.0 - static_cast<double>(share));
    }
    colour_bar(draw, ImVec2(area.Max.x + sink_w + 0.5f * em(), area.Min.y), side, top, st.diverging);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if ((input.hovered || input.clicked) && area.Contains(mouse)) {
        const int i = std::clamp(static_cast<int>((mouse.y - st.origin.y) / st.cell), 0, t - 1);
        const int j = std::clamp(static_cast<int>((mouse.x - st.origin.x) / st.cell), 0, t - 1);
        if (input.clicked) {
            m.query = i, m.key = j;
            v.open["model_why"] = true; // the score explained: the reason to click a cell
        }
        if (!ImGui::IsItemActive())
            ImGui::SetTooltip(st.diverging ? "query %s (position %d)\nkey %s (position %d)\nM entry %+.4f\nclick: why this query attends to this key"
                                            : "query %s (position %d)\nkey %s (position %d)\nweight %.4f\nclick: why this query attends to this key",
                              s.labels[static_cast<std::size_t>(i)].c_str(), i + 1, s.labels[static_cast<std::size_t>(j)].c_str(), j + 1,
                              static_cast<double>(a[i * t + j]));
    }
    ImGui::SetCursorScreenPos(ImVec2(p0.x, area.Max.y + below));
    ImGui::Dummy(ImVec2(0, 0));
}

} // namespace ui
