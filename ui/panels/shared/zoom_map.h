// ui/panels/shared/zoom_map.h — a square map of n × n cells that the mouse wheel zooms about the pointer and a
// drag pans, never leaving the matrix: the heatmap's and the attention viewer's, one behaviour.
#pragma once

#include <imgui.h>
#include <imgui_internal.h>

namespace ui {

struct ZoomMap {
    float zoom = 1.0f;       // cells across = n / zoom
    ImVec2 pan{0, 0};        // first visible cell (fractional), in cells
    // Recorded each frame:
    ImVec2 origin{0, 0};     // screen position of cell (0, 0)'s top-left corner (off the map when panned)
    float cell = 0.0f;       // cell side in pixels
    ImRect area;             // the map on screen

    // The top-left corner of cell (i, j) on screen.
    ImVec2 cell_min(int i, int j) const {
        return ImVec2(origin.x + static_cast<float>(j) * cell, origin.y + static_cast<float>(i) * cell);
    }
    void fit() { zoom = 1.0f, pan = ImVec2(0, 0); }
};

// What the mouse did to the map this frame.
struct MapMouse {
    bool hovered = false;
    bool clicked = false; // released without dragging
    float cells = 1.0f;   // cells across the map now
};

// An invisible button from `corner` (where the row labels start, above the map) to area.Max: the
// wheel zooms about the pointer and a drag pans. Records the map's origin, cell and area in `m`.
MapMouse zoom_and_pan(const char* id, ZoomMap& m, int n, ImVec2 corner, const ImRect& area);

// Rows (or columns) first … last - 1 are at least partly in view, along an axis panned by `pan`.
struct VisibleCells {
    int first, last;
};
VisibleCells visible_cells(float pan, float cells, int n);

// "Fit": shows the whole map again. Always there (disabled when not zoomed), so nothing shifts when zooming starts.
void fit_button(ZoomMap& m);

} // namespace ui
