// ui/app_motion.cpp — App::motion(): what changes on screen with no input after a frame. The
// panels say what they show moving (View::motion); Dear ImGui's own timers and layout are read
// here, from its context as the frame left it.
#include "ui/app_state.h"
#include "ui/widgets.h"

#include <imgui.h>
#include <imgui_internal.h>

#include <cmath>

namespace ui {

namespace {

// ImGui's timers add up float seconds: wake a little after the moment they reach, never just before.
constexpr double late = 0.005;

// A held key or button: a drag, or ImGui's own repeat of a held key or button.
bool anything_held(const ImGuiIO& io) {
    for (bool down : io.MouseDown)
        if (down) return true;
    for (bool down : io.KeysDown)
        if (down) return true;
    return false;
}

// A window that is still being laid out: hidden for its first frames while it measures its
// content, fitting itself to it, or scrolling to a target set this frame.
bool windows_settling(const ImGuiContext& g) {
    for (const ImGuiWindow* w : g.Windows) {
        if (!w->Active && !w->WasActive) continue;
        if (w->HiddenFramesCanSkipItems > 0 || w->HiddenFramesCannotSkipItems > 0 || w->HiddenFramesForRenderOnly > 0) return true;
        if (w->AutoFitFramesX > 0 || w->AutoFitFramesY > 0) return true;
        if (w->ScrollTarget.x < FLT_MAX || w->ScrollTarget.y < FLT_MAX) return true;
    }
    return g.NavWindowingTarget != nullptr; // Ctrl+Tab's window list fades in
}

// The active text field's cursor blinks as ImGui 1.86 draws it (imgui_widgets.cpp): shown while
// its clock is ≤ 0 (just typed) and for the first 0.8 s of every 1.2 s; the next change is then.
double next_blink(const ImGuiContext& g) {
    if (!g.IO.ConfigInputTextCursorBlink || g.ActiveId == 0 || g.InputTextState.ID != g.ActiveId) return INFINITY;
    constexpr double shown = 0.8, period = 1.2;
    const double clock = g.InputTextState.CursorAnim;
    if (clock <= 0.0) return shown - clock;
    const double phase = std::fmod(clock, period);
    return phase < shown ? shown - phase : period - phase;
}

} // namespace

Motion App::motion() const {
    Motion m = state_->view.motion;
    const ImGuiContext& g = *ImGui::GetCurrentContext();
    if (anything_held(g.IO) || windows_settling(g)) m.moving = true;
    // tip() shows a tooltip once the pointer has rested on an item for tip_delay.
    if (g.HoveredId != 0 && g.HoveredIdTimer < tip_delay) m.wake_after(tip_delay - g.HoveredIdTimer + late);
    m.wake_after(next_blink(g) + late);
    // ImGui writes the layout file a while after a window moved or resized.
    if (g.SettingsDirtyTimer > 0.0f) m.wake_after(g.SettingsDirtyTimer + late);
    if (!state_->drops.queue.empty()) m.moving = true; // one dropped file a frame
    return m;
}

} // namespace ui
