#include "ui/canvas.h"

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

// How much of [a, a + 1] lies in [lo, hi].
float overlap(float a, float lo, float hi) { return std::clamp(std::min(a + 1.0f, hi) - std::max(a, lo), 0.0f, 1.0f); }

void unpack(ImU32 colour, float rgba[4]) {
    const int shifts[4] = {IM_COL32_R_SHIFT, IM_COL32_G_SHIFT, IM_COL32_B_SHIFT, IM_COL32_A_SHIFT};
    for (int c = 0; c < 4; ++c) rgba[c] = static_cast<float>((colour >> shifts[c]) & 0xFF) / 255.0f;
}

} // namespace

void Canvas::reset(int width, int height) {
    width_ = std::max(0, width), height_ = std::max(0, height);
    premultiplied_.assign(static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * 4, 0.0f);
}

void Canvas::blend(int x, int y, const float rgba[4], float coverage) {
    if (x < 0 || y < 0 || x >= width_ || y >= height_ || coverage <= 0.0f) return;
    float* p = &premultiplied_[(static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)) * 4];
    const float a = rgba[3] * coverage, keep = 1.0f - a;
    for (int c = 0; c < 3; ++c) p[c] = rgba[c] * a + p[c] * keep;
    p[3] = a + p[3] * keep;
}

// Along the longer axis a texel column (or row) at a time: across it, the line's band of
// thickness · √(1 + slope²) centred on the line, each texel weighted by the part of it inside,
// and at the two ends by the part of the column inside the line's length.
void Canvas::line(ImVec2 from, ImVec2 to, float thickness, ImU32 colour) {
    float rgba[4];
    unpack(colour, rgba);
    const bool steep = std::fabs(to.y - from.y) > std::fabs(to.x - from.x);
    // u along the longer axis, v across it.
    float u0 = steep ? from.y : from.x, v0 = steep ? from.x : from.y, u1 = steep ? to.y : to.x, v1 = steep ? to.x : to.y;
    if (u1 < u0) std::swap(u0, u1), std::swap(v0, v1);
    const float slope = u1 > u0 ? (v1 - v0) / (u1 - u0) : 0.0f;
    const float half = 0.5f * thickness * std::sqrt(1.0f + slope * slope);
    const int u_limit = steep ? height_ : width_;
    const int first = std::max(0, static_cast<int>(std::floor(u0))), last = std::min(u_limit - 1, static_cast<int>(std::ceil(u1)) - 1);
    for (int u = first; u <= last; ++u) {
        const float along = u1 > u0 ? overlap(static_cast<float>(u), u0, u1) : 1.0f;
        const float v = v0 + slope * (std::clamp(static_cast<float>(u) + 0.5f, u0, u1) - u0);
        for (int w = static_cast<int>(std::floor(v - half)); w <= static_cast<int>(std::floor(v + half)); ++w) {
            const float coverage = along * overlap(static_cast<float>(w), v - half, v + half);
            if (steep) blend(w, u, rgba, coverage);
            else blend(u, w, rgba, coverage);
        }
    }
}

// Each texel takes the part of it within radius + ½ of the centre: a one-texel ramp at the edge.
void Canvas::disc(ImVec2 c, float radius, ImU32 colour) {
    float rgba[4];
    unpack(colour, rgba);
    for (int y = static_cast<int>(std::floor(c.y - radius - 1)); y <= static_cast<int>(std::ceil(c.y + radius)); ++y)
        for (int x = static_cast<int>(std::floor(c.x - radius - 1)); x <= static_cast<int>(std::ceil(c.x + radius)); ++x) {
            const float d = std::hypot(static_cast<float>(x) + 0.5f - c.x, static_cast<float>(y) + 0.5f - c.y);
            blend(x, y, rgba, std::clamp(radius + 0.5f - d, 0.0f, 1.0f));
        }
}

void Canvas::rect(ImVec2 min, ImVec2 max, ImU32 colour) {
    float rgba[4];
    unpack(colour, rgba);
    for (int y = static_cast<int>(std::floor(min.y)); y < static_cast<int>(std::ceil(max.y)); ++y) {
        const float down = overlap(static_cast<float>(y), min.y, max.y);
        for (int x = static_cast<int>(std::floor(min.x)); x < static_cast<int>(std::ceil(max.x)); ++x)
            blend(x, y, rgba, down * overlap(static_cast<float>(x), min.x, max.x));
    }
}

void Canvas::to_rgba8(std::vector<unsigned char>& out) const {
    out.resize(premultiplied_.size());
    for (std::size_t k = 0; k < premultiplied_.size(); k += 4) {
        const float a = premultiplied_[k + 3];
        for (int c = 0; c < 3; ++c)
            out[k + static_cast<std::size_t>(c)] = static_cast<unsigned char>(std::lround(255.0f * (a > 0.0f ? std::min(1.0f, premultiplied_[k + static_cast<std::size_t>(c)] / a) : 0.0f)));
        out[k + 3] = static_cast<unsigned char>(std::lround(255.0f * std::min(1.0f, a)));
    }
}

CanvasTexture::~CanvasTexture() {
    if (texture) uploader->release(texture);
}

void CanvasTexture::send(TextureUploader& textures) {
    canvas.to_rgba8(texels);
    if (texture && (width != canvas.width() || height != canvas.height() || uploader != &textures)) {
        uploader->release(texture);
        texture = nullptr;
    }
    width = canvas.width(), height = canvas.height();
    if (!texture && width > 0 && height > 0) texture = textures.create(width, height), uploader = &textures;
    if (texture) textures.write_rows(texture, 0, height, texels.data());
    ++drawings;
}

void CanvasTexture::draw(ImDrawList* draw, ImVec2 min, float scale) const {
    if (texture) draw->AddImage(texture, min, ImVec2(min.x + static_cast<float>(width) / scale, min.y + static_cast<float>(height) / scale));
}

} // namespace ui
