#include "ui/panels/shared/head_map.h"

#include "ui/grid.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace ui {

double colour_span(const core::Matrix& values) {
    return std::max(1e-9, values.unaryExpr([](double x) { return std::isfinite(x) ? std::abs(x) : 0.0; }).maxCoeff());
}

int draw_head_map(View& v, const char* id, const core::Matrix& d, int& layer, int& head, HeadMapScale scale) {
    const int L = static_cast<int>(d.rows()), H = static_cast<int>(d.cols());
    const bool shares = scale == HeadMapScale::shares;
    const double top = shares ? 1.0 : colour_span(d);
    const float label_w = ImGui::CalcTextSize("L00").x + 0.4f * em(), label_h = ImGui::GetTextLineHeightWithSpacing(), bar_w = 5 * em();
    const ImVec2 avail = ImGui::GetContentRegionAvail(), p0 = ImGui::GetCursorScreenPos();
    const float head_label_w = ImGui::CalcTextSize(("H" + std::to_string(H)).c_str()).x + 0.4f * em(); // each column's "H1" … fits
    const float cell = std::max(std::max(1.2f * em(), head_label_w),
                                std::min((avail.x - label_w - bar_w) / static_cast<float>(H), (avail.y - label_h) / static_cast<float>(L)));
    const ImVec2 origin(p0.x + label_w, p0.y + label_h);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    for (int h = 0; h < H; ++h)
        cell_text(ImRect(origin.x + static_cast<float>(h) * cell, p0.y, origin.x + static_cast<float>(h + 1) * cell, origin.y), "H" + std::to_string(h + 1), text);
    for (int l = 0; l < L; ++l) {
        const std::string name = "L" + std::to_string(l + 1);
        draw->AddText(ImVec2(p0.x, origin.y + (static_cast<float>(l) + 0.5f) * cell - ImGui::GetTextLineHeight() / 2), text, name.c_str());
        for (int h = 0; h < H; ++h) {
            const ImVec2 a(origin.x + static_cast<float>(h) * cell, origin.y + static_cast<float>(l) * cell), b(a.x + cell - 1, a.y + cell - 1);
            const ImU32 colour = shares ? sequential_color(d(l, h)) : diverging_color(d(l, h) / top);
            draw->AddRectFilled(a, b, std::isfinite(d(l, h)) ? colour : masked_color());
            if (l == layer && h == head) draw->AddRect(a, b, selection_color(), 0, 0, 2.0f);
        }
    }
    const ImVec2 size(cell * static_cast<float>(H), cell * static_cast<float>(L));
    v.grids[id] = GridGeometry{origin, ImVec2(cell, cell), ImRect(origin, ImVec2(origin.x + size.x, origin.y + size.y))};
    ImGui::SetCursorScreenPos(origin);
    ImGui::InvisibleButton(id, size);
    colour_bar(draw, ImVec2(origin.x + size.x + 0.5f * em(), origin.y), size.y, top, !shares);
    if (!ImGui::IsItemHovered()) return -1;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int l = std::clamp(static_cast<int>((mouse.y - origin.y) / cell), 0, L - 1), h = std::clamp(static_cast<int>((mouse.x - origin.x) / cell), 0, H - 1);
    if (ImGui::IsItemClicked()) layer = l, head = h;
    return l * H + h;
}

} // namespace ui
