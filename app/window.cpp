// app/window.cpp — the GLFW/OpenGL 3.3 window around ui::App, shaped like Dear ImGui's
// example_glfw_opengl3/main.cpp: set up, loop, tear down.

// Index of this file:
// [SECTION] Includes and constants
// [SECTION] Backend state
// [SECTION] Window and OpenGL
// [SECTION] Fonts and DPI
// [SECTION] Settings and window geometry
// [SECTION] Layout file
// [SECTION] Textures for the panels
// [SECTION] Screenshot
// [SECTION] Autosave
// [SECTION] Launch: what the window shows, decided before it opens
// [SECTION] Window set-up
// [SECTION] One frame
// [SECTION] The screenshot path
// [SECTION] The bench path
// [SECTION] The frame loop
// [SECTION] run_window

//-----------------------------------------------------------------------------
// [SECTION] Includes and constants
//-----------------------------------------------------------------------------

#include "app/window.h"

#include "app/autosave.h"
#include "app/cli_attention.h"
#include "core/assets.h"
#include "core/io/settings.h"
#include "core/presets.h"
#include "core/scenario.h"
#include "core/io/files.h"
#include "ui/appearance.h"
#include "ui/fonts.h"
#include "ui/app_state.h"
#include "ui/panels/attention.h"
#include "ui/ui.h"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE // glad provides the GL declarations
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>
#include <stb_image.h>
#include <stb_image_write.h>

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace app {
namespace {

// --bench-frames' window, in screen coordinates, so its figures compare across machines; every
// other window fills the monitor's work area or takes its last place (first_placement).
constexpr int bench_width = 1600;
constexpr int bench_height = 1000;
// ImGui auto-sizes windows over a few frames; --screenshot waits at least this long.
constexpr int screenshot_min_frames = 8;
constexpr int screenshot_max_frames = 60;

//-----------------------------------------------------------------------------
// [SECTION] Backend state
//-----------------------------------------------------------------------------

// Everything the window sets up; the destructor takes down what was set up, in reverse order.
struct Backend {
    bool glfw_up = false;
    GLFWwindow* window = nullptr;
    ImGuiContext* imgui = nullptr;
    bool imgui_glfw_up = false;
    bool imgui_opengl_up = false;
    std::string ini_path;           // io.IniFilename points into it
    ui::Appearance appearance;      // what the fonts and the style were last made for
    ImVector<ImWchar> glyph_ranges; // the font atlas reads it when it is built
    std::unique_ptr<ImFontAtlas> fonts; // built before the context, which shares it

    Backend() = default;
    Backend(const Backend&) = delete;
    Backend& operator=(const Backend&) = delete;
    ~Backend() {
        if (imgui_opengl_up) ImGui_ImplOpenGL3_Shutdown();
        if (imgui_glfw_up) ImGui_ImplGlfw_Shutdown();
        if (imgui) ImGui::DestroyContext(imgui); // also saves the layout
        fonts.reset();
        if (window) glfwDestroyWindow(window);
        if (glfw_up) glfwTerminate();
    }
};

//-----------------------------------------------------------------------------
// [SECTION] Window and OpenGL
//-----------------------------------------------------------------------------

// GLFW reports the reason for a failure only to this callback, which has no user pointer.
std::string last_glfw_error = "no reason given";
void remember_glfw_error(int, const char* description) { last_glfw_error = description; }

bool start_glfw(Backend& b, std::ostream& err) {
    glfwSetErrorCallback(remember_glfw_error);
    if (!glfwInit()) {
        err << "attnviz: cannot open a window: " << last_glfw_error << " (the text modes need none: see --help)\n";
        return false;
    }
    b.glfw_up = true;
    return true;
}

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

GLuint gl_name(ImTextureID id) { return static_cast<GLuint>(reinterpret_cast<std::intptr_t>(id)); }
ImTextureID imgui_id(GLuint name) { return reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(name)); }

// The primary monitor's content scale: the first fonts are built for it while the window opens.
float monitor_scale() {
    float x = 1.0f, y = 1.0f;
    if (GLFWmonitor* monitor = glfwGetPrimaryMonitor()) glfwGetMonitorContentScale(monitor, &x, &y);
    return x > 0.0f ? x : 1.0f;
}

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

// Makes the fonts and the style match `wanted`, between frames: fonts are rasterised again only
// when the size changed, then sent to OpenGL in place of the old atlas.
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
// [SECTION] Settings and window geometry
//-----------------------------------------------------------------------------

// The settings file's contents; its problems (a bad value, an unknown key) go to stderr once.
core::io::Settings read_settings(const std::string& path) {
    std::vector<std::string> problems;
    core::io::Settings settings = core::io::load_settings(path, problems);
    for (const std::string& problem : problems) std::cerr << "attnviz: warning: " << problem << "\n";
    return settings;
}

void write_settings(const std::string& path, const core::io::Settings& settings) {
    if (path.empty()) return;
    try {
        core::io::save_settings(path, settings);
    } catch (const std::exception& e) {
        std::cerr << "attnviz: warning: settings not saved: " << e.what() << "\n";
    }
}

core::io::WindowGeometry work_area(GLFWmonitor* monitor) {
    core::io::WindowGeometry area{0, 0, bench_width, bench_height, false};
    if (monitor) glfwGetMonitorWorkarea(monitor, &area.x, &area.y, &area.width, &area.height);
    if (area.width <= 0 || area.height <= 0) area = {0, 0, bench_width, bench_height, false};
    return area;
}

// The first window: where it was last time if its title bar is still on a monitor (clipped to that
// monitor's work area), else the whole work area of the primary monitor, so a 1280 × 720 projector
// shows every panel as a 4K screen does.
core::io::WindowGeometry first_placement(const std::optional<core::io::WindowGeometry>& saved) {
    if (saved) {
        int count = 0;
        GLFWmonitor** monitors = glfwGetMonitors(&count);
        for (int i = 0; i < count; ++i) {
            const core::io::WindowGeometry a = work_area(monitors[i]);
            const int grip_x = saved->x + std::min(saved->width / 2, 100), grip_y = saved->y + 10;
            if (grip_x < a.x || grip_x >= a.x + a.width || grip_y < a.y || grip_y >= a.y + a.height) continue;
            core::io::WindowGeometry g = *saved;
            g.width = std::min(g.width, a.x + a.width - g.x);
            g.height = std::min(g.height, a.y + a.height - g.y);
            return g;
        }
    }
    return work_area(glfwGetPrimaryMonitor());
}

// Per frame: the title follows the file and its unsaved changes, and settings changed in the
// menus are saved at once (the window's geometry is added at exit).
struct DesktopState {
    std::string title; // the App's title as last set (the --attention viewer keeps its own until then)
    std::string settings_file;
    core::io::Settings saved; // as last written
};

void keep_in_step(GLFWwindow* window, ui::App& app, DesktopState& d) {
    if (std::string title = app.window_title(); title != d.title) {
        glfwSetWindowTitle(window, title.c_str());
        d.title = std::move(title);
    }
    if (!d.settings_file.empty() && app.settings() != d.saved) {
        write_settings(d.settings_file, app.settings());
        d.saved = app.settings();
    }
}

// Where the window is now, to open there next time (its size before it was maximized is not
// known to GLFW, so a maximized window keeps the last size it had otherwise).
void remember_geometry(GLFWwindow* window, core::io::Settings& settings) {
    const bool maximized = glfwGetWindowAttrib(window, GLFW_MAXIMIZED) == GLFW_TRUE;
    core::io::WindowGeometry g = settings.window.value_or(core::io::WindowGeometry{});
    g.maximized = maximized;
    if (!maximized || !settings.window) { // the outer rectangle, frame included, as fit_frame takes it
        int left = 0, top = 0, right = 0, bottom = 0;
        glfwGetWindowFrameSize(window, &left, &top, &right, &bottom);
        glfwGetWindowPos(window, &g.x, &g.y);
        glfwGetWindowSize(window, &g.width, &g.height);
        g.x -= left, g.y -= top, g.width += left + right, g.height += top + bottom;
    }
    settings.window = g;
}

//-----------------------------------------------------------------------------
// [SECTION] Layout file
//-----------------------------------------------------------------------------

// $XDG_CONFIG_HOME/attnviz/imgui.ini, else ~/.config/attnviz/imgui.ini, creating the directory;
// empty (no saved layout) when there is neither or the directory cannot be made.
std::string layout_file(std::ostream& err) {
    namespace fs = std::filesystem;
    fs::path dir;
    const char* xdg = std::getenv("XDG_CONFIG_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && xdg[0] == '/') dir = xdg; // the XDG spec says to ignore a relative path
    else if (home && home[0]) dir = fs::path(home) / ".config";
    else return {};
    dir /= "attnviz";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        err << "attnviz: warning: cannot create " << dir.string() << " (" << ec.message() << "), the layout will not be saved\n";
        return {};
    }
    return (dir / "imgui.ini").string();
}

//-----------------------------------------------------------------------------
// [SECTION] Textures for the panels
//-----------------------------------------------------------------------------

// RGBA8 textures with nearest filtering, so magnified heatmap cells stay sharp squares.
class GlTextures final : public ui::TextureUploader {
public:
    GlTextures() = default;
    GlTextures(const GlTextures&) = delete;
    GlTextures& operator=(const GlTextures&) = delete;
    ~GlTextures() override {
        for (const auto& texture : widths_) glDeleteTextures(1, &texture.first);
    }

    ImTextureID create(int width, int height) override {
        GLuint name = 0;
        glGenTextures(1, &name);
        glBindTexture(GL_TEXTURE_2D, name);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, width, height, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
        widths_.emplace(name, width);
        return imgui_id(name);
    }

    void write_rows(ImTextureID texture, int first, int rows, const unsigned char* rgba) override {
        const auto known = widths_.find(gl_name(texture));
        if (known == widths_.end()) return;
        glBindTexture(GL_TEXTURE_2D, known->first);
        glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
        glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, first, known->second, rows, GL_RGBA, GL_UNSIGNED_BYTE, rgba);
    }

    void release(ImTextureID texture) override {
        const auto known = widths_.find(gl_name(texture));
        if (known == widths_.end()) return;
        glDeleteTextures(1, &known->first);
        widths_.erase(known);
    }

private:
    std::unordered_map<GLuint, int> widths_; // every live texture and its width in texels
};

