// ui/headless.h — an ImGui context with no window and no GPU, as `attnviz --monkey` and the tests
// run the UI: the window's fonts, no layout file, 60 frames a second, and ImGui's keys mapped to
// the numbers GLFW gives them in the window, so shortcuts and text fields read keys as they do there.
#pragma once

#include <imgui.h>

#include <iostream>

namespace ui {

// GLFW's numbers for the keys a headless run presses (letters are their upper-case ASCII codes).
namespace glfw_keys {
enum : int {
    space = 32, escape = 256, enter = 257, tab = 258, backspace = 259, insert = 260, del = 261, right = 262,
    left = 263, down = 264, up = 265, page_up = 266, page_down = 267, home = 268, end = 269, keypad_enter = 335
};
} // namespace glfw_keys

// Creates the context (made current) and destroys it with itself.
class HeadlessContext {
public:
    explicit HeadlessContext(ImVec2 display = ImVec2(1600, 1000), std::ostream& err = std::cerr);
    ~HeadlessContext();
    HeadlessContext(const HeadlessContext&) = delete;
    HeadlessContext& operator=(const HeadlessContext&) = delete;

private:
    ImGuiContext* context_ = nullptr;
    ImVector<ImWchar> glyph_ranges_; // the font atlas reads it when it is built
};

} // namespace ui
