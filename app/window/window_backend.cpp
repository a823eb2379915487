// app/window/window_backend.cpp — see window_backend.h.
//
// [SECTION] Window and OpenGL
// [SECTION] Fonts and DPI
// [SECTION] Dear ImGui on the window
#include "app/window/window_backend.h"

#include "app/window/window_events.h"
#include "core/assets.h"
#include "ui/fonts.h"

#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stb_image.h>

#include <algorithm>
#include <iostream>
#include <vector>

namespace app {

Backend::~Backend() {
    if (imgui_opengl_up) ImGui_ImplOpenGL3_Shutdown();
    if (imgui_glfw_up) ImGui_ImplGlfw_Shutdown();
    if (imgui) ImGui::DestroyContext(imgui); // also saves the layout
    fonts.reset();
    if (window) glfwDestroyWindow(window);
    if (glfw_up) glfwTerminate();
}

//-----------------------------------------------------------------------------
// [SECTION] Window and OpenGL
//-----------------------------------------------------------------------------

namespace {

// GLFW reports the reason for a failure only to this callback, which has no user pointer.
std::string last_glfw_error = "no reason given";
void remember_glfw_error(int, const char* description) { last_glfw_error = description; }

// Puts the window, its frame (title bar, borders) included, in the rectangle `place`.
void fit_frame(GLFWwindow* window, const core::io::WindowGeometry& place) {
    int left = 0, top = 0, right = 0, bottom = 0;
    glfwGetWindowFrameSize(window, &left, &top, &right, &bottom);
    glfwSetWindowPos(window, place.x + left, place.y + top);
    if (left + right + top + bottom > 0)
        glfwSetWindowSize(window, std::max(200, place.width - left - right), std::max(150, place.height - top - bottom));
}

// The shipped icon (assets/icons) at the sizes a window manager picks from; none when missing.
void set_window_icon(GLFWwindow* window) {
    std::vector<GLFWimage> images;
    std::vector<std::unique_ptr<unsigned char, void (*)(void*)>> pixels;
    for (const char* name : {"icons/attnviz-48.png", "icons/attnviz-128.png", "icons/attnviz-256.png"}) {
        GLFWimage image{};
        int channels = 0;
        unsigned char* rgba = stbi_load(core::asset_path(name).c_str(), &image.width, &image.height, &channels, 4);
        if (!rgba) continue;
        pixels.emplace_back(rgba, stbi_image_free);
        image.pixels = rgba;
        images.push_back(image);
    }
    if (!images.empty()) glfwSetWindowIcon(window, static_cast<int>(images.size()), images.data());
}

} // namespace

bool start_glfw(Backend& b, std::ostream& err) {
    glfwSetErrorCallback(remember_glfw_error);
    if (!glfwInit()) {
        err << "attnviz: cannot open a window: " << last_glfw_error << " (the text modes need none: see --help)\n";
        return false;
    }
    b.glfw_up = true;
    return true;
}

bool open_window(Backend& b, const std::string& title, const core::io::WindowGeometry& place, std::ostream& err) {
    glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
    glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
    glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
    glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
    // Placed and sized before it is shown, so it never flashes at another size.
    glfwWindowHint(GLFW_VISIBLE, GLFW_FALSE);
    // ImGui draws in 2D with blending only: no depth or stencil buffer (6 MB at 1600 × 1000).
    glfwWindowHint(GLFW_DEPTH_BITS, 0);
    glfwWindowHint(GLFW_STENCIL_BITS, 0);
    // The class the launcher's StartupWMClass names (packaging/attnviz.desktop).
    glfwWindowHintString(GLFW_X11_CLASS_NAME, "attnviz");
    glfwWindowHintString(GLFW_X11_INSTANCE_NAME, "attnviz");
    b.window = glfwCreateWindow(place.width, place.height, title.c_str(), nullptr, nullptr);
    if (!b.window) {
        err << "attnviz: cannot create an OpenGL 3.3 core window: " << last_glfw_error << "\n";
        return false;
    }
    fit_frame(b.window, place);
    glfwShowWindow(b.window);
    if (place.maximized) glfwMaximizeWindow(b.window);
    set_window_icon(b.window);
    glfwMakeContextCurrent(b.window);
    glfwSwapInterval(1); // vsync
    if (!gladLoadGL(glfwGetProcAddress)) {
        err << "attnviz: cannot load the OpenGL 3.3 functions\n";
        return false;
    }
    return true;
}

//-----------------------------------------------------------------------------
// [SECTION] Fonts and DPI
//-----------------------------------------------------------------------------

namespace {

// Samples the font atlas OpenGL holds with GL_NEAREST and frees the CPU copy. Unfiltered
// sampling is ~40% less work per pixel for a software rasteriser and changes nothing on screen for
// glyphs drawn texel for pixel (ui/fonts.h); ImGui's textured anti-aliased lines are the one thing
// that needs bilinear filtering, so lines are anti-aliased with geometry instead (ui::apply_style
// keeps that).
void finish_font_texture() {
    ImGuiIO& io = ImGui::GetIO();
    glBindTexture(GL_TEXTURE_2D, gl_name(io.Fonts->TexID));
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glBindTexture(GL_TEXTURE_2D, 0);
    io.Fonts->ClearTexData();
    ImGui::GetStyle().AntiAliasedLinesUseTex = false;
}

// The renderer's shaders and buffers, and the first font atlas.
void upload_device_objects() {
    ImGui_ImplOpenGL3_CreateDeviceObjects();
    finish_font_texture();
}


// The window's content scale, kept up to date by GLFW's callback (the window moved to a monitor
// of another scale, or the desktop's scale changed). GLFW calls back without a user pointer here.
float window_scale = 1.0f;
void remember_content_scale(GLFWwindow*, float x, float) { window_scale = x > 0.0f ? x : 1.0f; }


} // namespace

float monitor_scale() {
    float x = 1.0f, y = 1.0f;
    if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) glfwGetMonitorContentScale(monitor, &x, &y);
    return x > 0.0f ? x : 1.0f;
}

float content_scale() { return window_scale; }

void apply_appearance(Backend& b, const ui::Appearance& wanted) {
    if (wanted == b.appearance) return;
    if (ui::needs_new_fonts(b.appearance, wanted)) {
        ImGui_ImplOpenGL3_DestroyFontsTexture();
        ui::rebuild_fonts(*b.fonts, b.glyph_ranges, wanted, std::cerr);
        ImGui_ImplOpenGL3_CreateFontsTexture();
        finish_font_texture();
    }
    ui::apply_style(wanted);
    b.appearance = wanted;
}

//-----------------------------------------------------------------------------
// [SECTION] Dear ImGui on the window
//-----------------------------------------------------------------------------

void start_imgui(Backend& b, const std::string& ini_path) {
    IMGUI_CHECKVERSION();
    b.imgui = ImGui::CreateContext(b.fonts.get());
    ImGuiIO& io = ImGui::GetIO();
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    b.ini_path = ini_path;
    io.IniFilename = b.ini_path.empty() ? nullptr : b.ini_path.c_str();
    ui::apply_style(b.appearance);
    glfwGetWindowContentScale(b.window, &window_scale, nullptr);
    glfwSetWindowContentScaleCallback(b.window, remember_content_scale);
    watch_events(b.window); // before the back end, which calls these first
    b.imgui_glfw_up = ImGui_ImplGlfw_InitForOpenGL(b.window, true);
    hold_releases(b.window);
    b.imgui_opengl_up = ImGui_ImplOpenGL3_Init("#version 330 core");
    if (b.imgui_opengl_up) upload_device_objects();
}

} // namespace app
