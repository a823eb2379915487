#include "ui/fonts.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>

namespace ui {

namespace {

constexpr const char* font_dir = "/usr/share/fonts/truetype/dejavu/";

// Token names come from files: Latin Extended-A, Greek and Cyrillic as well as Latin-1. The
// panels draw these blocks beyond them.
constexpr ImWchar scripts_and_symbols[] = {
    0x0020, 0x00FF, // Basic Latin, Latin-1: · ×
    0x0100, 0x017F, // Latin Extended-A
    0x0370, 0x03FF, // Greek: Σ
    0x0400, 0x04FF, // Cyrillic
    0x1D00, 0x1D7F, // phonetic extensions: ᵀ
    0x2000, 0x206F, // punctuation: – — …
    0x2070, 0x209F, // super- and subscripts
    0x2190, 0x21FF, // arrows: → ↑ ↓
    0x2200, 0x22FF, // mathematical operators: − ∞ √ ≈ ‖
    0x2423, 0x2423, // open box ␣: a model token's leading space
    0x2500, 0x25FF, // box drawing, shapes: ▸ ●
    0x2713, 0x2717, // check marks: ✓ ✗
    0,
};

// ImGui asserts on a missing font file, so look before asking it.
ImFont* add_font_file(ImFontAtlas& atlas, const std::string& path, float pixels, const ImWchar* ranges) {
    if (!std::ifstream(path).good()) return nullptr;
    ImFontConfig config;
    config.OversampleH = config.OversampleV = 1;
    config.PixelSnapH = true;
    return atlas.AddFontFromFileTTF(path.c_str(), pixels, &config, ranges);
}

} // namespace

void build_fonts(ImFontAtlas& atlas, ImVector<ImWchar>& ranges, float pixels, std::ostream& err) {
    ImFontGlyphRangesBuilder builder;
    builder.AddRanges(scripts_and_symbols);
    builder.BuildRanges(&ranges);

    const std::string sans = std::string(font_dir) + "DejaVuSans.ttf";
    const std::string mono = std::string(font_dir) + "DejaVuSansMono.ttf";
    if (!add_font_file(atlas, sans, pixels, ranges.Data)) {
        err << "attnviz: warning: cannot load " << sans << ", using ImGui's built-in font (no Greek or math symbols)\n";
        ImFontConfig config;
        // A bitmap font, sharp at whole multiples of its 13 px only.
        config.SizePixels = 13.0f * std::max(1.0f, std::round(pixels / font_pixels));
        atlas.AddFontDefault(&config);
    } else if (!add_font_file(atlas, mono, pixels, ranges.Data)) {
        err << "attnviz: warning: cannot load " << mono << ", numbers use the proportional font\n";
    }
    atlas.Build();
}

} // namespace ui
