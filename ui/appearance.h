// ui/appearance.h — how big and in which colours the UI is drawn: the monitor's content scale
// (high-DPI), the user's zoom and the theme. The window applies it at start and whenever one of
// them changes (the window moved to another monitor, Ctrl+=, View ▸ Theme); the tests apply it to
// a headless context the same way.
#pragma once

#include "core/io/settings.h"

#include <imgui.h>

#include <ostream>

namespace ui {

struct Appearance {
    float content_scale = 1.0f; // glfwGetWindowContentScale: 2 on a 200 % monitor
    int zoom_percent = 100;     // the user's zoom, one of core::io::zoom_steps
    core::io::Theme theme = core::io::Theme::dark;

    // Pixels per unit of size at 100 %: 1 em = font_pixels × factor().
    float factor() const { return content_scale * static_cast<float>(zoom_percent) / 100.0f; }
    bool operator==(const Appearance& o) const {
        return content_scale == o.content_scale && zoom_percent == o.zoom_percent && theme == o.theme;
    }
    bool operator!=(const Appearance& o) const { return !(*this == o); }
};

// Whether the fonts must be rasterised again to go from `before` to `after` (the size changed);
// a theme change needs only apply_style.
bool needs_new_fonts(const Appearance& before, const Appearance& after);

// Clears `atlas` and rasterises the fonts again at font_pixels × factor(), so text is sharp at
// any scale (never stretched with FontGlobalScale). Call between frames; the renderer must then
// upload the atlas again. `ranges` as for build_fonts.
void rebuild_fonts(ImFontAtlas& atlas, ImVector<ImWchar>& ranges, const Appearance& appearance, std::ostream& err);

// Replaces ImGui's style with the theme's colours and every size scaled by factor().
void apply_style(const Appearance& appearance);

} // namespace ui