//-----------------------------------------------------------------------------
// [SECTION] Screenshot
//-----------------------------------------------------------------------------

// Tells when the layout has settled: at least screenshot_min_frames, then two frames in a row
// that draw exactly the same vertices (or screenshot_max_frames, if something keeps moving).
class Settling {
public:
    bool done(const ImDrawData& draw_data) {
        const std::uint64_t now = fingerprint(draw_data);
        const bool same = frames_ > 0 && now == last_;
        last_ = now;
        ++frames_;
        return (frames_ >= screenshot_min_frames && same) || frames_ >= screenshot_max_frames;
    }

private:
    static std::uint64_t fingerprint(const ImDrawData& d) { // FNV-1a of every vertex and index
        std::uint64_t h = 14695981039346656037ull;
        const auto mix = [&h](const void* data, int bytes) {
            const auto* p = static_cast<const unsigned char*>(data);
            for (int i = 0; i < bytes; ++i) h = (h ^ p[i]) * 1099511628211ull;
        };
        for (int i = 0; i < d.CmdListsCount; ++i) {
            mix(d.CmdLists[i]->VtxBuffer.Data, d.CmdLists[i]->VtxBuffer.size_in_bytes());
            mix(d.CmdLists[i]->IdxBuffer.Data, d.CmdLists[i]->IdxBuffer.size_in_bytes());
        }
        return h;
    }

