// ui/appearance.cpp — fonts at the display's scale, and the two themes.
#include "ui/appearance.h"

#include "ui/fonts.h"

namespace ui {

namespace {

// ImGui's light style made stronger for a projector: black text, white panels, dark borders and
// clearly tinted widgets, so nothing relies on a faint grey.
void light_high_contrast(ImGuiStyle& style) {
    ImGui::StyleColorsLight(&style);
    ImVec4* c = style.Colors;
    c[ImGuiCol_Text] = ImVec4(0.00f, 0.00f, 0.00f, 1.00f);
    c[ImGuiCol_TextDisabled] = ImVec4(0.30f, 0.30f, 0.30f, 1.00f);
    c[ImGuiCol_WindowBg] = ImVec4(1.00f, 1.00f, 1.00f, 1.00f);
    c[ImGuiCol_ChildBg] = ImVec4(1.00f, 1.00f, 1.00f, 0.00f);
    c[ImGuiCol_PopupBg] = ImVec4(1.00f, 1.00f, 1.00f, 1.00f);
    c[ImGuiCol_Border] = ImVec4(0.25f, 0.25f, 0.25f, 1.00f);
    c[ImGuiCol_FrameBg] = ImVec4(0.88f, 0.89f, 0.92f, 1.00f);
    c[ImGuiCol_FrameBgHovered] = ImVec4(0.76f, 0.84f, 0.96f, 1.00f);
    c[ImGuiCol_FrameBgActive] = ImVec4(0.64f, 0.76f, 0.95f, 1.00f);
    c[ImGuiCol_TitleBg] = ImVec4(0.80f, 0.82f, 0.86f, 1.00f);
    c[ImGuiCol_TitleBgActive] = ImVec4(0.62f, 0.72f, 0.88f, 1.00f);
    c[ImGuiCol_MenuBarBg] = ImVec4(0.90f, 0.90f, 0.92f, 1.00f);
    c[ImGuiCol_Button] = ImVec4(0.78f, 0.84f, 0.95f, 1.00f);
    c[ImGuiCol_ButtonHovered] = ImVec4(0.62f, 0.74f, 0.95f, 1.00f);
    c[ImGuiCol_ButtonActive] = ImVec4(0.45f, 0.62f, 0.92f, 1.00f);
    c[ImGuiCol_Header] = ImVec4(0.72f, 0.80f, 0.95f, 1.00f);
    c[ImGuiCol_CheckMark] = ImVec4(0.00f, 0.20f, 0.60f, 1.00f);
    c[ImGuiCol_Separator] = ImVec4(0.35f, 0.35f, 0.35f, 1.00f);
    c[ImGuiCol_TableBorderStrong] = ImVec4(0.35f, 0.35f, 0.40f, 1.00f);
    c[ImGuiCol_TableBorderLight] = ImVec4(0.60f, 0.60f, 0.65f, 1.00f);
    style.WindowBorderSize = style.FrameBorderSize = style.PopupBorderSize = 1.0f;
}

} // namespace

bool needs_new_fonts(const Appearance& before, const Appearance& after) { return before.factor() != after.factor(); }

void rebuild_fonts(ImFontAtlas& atlas, ImVector<ImWchar>& ranges, const Appearance& appearance, std::ostream& err) {
    atlas.Clear();
    ranges.clear();
    build_fonts(atlas, ranges, font_pixels * appearance.factor(), err);
}

void apply_style(const Appearance& appearance) {
    ImGuiStyle style;
    if (appearance.theme == core::io::Theme::light) light_high_contrast(style);
    else ImGui::StyleColorsDark(&style);
    style.ScaleAllSizes(appearance.factor());
    // The window draws lines with geometry, not the font atlas (see app/window/window.cpp).
    style.AntiAliasedLinesUseTex = ImGui::GetStyle().AntiAliasedLinesUseTex;
    ImGui::GetStyle() = style;
}

} // namespace ui
