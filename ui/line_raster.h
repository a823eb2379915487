// ui/line_raster.h — straight lines drawn on the CPU into an RGBA image, anti-aliased and blended in
// the order given, as the GPU blends ImGui's lines. The head view's fan of lines becomes one
// texture this way: llvmpipe spends about 9 µs on each long thin line, 12 ms of a 23 ms frame at
// 128 tokens, while the fan changes only with the head, the scroll or the hovered token.
#pragma once

#include <imgui.h>

#include <vector>

namespace ui {

class LineRaster {
public:
    // A clear image of width × height texels.
    void reset(int width, int height);
    // A line from (x0, y0) to (x1, y1), in texels (texel (x, y) spans x … x + 1), `thickness` texels
    // wide, in `colour` (its alpha as ImGui's); each texel takes the part of it the line covers.
    void line(ImVec2 from, ImVec2 to, float thickness, ImU32 colour);
    // The image as RGBA bytes, rows top down, alpha not premultiplied (as ImGui's back end blends).
    void to_rgba8(std::vector<unsigned char>& out) const;
    int width() const { return width_; }
    int height() const { return height_; }

private:
    void blend(int x, int y, const float rgba[4], float coverage);
    int width_ = 0, height_ = 0;
    std::vector<float> premultiplied_; // (height, width, 4)
};

} // namespace ui