    int frames_ = 0;
    std::uint64_t last_ = 0;
};

// Reads the back buffer (what is about to be shown) and writes it as a PNG, atomically.
bool save_screenshot(const std::string& path, int width, int height, std::ostream& err) {
    const std::size_t row_bytes = static_cast<std::size_t>(width) * 4;
    std::vector<unsigned char> rgba(row_bytes * static_cast<std::size_t>(height));
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadBuffer(GL_BACK);
    glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, rgba.data());
    // OpenGL's rows run bottom-up, PNG's top-down.
    for (int y = 0; y < height / 2; ++y)
        std::swap_ranges(rgba.begin() + static_cast<std::ptrdiff_t>(row_bytes) * y,
                         rgba.begin() + static_cast<std::ptrdiff_t>(row_bytes) * (y + 1),
                         rgba.begin() + static_cast<std::ptrdiff_t>(row_bytes) * (height - 1 - y));
    // The default framebuffer may have no alpha channel; the picture of a window is opaque.
    for (std::size_t i = 3; i < rgba.size(); i += 4) rgba[i] = 255;

    // Encode in memory, then let core write a temporary file and rename it over `path`.
    std::string png;
    const auto append = [](void* context, void* data, int size) {
        static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
    };
    if (!stbi_write_png_to_func(append, &png, width, height, 4, rgba.data(), static_cast<int>(row_bytes))) {
        err << "attnviz: " << path << ": cannot encode the PNG\n";
        return false;
    }
    try {
        core::io::write_file_atomically(path, png);
    } catch (const core::io::WriteError& e) {
        err << "attnviz: " << e.what() << "\n";
        return false;
    }
    return true;
}

