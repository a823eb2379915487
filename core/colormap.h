// core/colormap.h — the heatmap's colours as plain bytes, for files written without ImGui.
//
// The same numbers as ui::sequential_color and ui::masked_color (ui/widgets.h): a viridis map of
// 256 steps, interpolated in float between nine stops and rounded as ImGui rounds, so a PNG or SVG
// export shows exactly the colours of the window.
#pragma once

#include <cstdint>

namespace core {

struct Rgb {
    std::uint8_t r = 0, g = 0, b = 0;
    bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};

// t in [0, 1] (clamped): the colour of a weight t on the window's heatmap.
Rgb viridis(double t);
// t in [−1, 1] (clamped): a signed entry over its range's largest |entry| (a linear head's M) on a
// diverging map for paper, blue below 0, near white at 0, red above: the light theme's blue–red map of
// View ▸ Colour maps (ui/colour_maps.cpp), 256 steps.
Rgb diverging(double t);
// The grey of a masked cell.
Rgb masked_rgb();

} // namespace core
