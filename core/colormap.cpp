#include "core/colormap.h"

#include <algorithm>
#include <array>
#include <cstddef>

namespace core {

namespace {

struct Stop { float r, g, b; };

// ImGui's float-to-byte rounding (IM_F32_TO_INT8_SAT).
std::uint8_t to_byte(float x) { return static_cast<std::uint8_t>(static_cast<int>(std::clamp(x, 0.0f, 1.0f) * 255.0f + 0.5f)); }

// The arithmetic of ui/widgets.cpp's lerp_stops, step for step, in the same precision.
Rgb lerp_stops(const Stop* stops, int count, double t) {
    t = std::clamp(t, 0.0, 1.0) * (count - 1);
    const int i = std::min(static_cast<int>(t), count - 2);
    const float f = static_cast<float>(t - i);
    const Stop& a = stops[i];
    const Stop& b = stops[i + 1];
    return {to_byte(a.r + (b.r - a.r) * f), to_byte(a.g + (b.g - a.g) * f), to_byte(a.b + (b.b - a.b) * f)};
}

Stop stop(float r, float g, float b) { return {r / 255.0f, g / 255.0f, b / 255.0f}; }

} // namespace

Rgb viridis(double t) {
    static const std::array<Rgb, 256> table = [] {
        const Stop stops[] = {stop(68, 1, 84),    stop(71, 45, 123),  stop(59, 82, 139),
                              stop(44, 114, 142), stop(33, 145, 140), stop(40, 174, 128),
                              stop(94, 201, 98),  stop(173, 220, 48), stop(253, 231, 37)};
        std::array<Rgb, 256> colors{};
        for (std::size_t k = 0; k < colors.size(); ++k) colors[k] = lerp_stops(stops, 9, static_cast<double>(k) / 255.0);
        return colors;
    }();
    return table[static_cast<std::size_t>(std::clamp(t, 0.0, 1.0) * 255.0 + 0.5)];
}

Rgb diverging(double t) {
    static const std::array<Rgb, 256> table = [] {
        const Stop stops[] = {stop(33, 102, 172), stop(146, 197, 222), stop(240, 240, 240), stop(244, 165, 130), stop(178, 24, 43)};
        std::array<Rgb, 256> colors{};
        for (std::size_t k = 0; k < colors.size(); ++k) colors[k] = lerp_stops(stops, 5, static_cast<double>(k) / 255.0);
        return colors;
    }();
    return table[static_cast<std::size_t>((std::clamp(t, -1.0, 1.0) + 1.0) / 2.0 * 255.0 + 0.5)];
}

Rgb masked_rgb() { return {64, 64, 64}; }

} // namespace core
