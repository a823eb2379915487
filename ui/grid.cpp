#include "ui/grid.h"

#include "core/explain.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

ImVec2 content_size(const GridSpec& s) {
    return ImVec2(s.row_header_w + static_cast<float>(s.cols) * s.cell_w, s.cell_h + static_cast<float>(s.rows) * s.cell_h);
}

// First and one-past-last index of equal-sized items from `start` that intersect [lo, hi).
void visible_range(float start, float size, int count, float lo, float hi, int& first, int& last) {
    first = std::clamp(static_cast<int>(std::floor((lo - start) / size)), 0, count);
    last = std::clamp(static_cast<int>(std::ceil((hi - start) / size)), first, count);
}

} // namespace

ImVec2 grid_size(const GridSpec& s) {
    const ImVec2 content = content_size(s);
    const float bar = ImGui::GetStyle().ScrollbarSize;
    bool need_x = content.x > s.max_size.x;
    const bool need_y = content.y + (need_x ? bar : 0.0f) > s.max_size.y;
    if (need_y) need_x = content.x + bar > s.max_size.x;
    return ImVec2(std::min(content.x + (need_y ? bar : 0.0f), s.max_size.x),
                  std::min(content.y + (need_x ? bar : 0.0f), s.max_size.y));
}

void flow(float width, bool first) {
    if (first) return;
    const float next = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x * 2.0f;
    const float right = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x;
    if (next + width <= right) ImGui::SameLine(0, ImGui::GetStyle().ItemSpacing.x * 2.0f);
}

void cell_text(const ImRect& cell, const std::string& text, ImU32 color) {
    const char* begin = text.c_str();
    const char* end = begin + text.size();
    const ImVec2 size = ImGui::CalcTextSize(begin, end);
    const ImVec2 pos(std::max(cell.Min.x + 0.2f * em(), cell.GetCenter().x - size.x * 0.5f), cell.GetCenter().y - size.y * 0.5f);
    const ImVec4 clip(cell.Min.x, cell.Min.y, cell.Max.x, cell.Max.y);
    ImGui::GetWindowDrawList()->AddText(ImGui::GetFont(), ImGui::GetFontSize(), pos, color, begin, end, 0.0f, &clip);
}

