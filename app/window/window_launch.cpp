// app/window/window_launch.cpp — see window_launch.h.
//
// [SECTION] Settings
// [SECTION] Launch
// [SECTION] Window geometry
// [SECTION] Layout file
#include "app/window/window_launch.h"
#include "core/io/user_dirs.h"

#include "app/cli/cli_scenario.h"
#include "core/error_text.h"
#include "core/presets.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <vector>

namespace app {

//-----------------------------------------------------------------------------
// [SECTION] Settings
//-----------------------------------------------------------------------------

namespace {

// The settings file's contents; its problems (a bad value, an unknown key) go to stderr once.
core::io::Settings read_settings(const std::string& path) {
    std::vector<std::string> problems;
    core::io::Settings settings = core::io::load_settings(path, problems);
    for (const std::string& problem : problems) std::cerr << "attnviz: warning: " << problem << "\n";
    return settings;
}

} // namespace

void write_settings(const std::string& path, const core::io::Settings& settings) {
    if (path.empty()) return;
    try {
        core::io::save_settings(path, settings);
    } catch (const std::exception& e) {
        std::cerr << "attnviz: warning: settings not saved: " << core::error_text(e) << "\n";
    }
}

//-----------------------------------------------------------------------------
// [SECTION] Launch
//-----------------------------------------------------------------------------

bool prepare_launch(const Options& options, Launch& l, int& code) {
    code = 2;
    l.screenshot = options.mode == Options::Mode::screenshot;
    l.bench = options.mode == Options::Mode::bench_frames;
    l.attention = !options.attention_file.empty();
    if (l.bench && !l.attention && options.model.empty()) l.scenario = core::bench_scenario(options.tokens, options.dim);
    else if (!load_scenario(options, l.scenario, std::cerr)) return false;
    // With nothing named on the command line the window starts where the last session ended, and
    // says so; a FILE, --preset, --lesson or --attention is what opens.
    if (!l.screenshot && !l.bench && !l.attention) l.autosave.emplace(default_session_path());
    if (l.autosave) {
        Start start = launch_start(options, *l.autosave, std::move(l.scenario));
        l.scenario = std::move(start.scenario);
        l.restore_notice = std::move(start.notice);
        l.offer_default = start.offer_default;
    }
    if (!l.attention) { // an attention file's --select and --head were checked with the file
        l.row = options.row.empty() ? -1 : row_of(options, l.scenario, std::cerr);
        if (!options.row.empty() && l.row < 0) return false;
        if (options.model.empty() && options.head > static_cast<int>(l.scenario.heads.size())) { // a model's is its own
            std::cerr << "attnviz: " << scenario_name(options) << ": --head " << options.head << ", but the scenario has "
                      << l.scenario.heads.size() << (l.scenario.heads.size() == 1 ? " head\n" : " heads\n");
            return false;
        }
    }

    // --screenshot and --bench-frames read no settings (as they read no layout), so their pictures
    // and figures do not depend on the machine's user; --theme and --zoom apply to every mode.
    l.settings_file = l.screenshot || l.bench ? std::string() : core::io::settings_path();
    l.settings = read_settings(l.settings_file);
    if (!options.theme.empty()) l.settings.theme = options.theme == "light" ? core::io::Theme::light : core::io::Theme::dark;
    if (options.zoom_percent) l.settings.zoom_percent = options.zoom_percent;
    return true;
}

//-----------------------------------------------------------------------------
// [SECTION] Window geometry
//-----------------------------------------------------------------------------

namespace {

core::io::WindowGeometry work_area(GLFWmonitor* monitor) {
    core::io::WindowGeometry area{0, 0, bench_width, bench_height, false};
    if (monitor) glfwGetMonitorWorkarea(monitor, &area.x, &area.y, &area.width, &area.height);
    if (area.width <= 0 || area.height <= 0) area = {0, 0, bench_width, bench_height, false};
    return area;
}

} // namespace

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

std::string layout_file(std::ostream& err) {
    namespace fs = std::filesystem;
    const fs::path dir = core::io::config_dir();
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) {
        err << "attnviz: warning: cannot create " << dir.string() << " (" << ec.message() << "), the layout will not be saved\n";
        return {};
    }
    return (dir / "imgui.ini").string();
}

} // namespace app
