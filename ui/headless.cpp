// ui/headless.cpp
#include "ui/headless.h"

#include "ui/fonts.h"

#include <cfloat>

namespace ui {

HeadlessContext::HeadlessContext(ImVec2 display, std::ostream& err) {
    IMGUI_CHECKVERSION();
    context_ = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;
    io.DisplaySize = display;
    io.DeltaTime = 1.0f / 60.0f;
    build_fonts(*io.Fonts, glyph_ranges_, font_pixels, err);
    io.Fonts->SetTexID(reinterpret_cast<ImTextureID>(1)); // any non-null id: nothing samples it
    using namespace glfw_keys;
    const int keys[][2] = {{ImGuiKey_Tab, tab},         {ImGuiKey_LeftArrow, left},   {ImGuiKey_RightArrow, right},
                           {ImGuiKey_UpArrow, up},      {ImGuiKey_DownArrow, down},   {ImGuiKey_PageUp, page_up},
                           {ImGuiKey_PageDown, page_down}, {ImGuiKey_Home, home},     {ImGuiKey_End, end},
                           {ImGuiKey_Insert, insert},   {ImGuiKey_Delete, del},       {ImGuiKey_Backspace, backspace},
                           {ImGuiKey_Space, space},     {ImGuiKey_Enter, enter},      {ImGuiKey_Escape, escape},
                           {ImGuiKey_KeyPadEnter, keypad_enter}, {ImGuiKey_A, 'A'},   {ImGuiKey_C, 'C'},
                           {ImGuiKey_V, 'V'},           {ImGuiKey_X, 'X'},            {ImGuiKey_Y, 'Y'},
                           {ImGuiKey_Z, 'Z'}};
    for (const auto& k : keys) io.KeyMap[k[0]] = k[1];
    io.MousePos = ImVec2(-FLT_MAX, -FLT_MAX); // no mouse until a test or the monkey moves it
}

HeadlessContext::~HeadlessContext() { ImGui::DestroyContext(context_); }

} // namespace ui
