#include "ui/canvas.h"

#include "core/parallel.h"

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

// floor() and ceil() of the canvas's coordinates, inline: without SSE4.1 std::floor is a call into
// libm, and a fan of lines takes two for each texel column.
int floor_int(float x) {
    const int i = static_cast<int>(x);
    return x < static_cast<float>(i) ? i - 1 : i;
}
int ceil_int(float x) { return -floor_int(-x); }

// std::lround of x in 0 … 255, inline: x + ½ is exact in double, so truncating it rounds halves up
// as lround does (checked against lround for every float below 256).
unsigned char to_byte(float x) { return static_cast<unsigned char>(static_cast<double>(x) + 0.5); }

} // namespace

void Canvas::reset(int width, int height) {
    width_ = std::max(0, width), height_ = std::max(0, height);
    premultiplied_.assign(static_cast<std::size_t>(width_) * static_cast<std::size_t>(height_) * 4, 0.0f);
}

void Canvas::blend(int x, int y, const float rgba[4], float coverage) {
    if (x < 0 || y < 0 || x >= width_ || y >= height_ || coverage <= 0.0f) return;
    blend(&premultiplied_[(static_cast<std::size_t>(y) * static_cast<std::size_t>(width_) + static_cast<std::size_t>(x)) * 4], rgba, coverage);
}

// The alpha channel blends as the colour channels do, with a colour of 1 (1 · a is exactly a): one
// 4-wide operation a texel. No test of the coverage (0 … 1): 0 leaves the texel exactly as it was,
// and a branch taken at random at a line's edges cost more than the blend.
void Canvas::blend(float* p, const float rgba[4], float coverage) {
    const float a = rgba[3] * coverage, keep = 1.0f - a;
    const float colour[4] = {rgba[0], rgba[1], rgba[2], 1.0f};
    for (int c = 0; c < 4; ++c) p[c] = colour[c] * a + p[c] * keep;
}

// Along the longer axis a texel column (or row) at a time: across it, the line's band of
// thickness · √(1 + slope²) centred on the line, each texel weighted by the part of it inside,
// and at the two ends by the part of the column inside the line's length. Only texel rows
// row_lo … row_hi − 1 are touched; the columns that cannot reach them are skipped before the loop.
void Canvas::line_rows(const Stroke& stroke, int row_lo, int row_hi) {
    float rgba[4];
    unpack(stroke.colour, rgba);
    const ImVec2 from = stroke.from, to = stroke.to;
    const bool steep = std::fabs(to.y - from.y) > std::fabs(to.x - from.x);
    // u along the longer axis, v across it.
    float u0 = steep ? from.y : from.x, v0 = steep ? from.x : from.y, u1 = steep ? to.y : to.x, v1 = steep ? to.x : to.y;
    if (u1 < u0) std::swap(u0, u1), std::swap(v0, v1);
    const float slope = u1 > u0 ? (v1 - v0) / (u1 - u0) : 0.0f;
    const float half = 0.5f * stroke.thickness * std::sqrt(1.0f + slope * slope);
    int first = std::max(0, floor_int(u0)), last = std::min((steep ? height_ : width_) - 1, ceil_int(u1) - 1);
    int w_lo = 0, w_hi = (steep ? width_ : height_) - 1;
    if (steep) {
        first = std::max(first, row_lo), last = std::min(last, row_hi - 1);
    } else {
        w_lo = std::max(w_lo, row_lo), w_hi = std::min(w_hi, row_hi - 1);
        // The columns whose v (within ½ of the line's, |slope| ≤ 1) comes within half + 1 of the rows.
        if (slope != 0.0f) {
            const float a = u0 - 0.5f + (static_cast<float>(row_lo) - half - 1.0f - v0) / slope;
            const float b = u0 - 0.5f + (static_cast<float>(row_hi) + half + 1.0f - v0) / slope;
            const float lo = static_cast<float>(first - 1), hi = static_cast<float>(last + 1);
            first = std::max(first, floor_int(std::clamp(std::min(a, b), lo, hi)) - 1);
            last = std::min(last, ceil_int(std::clamp(std::max(a, b), lo, hi)) + 1);
        }
    }
    const std::size_t u_step = steep ? static_cast<std::size_t>(width_) * 4 : 4, v_step = steep ? 4 : static_cast<std::size_t>(width_) * 4;
    for (int u = first; u <= last; ++u) {
        const float along = u1 > u0 ? overlap(static_cast<float>(u), u0, u1) : 1.0f;
        const float v = v0 + slope * (std::clamp(static_cast<float>(u) + 0.5f, u0, u1) - u0);
        const int w_first = std::max(w_lo, floor_int(v - half)), w_last = std::min(w_hi, floor_int(v + half));
        if (w_first > w_last) continue; // the line passes beside these rows here
        float* p = premultiplied_.data() + static_cast<std::size_t>(u) * u_step + static_cast<std::size_t>(w_first) * v_step;
        for (int w = w_first; w <= w_last; ++w, p += v_step) blend(p, rgba, along * overlap(static_cast<float>(w), v - half, v + half));
    }
}

void Canvas::line(ImVec2 from, ImVec2 to, float thickness, ImU32 colour) { line_rows({from, to, thickness, colour}, 0, height_); }

// Bands of rows (about 256 KiB each), taken by the cores in turn; each band sees every stroke in
// order, so each texel blends exactly as line() one after another would blend it.
void Canvas::lines(const std::vector<Stroke>& strokes) {
    struct Work {
        Canvas* canvas;
        const std::vector<Stroke>* strokes;
        int rows;
    } work{this, &strokes, std::max(8, (256 << 10) / std::max(1, width_ * 16))};
    const auto band = [](void* context, std::ptrdiff_t k) {
        const Work& w = *static_cast<const Work*>(context);
        const int lo = static_cast<int>(k) * w.rows, hi = std::min(w.canvas->height_, lo + w.rows);
        for (const Stroke& s : *w.strokes) w.canvas->line_rows(s, lo, hi);
    };
    core::parallel::for_each((height_ + work.rows - 1) / work.rows, band, &work);
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

// Bands of 64 rows shared between the cores.
void Canvas::to_rgba8(std::vector<unsigned char>& out) const {
    out.resize(premultiplied_.size());
    struct Work {
        const float* in;
        unsigned char* out;
        std::size_t size, band;
    } work{premultiplied_.data(), out.data(), premultiplied_.size(), static_cast<std::size_t>(width_) * 4 * 64};
    const auto band = [](void* context, std::ptrdiff_t b) {
        const Work& w = *static_cast<const Work*>(context);
        const std::size_t end = std::min(w.size, (static_cast<std::size_t>(b) + 1) * w.band);
        for (std::size_t k = static_cast<std::size_t>(b) * w.band; k < end; k += 4) {
            const float a = w.in[k + 3];
            for (std::size_t c = 0; c < 3; ++c) w.out[k + c] = to_byte(255.0f * (a > 0.0f ? std::min(1.0f, w.in[k + c] / a) : 0.0f));
            w.out[k + 3] = to_byte(255.0f * std::min(1.0f, a));
        }
    };
    if (work.band > 0) core::parallel::for_each(static_cast<std::ptrdiff_t>((work.size + work.band - 1) / work.band), band, &work);
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
