// ui/canvas.h — lines, discs and rectangles drawn on the CPU into an RGBA image, anti-aliased and
// blended in the order given, as the GPU blends ImGui's shapes. Thousands of shapes that change
// only now and then become one texture this way: llvmpipe spends about 9 µs on each long thin line
// (the head view's fan: 12 ms of a 23 ms frame at 128 tokens) and ~0.2 µs on each small triangle.
#pragma once

#include "ui/ui.h"

#include <imgui.h>

#include <vector>

namespace ui {

class Canvas {
public:
    struct Stroke {
        ImVec2 from, to;
        float thickness;
        ImU32 colour;
    };
    // A clear image of width × height texels.
    void reset(int width, int height);
    // A line from (x0, y0) to (x1, y1), in texels (texel (x, y) spans x … x + 1), `thickness` texels
    // wide, in `colour` (its alpha as ImGui's); each texel takes the part of it the line covers.
    void line(ImVec2 from, ImVec2 to, float thickness, ImU32 colour);
    // The same lines, texel for texel, as line() drawing them one after another; a band of rows at a
    // time, the bands shared between the cores (core::parallel).
    void lines(const std::vector<Stroke>& strokes);
    // A filled disc centred at `c`, `radius` texels, and a filled axis-aligned rectangle.
    void disc(ImVec2 c, float radius, ImU32 colour);
    void rect(ImVec2 min, ImVec2 max, ImU32 colour);
    // The image as RGBA bytes, rows top down, alpha not premultiplied (as ImGui's back end blends).
    void to_rgba8(std::vector<unsigned char>& out) const;
    int width() const { return width_; }
    int height() const { return height_; }

private:
    void line_rows(const Stroke& stroke, int row_lo, int row_hi);
    void blend(int x, int y, const float rgba[4], float coverage);
    static void blend(float* texel, const float rgba[4], float coverage);
    int width_ = 0, height_ = 0;
    std::vector<float> premultiplied_; // (height, width, 4)
};

// A canvas as a texture, a texel a framebuffer pixel: send() after drawing, draw() each frame.
struct CanvasTexture {
    CanvasTexture() = default;
    CanvasTexture(const CanvasTexture&) = delete;
    CanvasTexture& operator=(const CanvasTexture&) = delete;
    ~CanvasTexture();

    // The canvas's texels to the texture (made again when its size changed); counts a drawing.
    void send(TextureUploader& textures);
    // The texture with its top-left corner at `min`, `scale` texels a pixel.
    void draw(ImDrawList* draw, ImVec2 min, float scale) const;

    Canvas canvas;
    std::vector<unsigned char> texels; // as last sent: (canvas.height(), canvas.width()) RGBA
    TextureUploader* uploader = nullptr; // the one that made `texture`
    ImTextureID texture = nullptr;
    int width = 0, height = 0;           // of `texture`
    int drawings = 0;                    // times sent (the tests read it)
};

} // namespace ui
