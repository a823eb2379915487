// tests/png_pixels.h — a PNG file's pixels, decoded by stb_image, to check what a saved figure shows.
#pragma once

#include "core/colormap.h"

#include <doctest/doctest.h>
#include <stb_image.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

struct Decoded {
    int width = 0, height = 0;
    std::vector<std::uint8_t> rgb; // (height, width, 3)
    core::Rgb at(int x, int y) const {
        const std::uint8_t* p = &rgb[(static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) * 3];
        return {p[0], p[1], p[2]};
    }
    std::size_t count(core::Rgb c) const { // pixels of exactly this colour
        std::size_t n = 0;
        for (std::size_t k = 0; k + 2 < rgb.size(); k += 3) n += rgb[k] == c.r && rgb[k + 1] == c.g && rgb[k + 2] == c.b;
        return n;
    }
};

inline Decoded decode_png(const std::string& png) {
    Decoded d;
    int channels = 0;
    std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
        stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(png.data()), static_cast<int>(png.size()), &d.width, &d.height, &channels, 3),
        stbi_image_free);
    REQUIRE(pixels);
    d.rgb.assign(pixels.get(), pixels.get() + static_cast<std::size_t>(d.width) * static_cast<std::size_t>(d.height) * 3);
    return d;
}