GridGeometry draw_grid(const GridSpec& s) {
    const ImVec2 size = grid_size(s);
    ImGui::SetNextWindowContentSize(content_size(s));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::BeginChild(s.id, size, false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PopStyleVar();

    ImGuiWindow* window = ImGui::GetCurrentWindow();
    ImDrawList* draw = window->DrawList;
    const ImVec2 o = ImGui::GetCursorScreenPos(); // content origin, scrolling included
    const ImRect view = window->InnerClipRect;
    const ImRect cells(ImVec2(view.Min.x + s.row_header_w, view.Min.y + s.cell_h), view.Max);
    const ImVec2 first_cell(o.x + s.row_header_w, o.y + s.cell_h);
    int r0, r1, c0, c1;
    visible_range(first_cell.y, s.cell_h, s.rows, cells.Min.y, cells.Max.y, r0, r1);
    visible_range(first_cell.x, s.cell_w, s.cols, cells.Min.x, cells.Max.x, c0, c1);
    auto cell_rect = [&](int r, int c) {
        const ImVec2 min(first_cell.x + static_cast<float>(c) * s.cell_w, first_cell.y + static_cast<float>(r) * s.cell_h);
        return ImRect(min, ImVec2(min.x + s.cell_w, min.y + s.cell_h));
    };

    // Cells, clipped so that nothing under the frozen labels can be seen or clicked.
    if (cells.GetWidth() > 0 && cells.GetHeight() > 0) {
        ImGui::PushClipRect(cells.Min, cells.Max, true);
        for (int r = r0; r < r1; ++r) {
            ImGui::PushID(r);
            for (int c = c0; c < c1; ++c) {
                ImGui::PushID(c);
                s.cell(r, c, cell_rect(r, c));
                ImGui::PopID();
            }
            ImGui::PopID();
        }
        if (s.highlight_row >= r0 && s.highlight_row < r1) {
            const ImRect row(ImVec2(first_cell.x, cell_rect(s.highlight_row, 0).Min.y),
                             ImVec2(first_cell.x + static_cast<float>(s.cols) * s.cell_w, cell_rect(s.highlight_row, 0).Max.y));
            draw->AddRect(row.Min, row.Max, selection_color(), 0.0f, 0, std::max(2.0f, 0.12f * em()));
        }
        ImGui::PopClipRect();
    }

    // Row labels, frozen at the left.
    const ImRect labels(ImVec2(view.Min.x, cells.Min.y), ImVec2(cells.Min.x, view.Max.y));
    if (labels.GetWidth() > 0 && labels.GetHeight() > 0) {
        ImGui::PushClipRect(labels.Min, labels.Max, true);
        for (int r = r0; r < r1; ++r) {
            const ImRect row(ImVec2(labels.Min.x, cell_rect(r, 0).Min.y), ImVec2(labels.Max.x, cell_rect(r, 0).Max.y));
            if (s.row_header) {
                ImGui::PushID(r);
                s.row_header(r, row);
                ImGui::PopID();
            } else {
                const std::string label = s.row_label ? s.row_label(r) : std::to_string(r + 1);
                const ImU32 color = r == s.highlight_row ? selection_color() : ImGui::GetColorU32(ImGuiCol_Text);
                draw->AddText(ImVec2(row.Min.x + 0.3f * em(), row.GetCenter().y - 0.5f * ImGui::GetTextLineHeight()), color, label.c_str());
            }
        }
        ImGui::PopClipRect();
    }

    // Column labels, frozen at the top.
    const ImRect header(ImVec2(cells.Min.x, view.Min.y), ImVec2(view.Max.x, cells.Min.y));
    if (header.GetWidth() > 0 && header.GetHeight() > 0) {
        ImGui::PushClipRect(header.Min, header.Max, true);
        for (int c = c0; c < c1; ++c) {
            const ImRect col(ImVec2(cell_rect(0, c).Min.x, header.Min.y), ImVec2(cell_rect(0, c).Max.x, header.Max.y));
            cell_text(col, s.col_label ? s.col_label(c) : std::to_string(c + 1), ImGui::GetColorU32(ImGuiCol_TextDisabled));
        }
        ImGui::PopClipRect();
    }

    if (s.cell_tooltip && ImGui::IsWindowHovered() && cells.Contains(ImGui::GetMousePos())) {
        const ImVec2 m = ImGui::GetMousePos();
        const int r = static_cast<int>((m.y - first_cell.y) / s.cell_h), c = static_cast<int>((m.x - first_cell.x) / s.cell_w);
        if (r >= 0 && r < s.rows && c >= 0 && c < s.cols) s.cell_tooltip(r, c);
    }
    ImGui::EndChild();
    return GridGeometry{first_cell, ImVec2(s.cell_w, s.cell_h), cells};
}

float token_label_width(const core::Scenario& s) {
    float w = 0.0f;
    for (int r = 0; r < std::min(s.n(), 256); ++r) w = std::max(w, ImGui::CalcTextSize(s.tokens[r].c_str()).x);
    return w;
}

NumberRange number_range(const Eigen::Ref<const core::Matrix>& m) {
    NumberRange range;
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            const double x = m(r, c);
            if (!std::isfinite(x)) continue;
            range.all_integers = range.all_integers && x == std::round(x);
            range.max_abs = std::max(range.max_abs, std::abs(x));
        }
    return range;
}

NumberRange result_range(const core::Matrix& m, View& v) {
    RangeCache& cache = v.result_ranges;
    if (cache.version != v.result_version) cache = RangeCache{v.result_version, {}};
    const auto known = cache.ranges.find(&m);
    return known != cache.ranges.end() ? known->second : cache.ranges.emplace(&m, number_range(m)).first->second;
}

GridSpec number_grid(const char* id, core::Scenario& s, core::edits::Which which, int head, ImVec2 max_size, View& v) {
    static const core::Matrix none;
    const core::Matrix* found = core::edits::matrix_of(s, which, head);
    const core::Matrix& m = found ? *found : none;
    const NumberRange range = number_range(m);
    GridSpec g;
    g.id = id;
    g.rows = static_cast<int>(m.rows());
    g.cols = static_cast<int>(m.cols());
    g.cell_h = ImGui::GetFrameHeight() + ImGui::GetStyle().ItemSpacing.y * 0.5f;
    g.cell_w = std::max(3.0f * em(), number_cell_width(number_chars(range.max_abs, range.all_integers)));
    g.max_size = max_size;
    g.cell = [&s, which, head, &m, &v](int r, int c, const ImRect& rect) {
        ImGui::SetCursorScreenPos(ImVec2(rect.Min.x + 0.1f * em(), rect.Min.y));
        NumberFont mono;
        double value = m(r, c);
        if (number_cell("##entry", value, rect.GetWidth() - 0.2f * em(), v)) core::edits::set_cell(s, which, head, r, c, value);
    };
    return g;
}