//-----------------------------------------------------------------------------
// [SECTION] Autosave
//-----------------------------------------------------------------------------

// A failing save is retried every second: say so once, and again when the reason changes.
void report_save_problem(const std::string& problem, std::string& last_reported, std::ostream& err) {
    if (problem.empty() || problem == last_reported) return;
    err << "attnviz: " << problem << "\n";
    last_reported = problem;
}

//-----------------------------------------------------------------------------
// [SECTION] Launch: what the window shows, decided before it opens
//-----------------------------------------------------------------------------

struct Launch {
    bool screenshot = false;
    bool bench = false;     // --bench-frames: a random scenario, no vsync, no layout file, no autosave
    bool attention = false; // --attention: a model's weights alone, and no session or layout
    core::Scenario scenario;
    std::optional<Autosave> autosave; // guards against crashes; --screenshot and --bench-frames leave it alone
    std::string restore_notice;
    bool offer_default = false;
    int row = -1; // --select
    std::string settings_file;
    core::io::Settings settings;
};

// The scenario, the session and the settings. A bad file or --select row fails exactly as in the
// text modes, before any window opens: false, with the exit code in `code`.
bool prepare_launch(const Options& options, Launch& l, int& code) {
    code = 2;
    l.screenshot = options.mode == Options::Mode::screenshot;
    l.bench = options.mode == Options::Mode::bench_frames;
    l.attention = !options.attention_file.empty();
    if (l.bench && !l.attention) l.scenario = core::bench_scenario(options.tokens, options.dim);
    else if (!load_scenario(options, l.scenario, std::cerr)) return false;
    // Without a FILE the window starts where the last session ended, and says so.
    if (!l.screenshot && !l.bench && !l.attention) l.autosave.emplace(default_session_path());
    if (l.autosave && options.file.empty() && options.lesson.empty()) { // a lesson brings its own scenario
        Start start = choose_start(*l.autosave, std::move(l.scenario));
        l.scenario = std::move(start.scenario);
        l.restore_notice = std::move(start.notice);
        l.offer_default = start.offer_default;
    }
    l.row = options.row.empty() ? -1 : row_of(options, l.scenario, std::cerr);
    if (!options.row.empty() && l.row < 0) return false;

    // --screenshot and --bench-frames read no settings (as they read no layout), so their pictures
    // and figures do not depend on the machine's user; --theme and --zoom apply to every mode.
    l.settings_file = l.screenshot || l.bench ? std::string() : core::io::settings_path();
    l.settings = read_settings(l.settings_file);
    if (!options.theme.empty()) l.settings.theme = options.theme == "light" ? core::io::Theme::light : core::io::Theme::dark;
    if (options.zoom_percent) l.settings.zoom_percent = options.zoom_percent;
    return true;
}

//-----------------------------------------------------------------------------
// [SECTION] Window set-up
//-----------------------------------------------------------------------------

// Everything the frame loop draws with, taken down in reverse order: the viewer's textures go
// first, then the App's, then the GL context with the window.
struct Desktop {
    Backend backend;
    GlTextures textures;
    std::unique_ptr<ui::App> app;
    ui::AttentionView viewer; // --attention
    bool attention = false;
    bool unattended = false;  // --screenshot, --bench-frames: nothing is hovered, the close box ends the run
    int width = 0, height = 0; // of the framebuffer last drawn
};

