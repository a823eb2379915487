// app/window/window.h — the GLFW/OpenGL 3.3 window around ui::App, and --screenshot.
//
// What the window gives the panels:
//   Fonts  ImGui::GetIO().Fonts->Fonts[0] is DejaVu Sans, the default font; Fonts[1] is DejaVu
//          Sans Mono, for numbers and matrices. Both are 1 em = 15 px × the monitor's content
//          scale, with Latin, Greek and the math symbols the panels print (√ · Σ ⊤ − ∞ ≈ → ← ▸ × ± …).
//          Without the DejaVu files there is only ImGui's built-in font, so pick the mono font with
//            ImFont* mono = io.Fonts->Fonts.Size > 1 ? io.Fonts->Fonts[1] : io.Fonts->Fonts[0];
//   Style  ImGui::GetStyle() is already scaled by the content scale: size things in em
//          (ImGui::GetFontSize()), never in pixels.
//   Layout saved in $XDG_CONFIG_HOME/attnviz/imgui.ini (~/.config/attnviz/imgui.ini); --screenshot
//          uses no layout file, so it always shows the default layout.
#pragma once

#include "app/options.h"

namespace app {

// Window mode: runs until the window is closed or the app quits. Screenshot mode: draws until the
// layout has settled, writes options.screenshot_path as a PNG of the framebuffer, and returns.
// Exit code 0; 1 when there is no display or no OpenGL 3.3; 2 for a bad file, an unknown --select
// row or a PNG that cannot be written (one line on stderr; file and row are checked before any
// window opens).
int run_window(const Options& options);

} // namespace app
