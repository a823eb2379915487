// ui/panels/shared/zoom_map.cpp
#include "ui/panels/shared/zoom_map.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cmath>

namespace ui {

MapMouse zoom_and_pan(const char* id, ZoomMap& m, int n, ImVec2 corner, const ImRect& area) {
    const ImGuiIO& io = ImGui::GetIO();
    const float side = area.GetWidth(), n_f = static_cast<float>(n);
    // A release without a drag is a click; a drag pans. The button starts at `corner`, not at the
    // cursor: a map centred in its panel starts right of the cursor, and its right part would not answer.
    ImGui::SetCursorScreenPos(corner);
    const bool released = ImGui::InvisibleButton(id, ImVec2(area.Max.x - corner.x, area.Max.y - corner.y));
    ImGui::SetItemUsingMouseWheel();
    MapMouse out;
    out.hovered = ImGui::IsItemHovered();
    out.clicked = released && io.MouseDragMaxDistanceSqr[0] < io.MouseDragThreshold * io.MouseDragThreshold;
    const ImVec2 mouse = io.MousePos;
    float cells = n_f / m.zoom;
    float cell = side / cells;
    if (out.hovered && io.MouseWheel != 0.0f && area.Contains(mouse)) { // zoom about the mouse
        const ImVec2 anchor(m.pan.x + (mouse.x - area.Min.x) / cell, m.pan.y + (mouse.y - area.Min.y) / cell);
        m.zoom = std::clamp(m.zoom * std::pow(1.25f, io.MouseWheel), 1.0f, std::max(1.0f, n_f / 2.0f));
        cells = n_f / m.zoom;
        cell = side / cells;
        m.pan = ImVec2(anchor.x - (mouse.x - area.Min.x) / cell, anchor.y - (mouse.y - area.Min.y) / cell);
    }
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left))
        m.pan = ImVec2(m.pan.x - io.MouseDelta.x / cell, m.pan.y - io.MouseDelta.y / cell);
    m.pan.x = std::clamp(m.pan.x, 0.0f, n_f - cells);
    m.pan.y = std::clamp(m.pan.y, 0.0f, n_f - cells);
    m.cell = cell;
    m.origin = ImVec2(area.Min.x - m.pan.x * cell, area.Min.y - m.pan.y * cell);
    m.area = area;
    out.cells = cells;
    return out;
}

VisibleCells visible_cells(float pan, float cells, int n) {
    return {std::clamp(static_cast<int>(pan), 0, n - 1), std::min(n, static_cast<int>(std::ceil(pan + cells)))};
}

void fit_button(ZoomMap& m) {
    ImGui::BeginDisabled(m.zoom == 1.0f);
    if (ImGui::SmallButton("Fit")) m.fit();
    ImGui::EndDisabled();
    tip("Zoom with the mouse wheel, pan by dragging; this shows the whole map again.");
}

} // namespace ui