// Opens the window with the fonts, the App and the ImGui context. Opening it (X, GLX and Mesa
// loading LLVM) is most of the time to the first frame and keeps one core busy; the fonts and the
// first Result need no window, so a helper makes them meanwhile on the other. False: exit code 1.
bool open_desktop(const Options& options, Launch& l, Desktop& d) {
    Backend& backend = d.backend;
    if (!start_glfw(backend, std::cerr)) return false;
    backend.appearance = {monitor_scale(), l.settings.zoom_percent, l.settings.theme};
    const ui::Appearance first_look = backend.appearance;
    struct Prepared {
        std::unique_ptr<ImFontAtlas> fonts = std::make_unique<ImFontAtlas>();
        std::unique_ptr<ui::App> app;
    };
    std::future<Prepared> preparing = std::async(std::launch::async, [&] {
        Prepared p;
        ui::rebuild_fonts(*p.fonts, backend.glyph_ranges, first_look, std::cerr);
        p.app = std::make_unique<ui::App>(std::move(l.scenario), d.textures, options.file);
        return p;
    });
    const std::string shown_file = l.attention ? options.attention_file : options.file;
    const std::string title = shown_file.empty() ? "attnviz" : "attnviz — " + std::filesystem::path(shown_file).filename().string();
    const core::io::WindowGeometry place = l.bench ? core::io::WindowGeometry{0, 0, bench_width, bench_height, false}
                                               : first_placement(l.screenshot ? std::nullopt : l.settings.window);
    const bool window_open = open_window(backend, title, place, std::cerr);
    Prepared prepared = preparing.get();
    backend.fonts = std::move(prepared.fonts);
    d.app = std::move(prepared.app);
    if (!window_open) return false;
    if (l.bench) glfwSwapInterval(0);

    IMGUI_CHECKVERSION();
    backend.imgui = ImGui::CreateContext(backend.fonts.get());
    ImGuiIO& io = ImGui::GetIO();
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    // --screenshot always shows the default layout: it neither reads nor writes the layout file.
    backend.ini_path = l.screenshot || l.bench || l.attention ? std::string() : layout_file(std::cerr);
    io.IniFilename = backend.ini_path.empty() ? nullptr : backend.ini_path.c_str();
    ui::apply_style(backend.appearance);
    glfwGetWindowContentScale(backend.window, &window_scale, nullptr);
    glfwSetWindowContentScaleCallback(backend.window, remember_content_scale);
    backend.imgui_glfw_up = ImGui_ImplGlfw_InitForOpenGL(backend.window, true);
    backend.imgui_opengl_up = ImGui_ImplOpenGL3_Init("#version 330 core");
    if (backend.imgui_opengl_up) upload_device_objects();
    d.attention = l.attention;
    d.unattended = l.screenshot || l.bench;
    return true;
}

// The App's settings, selection, notice and lesson, or the viewer's file. False: exit code 2.
bool start_content(const Options& options, const Launch& l, Desktop& d) {
    ui::App& app = *d.app;
    app.settings() = l.settings;
    app.set_file_locations({l.autosave ? l.autosave->path() : default_session_path(), l.settings_file, d.backend.ini_path});
    if (l.attention && !d.viewer.open(options.attention_file, options.labels_file)) {
        std::cerr << "attnviz: " << d.viewer.error << "\n";
        return false;
    }
    if (l.row >= 0) app.select_row(l.row);
    if (!l.restore_notice.empty()) app.notify_restored(l.restore_notice, l.offer_default);
    if (options.lesson.empty()) return true;
    // --screenshot neither reads nor writes the learner's progress: it shows the step as it opens.
    std::string problem;
    if (!app.open_lesson(options.lesson, options.lesson_step, !l.screenshot, problem)) {
        std::cerr << "attnviz: " << problem << "\n";
        return false;
    }
    return true;
}

//-----------------------------------------------------------------------------
// [SECTION] One frame
//-----------------------------------------------------------------------------

enum class Drawn { frame, nothing, closed };

// Events, then the App (or the viewer) drawn into the back buffer, not yet shown. `closed` only
// when unattended: otherwise the close box quits as File ▸ Quit does.
Drawn draw_frame(Desktop& d) {
    GLFWwindow* window = d.backend.window;
    glfwPollEvents();
    if (glfwWindowShouldClose(window)) {
        if (d.unattended) return Drawn::closed;
        glfwSetWindowShouldClose(window, GLFW_FALSE);
        d.app->request_quit();
    }
    if (glfwGetWindowAttrib(window, GLFW_ICONIFIED)) { // nothing to draw: do not spin
        glfwWaitEventsTimeout(0.1);
        return Drawn::nothing;
    }
    apply_appearance(d.backend, {window_scale, d.app->settings().zoom_percent, d.app->settings().theme});
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (d.unattended) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX); // wherever the pointer is, nothing is hovered
    ImGui::NewFrame();
    if (d.attention) draw_attention_window(d.viewer, d.textures);
    else d.app->frame();
    ImGui::Render();

    glfwGetFramebufferSize(window, &d.width, &d.height);
    glViewport(0, 0, d.width, d.height);
    const ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(background.x, background.y, background.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    return Drawn::frame;
}

int closed_early(const char* before) {
    std::cerr << "attnviz: the window closed before " << before << "\n";
    return 1;
}

