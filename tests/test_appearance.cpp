// The display's scale and the user's zoom re-rasterise the fonts at the new size (sharp text, not
// stretched), scale every style size, and the theme changes the colours only.
#include "ui/appearance.h"
#include "ui/fonts.h"

#include <doctest/doctest.h>
#include <imgui.h>

#include <iostream>

namespace {

// A headless ImGui context with the window's fonts, as the window builds them at start.
struct Context {
    ImVector<ImWchar> ranges;
    Context() {
        ImGui::CreateContext();
        ImGui::GetIO().IniFilename = nullptr;
        ui::rebuild_fonts(*ImGui::GetIO().Fonts, ranges, ui::Appearance{}, std::cerr);
        ui::apply_style(ui::Appearance{});
    }
    ~Context() { ImGui::DestroyContext(); }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;
};

float advance_of(char c) { return ImGui::GetIO().Fonts->Fonts[0]->FindGlyph(static_cast<ImWchar>(c))->AdvanceX; }

} // namespace

TEST_CASE("appearance: a content-scale change re-rasterises the fonts at the new size") {
    Context context;
    ImFontAtlas& atlas = *ImGui::GetIO().Fonts;
    REQUIRE(atlas.Fonts.Size >= 1);
    const float size_at_1 = atlas.Fonts[0]->FontSize;
    const float advance_at_1 = advance_of('M');
    const int texels_at_1 = atlas.TexWidth * atlas.TexHeight;
    CHECK(size_at_1 == doctest::Approx(ui::font_pixels));

    const ui::Appearance before{}, after{2.0f, 100, core::io::Theme::dark}; // moved to a 200 % monitor
    REQUIRE(ui::needs_new_fonts(before, after));
    ui::rebuild_fonts(atlas, context.ranges, after, std::cerr);
    CHECK(atlas.Fonts[0]->FontSize == doctest::Approx(2.0f * ui::font_pixels));
    // Rasterised again, not scaled: the glyphs are twice as wide in the atlas, which needs
    // more texels (the atlas grows by powers of two), and nothing is stretched at draw time.
    CHECK(advance_of('M') == doctest::Approx(2.0f * advance_at_1).epsilon(0.1));
    CHECK(atlas.TexWidth * atlas.TexHeight >= 2 * texels_at_1);
    CHECK(ImGui::GetIO().FontGlobalScale == 1.0f);
    CHECK(atlas.Fonts[0]->Scale == 1.0f);

    // Zoom multiplies the monitor's scale: 150 % zoom on a 200 % monitor is 45 px text.
    ui::rebuild_fonts(atlas, context.ranges, ui::Appearance{2.0f, 150, core::io::Theme::dark}, std::cerr);
    CHECK(atlas.Fonts[0]->FontSize == doctest::Approx(3.0f * ui::font_pixels));
    if (atlas.Fonts.Size > 1) CHECK(atlas.Fonts[1]->FontSize == doctest::Approx(3.0f * ui::font_pixels));
}

TEST_CASE("appearance: the style's sizes follow the scale, and a theme change needs no new fonts") {
    Context context;
    const ImVec2 padding_at_1 = ImGui::GetStyle().FramePadding;
    const float dark_text = ImGui::GetStyle().Colors[ImGuiCol_Text].x;

    ui::apply_style(ui::Appearance{1.0f, 200, core::io::Theme::dark});
    CHECK(ImGui::GetStyle().FramePadding.x == doctest::Approx(2.0f * padding_at_1.x));
    ui::apply_style(ui::Appearance{1.0f, 200, core::io::Theme::dark}); // applying twice does not compound
    CHECK(ImGui::GetStyle().FramePadding.x == doctest::Approx(2.0f * padding_at_1.x));

    const ui::Appearance dark{1.0f, 100, core::io::Theme::dark}, light{1.0f, 100, core::io::Theme::light};
    CHECK_FALSE(ui::needs_new_fonts(dark, light));
    ui::apply_style(light);
    const ImVec4 text = ImGui::GetStyle().Colors[ImGuiCol_Text], bg = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    CHECK(dark_text > 0.8f);                      // dark theme: light text
    CHECK(text.x + text.y + text.z < 0.1f);       // light theme: black text
    CHECK(bg.x + bg.y + bg.z > 2.9f);             // on white
    CHECK(ImGui::GetStyle().FramePadding.x == doctest::Approx(padding_at_1.x));
}
