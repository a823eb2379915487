// app/window/window_events.h — what the frame loop learns from GLFW between frames: whether anything
// happened to the window (a key, a character, the mouse, the wheel, a resize, focus, an expose, a
// drop, the close box), and the key releases Dear ImGui 1.86 would miss.
//
// ImGui 1.86 reads each key as down or up when a frame starts (io.KeysDown), so a key pressed and
// released between two frames is never seen. A window that waits for events often gets a whole
// keystroke in one wait: the release is held back until a frame has seen the key down.
#pragma once

struct GLFWwindow;

namespace app {

// Counts every event of `window` from now on. Call before ImGui's GLFW back end is installed: it
// calls the callbacks it finds first, then its own.
void watch_events(GLFWwindow* window);
// Call after ImGui's GLFW back end is installed: key events reach it through hold_releases'
// callback, which holds back a release until a frame has seen the press.
void hold_releases(GLFWwindow* window);
// Call after ImGui::Render(): that frame saw the keys pressed before it, so their held releases go
// to ImGui now, for the next frame (and count as an event). Not during the frame: ImGui asserts
// that the modifier keys do not change between NewFrame() and Render().
void frame_ended(GLFWwindow* window);
// How many events so far: the frame loop draws when it changed.
unsigned long long events_seen();
// For callbacks set elsewhere (the drop callback): count this one.
void count_event();

} // namespace app
