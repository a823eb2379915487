// app/window/window_events.cpp — see window_events.h.
#include "app/window/window_events.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>

#include <array>
#include <vector>

namespace app {

namespace {

// GLFW's callbacks carry no user data of ours (the window's user pointer is the App's), and the
// loop runs one window: the state is the file's.
unsigned long long events = 0;
std::array<bool, GLFW_KEY_LAST + 1> pressed_since_frame{};
struct Release {
    int key, scancode, mods;
};
std::vector<Release> held;

void on_any(GLFWwindow*) { ++events; }
void on_flag(GLFWwindow*, int) { ++events; }
void on_int_pair(GLFWwindow*, int, int) { ++events; }
void on_double_pair(GLFWwindow*, double, double) { ++events; }
void on_button(GLFWwindow*, int, int, int) { ++events; }
void on_char(GLFWwindow*, unsigned int) { ++events; }

void on_key(GLFWwindow* window, int key, int scancode, int action, int mods) {
    ++events;
    if (key >= 0 && key <= GLFW_KEY_LAST) {
        if (action == GLFW_PRESS) pressed_since_frame[static_cast<std::size_t>(key)] = true;
        if (action == GLFW_RELEASE && pressed_since_frame[static_cast<std::size_t>(key)]) {
            held.push_back({key, scancode, mods});
            return;
        }
    }
    ImGui_ImplGlfw_KeyCallback(window, key, scancode, action, mods);
}

} // namespace

void watch_events(GLFWwindow* window) {
    // Those ImGui's back end chains to (it installs its own over them and calls them first).
    glfwSetMouseButtonCallback(window, on_button);
    glfwSetScrollCallback(window, on_double_pair);
    glfwSetCharCallback(window, on_char);
    glfwSetWindowFocusCallback(window, on_flag);
    glfwSetCursorEnterCallback(window, on_flag);
    // Those it leaves alone.
    glfwSetCursorPosCallback(window, on_double_pair);
    glfwSetFramebufferSizeCallback(window, on_int_pair);
    glfwSetWindowSizeCallback(window, on_int_pair);
    glfwSetWindowRefreshCallback(window, on_any);
    glfwSetWindowIconifyCallback(window, on_flag);
    glfwSetWindowMaximizeCallback(window, on_flag);
    glfwSetWindowCloseCallback(window, on_any);
}

void hold_releases(GLFWwindow* window) { glfwSetKeyCallback(window, on_key); }

void frame_ended(GLFWwindow* window) {
    pressed_since_frame.fill(false);
    if (held.empty()) return;
    const std::vector<Release> releases = std::move(held);
    held.clear();
    for (const Release& r : releases) ImGui_ImplGlfw_KeyCallback(window, r.key, r.scancode, GLFW_RELEASE, r.mods);
    ++events;
}

unsigned long long events_seen() { return events; }
void count_event() { ++events; }

} // namespace app