GridSpec value_grid(const char* id, const core::Matrix& m, int rows, ImVec2 max_size) {
    const NumberRange range = number_range(m.topRows(rows));
    const double scale = range.max_abs > 0.0 ? range.max_abs : 1.0;
    GridSpec g;
    g.id = id;
    g.rows = rows;
    g.cols = static_cast<int>(m.cols());
    g.cell_h = ImGui::GetFrameHeight();
    g.cell_w = std::max(3.0f * em(), number_cell_width(number_chars(range.max_abs, range.all_integers)));
    g.max_size = max_size;
    g.cell = [&m, scale](int r, int c, const ImRect& rect) {
        const ImU32 bg = diverging_color(m(r, c) / scale);
        const float inset = 0.06f * em(); // a thin gap between cells
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(rect.Min.x + inset, rect.Min.y + inset), ImVec2(rect.Max.x - inset, rect.Max.y - inset), bg);
        NumberFont mono;
        cell_text(rect, core::format_number(m(r, c)), text_color_on(bg));
    };
    g.cell_tooltip = [&m, id](int r, int c) { ImGui::SetTooltip("%s[%d][%d] = %.6g", id, r + 1, c + 1, m(r, c)); };
    return g;
}

//-----------------------------------------------------------------------------
// [SECTION] What an open lesson hides and outlines
//-----------------------------------------------------------------------------

void draw_hidden_cell(const ImRect& rect) {
    ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(rect.Min.x + 1, rect.Min.y + 1), ImVec2(rect.Max.x - 1, rect.Max.y - 1), hidden_colour());
    cell_text(rect, "?", IM_COL32(225, 225, 225, 255));
}

namespace {

// Whether a window in front of `owner` covers part of `box`.
bool covered(const ImGuiWindow* owner, const ImRect& box) {
    constexpr ImGuiWindowFlags transient = ImGuiWindowFlags_ChildWindow | ImGuiWindowFlags_Popup | ImGuiWindowFlags_Tooltip;
    bool in_front = false;
    for (const ImGuiWindow* w : GImGui->Windows) { // back to front
        if (in_front && w->WasActive && !w->Hidden && !(w->Flags & transient) && w->Rect().Overlaps(box)) return true;
        in_front = in_front || w == owner;
    }
    return !in_front; // the owner is not drawn at all
}

} // namespace

void outline_highlights(View& v, const std::string& matrix, const GridGeometry& g, int rows, int cols) {
    const float pulse = 0.75f + 0.25f * std::sin(static_cast<float>(ImGui::GetTime()) * 4.0f);
    const ImU32 colour = ImGui::ColorConvertFloat4ToU32(ImVec4(0.35f, 0.9f, 1.0f, pulse));
    const ImGuiWindow* owner = ImGui::GetCurrentWindow()->RootWindow;
    for (const core::learn::MatrixPlace& p : v.lesson.highlights) {
        if (p.matrix != matrix || (p.head != v.selected_head && p.matrix != "X")) continue;
        const ImVec2 o = g.cell_origin, c = g.cell_size;
        const float r0 = static_cast<float>(std::max(p.row, 0)), r1 = static_cast<float>(p.row >= 0 ? p.row + 1 : rows);
        const float c0 = static_cast<float>(std::max(p.col, 0)), c1 = static_cast<float>(p.col >= 0 ? p.col + 1 : cols);
        ImRect box(ImVec2(o.x + c.x * c0, o.y + c.y * r0), ImVec2(o.x + c.x * c1, o.y + c.y * r1));
        box.ClipWith(g.visible);
        if (box.GetWidth() <= 0.0f || box.GetHeight() <= 0.0f || covered(owner, box)) continue;
        ImGui::GetForegroundDrawList()->AddRect(box.Min, box.Max, colour, 0.0f, 0, 3.0f);
        v.motion.moving = true; // the outline pulses
    }
}

} // namespace ui
