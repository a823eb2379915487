// ui/fonts.h — the fonts of every ImGui context attnviz makes: the window's, the monkey's and the
// headless tests', so that all three lay the panels out with the same glyphs.
#pragma once

#include <imgui.h>

#include <ostream>

namespace ui {

// 1 em in pixels at content scale 1.
constexpr float font_pixels = 15.0f;

// Adds Fonts[0] DejaVu Sans and Fonts[1] DejaVu Sans Mono (numbers, matrices) at `pixels`, with
// Latin, Greek, Cyrillic and the symbols the panels print (√ · Σ ᵀ − ∞ ≈ → ▸ × ± …), and builds the
// atlas. Glyphs are rasterised at their final size and snapped to whole pixels, so the atlas maps
// texel for pixel and can be sampled without filtering. Without the DejaVu files: ImGui's
// built-in font and a warning on `err`. `ranges` receives the glyph ranges; keep it as long as
// the atlas.
void build_fonts(ImFontAtlas& atlas, ImVector<ImWchar>& ranges, float pixels, std::ostream& err);

} // namespace ui