//-----------------------------------------------------------------------------
// [SECTION] The screenshot path
//-----------------------------------------------------------------------------

// Draws until the layout has settled, then writes the frame instead of showing it.
int screenshot_loop(Desktop& d, const std::string& path) {
    Settling settling;
    while (!d.app->wants_to_quit()) {
        const Drawn drawn = draw_frame(d);
        if (drawn == Drawn::closed) break;
        if (drawn == Drawn::nothing) continue;
        if (settling.done(*ImGui::GetDrawData())) return save_screenshot(path, d.width, d.height, std::cerr) ? 0 : 2;
        glfwSwapBuffers(d.backend.window);
    }
    return closed_early("the screenshot was taken");
}

//-----------------------------------------------------------------------------
// [SECTION] The bench path
//-----------------------------------------------------------------------------

// Times options.frames frames after the warm-up and prints the figures as JSON. The viewer's
// frames are timed from the second on: its thumbnails fill in meanwhile.
int bench_loop(Desktop& d, const Options& options) {
    std::vector<double> frame_ms;
    int frames_drawn = 0;
    double first_frame_ms = -1.0;     // until the first frame is on screen
    double all_thumbnails_ms = -1.0;  // --attention
    const int warmup = d.attention ? 1 : bench_frames_warmup;
    while (!d.app->wants_to_quit()) {
        const auto frame_start = std::chrono::steady_clock::now();
        const Drawn drawn = draw_frame(d);
        if (drawn == Drawn::closed) break;
        if (drawn == Drawn::nothing) continue;
        glfwSwapBuffers(d.backend.window);
        if (first_frame_ms < 0.0) first_frame_ms = ms_since_process_start();
        if (d.attention && all_thumbnails_ms < 0.0 && d.viewer.uploaded == d.viewer.total()) all_thumbnails_ms = ms_since_process_start();
        if (++frames_drawn <= warmup) continue;
        frame_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame_start).count());
        if (static_cast<int>(frame_ms.size()) < options.frames) continue;
        if (d.attention) std::cout << attention_bench_json(d.viewer, frame_ms, peak_resident_set_mb(), first_frame_ms, all_thumbnails_ms);
        else std::cout << bench_frames_json(options, frame_ms, peak_resident_set_mb(), first_frame_ms);
        std::cout << std::flush;
        return 0;
    }
    return closed_early("the last frame was timed");
}

//-----------------------------------------------------------------------------
// [SECTION] The frame loop
//-----------------------------------------------------------------------------

// Files dropped on the window become a request to the App, which the next frames take in turn
// (ui/file_drop.h): nothing is opened inside GLFW's callback.
void queue_dropped_files(GLFWwindow* window, int count, const char** paths) {
    if (auto* app = static_cast<ui::App*>(glfwGetWindowUserPointer(window)))
        app->drop_files(std::vector<std::string>(paths, paths + std::max(count, 0)));
}

// Until the user quits: each frame shown, the session autosaved, the title and settings kept in
// step; at the end the session flushed and the window's place remembered (not for the viewer).
int frame_loop(Desktop& d, Launch& l) {
    ui::App& app = *d.app;
    DesktopState desktop{app.window_title(), l.settings_file, l.settings};
    std::string save_problem;
    if (!l.attention) {
        glfwSetWindowUserPointer(d.backend.window, &app);
        glfwSetDropCallback(d.backend.window, queue_dropped_files);
    }
    while (!app.wants_to_quit()) {
        if (draw_frame(d) != Drawn::frame) continue;
        glfwSwapBuffers(d.backend.window);
        if (l.autosave) report_save_problem(l.autosave->tick(app.scenario()), save_problem, std::cerr);
        keep_in_step(d.backend.window, app, desktop);
    }
    if (l.attention) return 0;
    report_save_problem(l.autosave->flush(app.scenario()), save_problem, std::cerr);
    remember_geometry(d.backend.window, app.settings());
    write_settings(l.settings_file, app.settings());
    return 0;
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] run_window
//-----------------------------------------------------------------------------

int run_window(const Options& options) {
    Launch launch;
    int code = 0;
    if (!prepare_launch(options, launch, code)) return code;
    Desktop desktop;
    if (!open_desktop(options, launch, desktop)) return 1;
    if (!start_content(options, launch, desktop)) return 2;
    if (launch.screenshot) return screenshot_loop(desktop, options.screenshot_path);
    if (launch.bench) return bench_loop(desktop, options);
    return frame_loop(desktop, launch);
}

} // namespace app
