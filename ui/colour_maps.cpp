// ui/colour_maps.cpp — tables for viridis, cividis and the diverging maps.
#include "ui/colour_maps.h"

#include <algorithm>
#include <array>

namespace ui {

namespace {

struct Rgb {
    float r, g, b;
};

using Table = std::array<ImU32, 256>;

// 256 colours linearly interpolated between evenly spaced stops.
template <std::size_t N>
Table make_table(const std::array<Rgb, N>& stops) {
    Table table{};
    for (std::size_t k = 0; k < table.size(); ++k) {
        const float t = static_cast<float>(k) / 255.0f * static_cast<float>(N - 1);
        const std::size_t i = std::min(static_cast<std::size_t>(t), N - 2);
        const float f = t - static_cast<float>(i);
        const Rgb& a = stops[i];
        const Rgb& b = stops[i + 1];
        table[k] = IM_COL32(static_cast<int>(a.r + (b.r - a.r) * f + 0.5f), static_cast<int>(a.g + (b.g - a.g) * f + 0.5f),
                            static_cast<int>(a.b + (b.b - a.b) * f + 0.5f), 255);
    }
    return table;
}

// Samples of the published maps at 0, 1/8, …, 1.
const Table viridis = make_table(std::array<Rgb, 9>{{{68, 1, 84}, {71, 45, 123}, {59, 82, 139}, {44, 114, 142}, {33, 145, 140},
                                                     {40, 174, 128}, {94, 201, 98}, {173, 220, 48}, {253, 231, 37}}});
const Table cividis = make_table(std::array<Rgb, 9>{{{0, 34, 78}, {18, 53, 112}, {59, 73, 108}, {87, 93, 109}, {112, 113, 115},
                                                     {138, 135, 121}, {166, 157, 117}, {196, 181, 102}, {254, 232, 56}}});
// Diverging: negative, its pale side, the middle, positive's pale side, positive. On the dark
// theme the middle is a dark grey near the panel background; on the light theme, near white.
const Table blue_red_dark = make_table(std::array<Rgb, 5>{{{59, 96, 222}, {52, 62, 104}, {46, 46, 52}, {120, 44, 52}, {214, 47, 47}}});
const Table blue_red_light = make_table(std::array<Rgb, 5>{{{33, 102, 172}, {146, 197, 222}, {240, 240, 240}, {244, 165, 130}, {178, 24, 43}}});
const Table purple_orange_dark = make_table(std::array<Rgb, 5>{{{142, 110, 214}, {76, 62, 110}, {46, 46, 52}, {122, 76, 30}, {236, 140, 32}}});
const Table purple_orange_light = make_table(std::array<Rgb, 5>{{{84, 39, 136}, {178, 171, 210}, {240, 240, 240}, {253, 184, 99}, {179, 88, 6}}});

ColourMaps current;

ImU32 look_up(const Table& table, double t) { return table[static_cast<std::size_t>(std::clamp(t, 0.0, 1.0) * 255.0 + 0.5)]; }

} // namespace

void use_colour_maps(const ColourMaps& maps) { current = maps; }
const ColourMaps& colour_maps() { return current; }

ImU32 weights_colour(double t) { return look_up(current.weights == core::io::WeightsMap::cividis ? cividis : viridis, t); }

ImU32 signed_colour(double t) {
    const bool light = current.theme == core::io::Theme::light;
    const Table& table = current.signed_map == core::io::SignedMap::purple_orange ? (light ? purple_orange_light : purple_orange_dark)
                                                                              : (light ? blue_red_light : blue_red_dark);
    return look_up(table, (t + 1.0) / 2.0);
}

void put_rgba(unsigned char* rgba, ImU32 c) {
    rgba[0] = static_cast<unsigned char>(c >> IM_COL32_R_SHIFT);
    rgba[1] = static_cast<unsigned char>(c >> IM_COL32_G_SHIFT);
    rgba[2] = static_cast<unsigned char>(c >> IM_COL32_B_SHIFT);
    rgba[3] = 255;
}

} // namespace ui
