// ui/panels/explore/heatmap.h — the attention weights of the focused head as a zoomable map.
#pragma once

#include "ui/ui.h"
#include "ui/view.h"
#include "ui/panels/shared/zoom_map.h"

#include <vector>

namespace ui {

struct HeatmapView : ZoomMap { // zoomed by the wheel, panned by dragging
    HeatmapView() = default;
    HeatmapView(const HeatmapView&) = delete;
    HeatmapView& operator=(const HeatmapView&) = delete;
    ~HeatmapView() {
        if (texture) uploader->release(texture);
    }

    bool stretch = false;     // colours span 0 … the largest weight instead of 0 … 1
    // Recorded each frame:
    float label_left = 0.0f;  // row labels (clickable) span label_left … area.Min.x
    bool textured = false;    // drawn as one texture rather than one rectangle per cell
    // The texture for large n, refreshed when the weights or the head change; released with the view.
    TextureUploader* uploader = nullptr; // the one that made `texture`
    ImTextureID texture = nullptr;
    std::vector<unsigned char> band; // RGBA texels of the rows being written
    int texture_size = 0;
    long long texture_version = -1;
    int texture_head = -1;
    double texture_top = -1.0; // the weight that maps to the top colour
    int texture_map = -1;      // the weights colour map it was coloured with (core::io::WeightsMap)
};

void draw_heatmap_panel(const core::Scenario& s, const core::Result& r, View& v, TextureUploader& textures);

} // namespace ui
