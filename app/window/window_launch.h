// app/window/window_launch.h — what the window shows and where, decided before it opens: the scenario,
// the autosaved session, the settings, the window's place, the layout file.
#pragma once

#include "app/window/autosave.h"
#include "app/options.h"
#include "core/io/settings.h"
#include "core/scenario.h"

#include <iosfwd>
#include <optional>
#include <string>

struct GLFWwindow;

namespace app {

// --bench-frames' window, in screen coordinates, so its figures compare across machines; every
// other window fills the monitor's work area or takes its last place (first_placement).
constexpr int bench_width = 1600;
constexpr int bench_height = 1000;

struct Launch {
    bool screenshot = false;
    bool bench = false;     // --bench-frames: a random scenario, no vsync, no layout file, no autosave
    bool attention = false; // --attention: a model's weights in the Model workspace, and no session
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
bool prepare_launch(const Options& options, Launch& l, int& code);

// Writes the settings file (none: ""); a failure is a warning on stderr.
void write_settings(const std::string& path, const core::io::Settings& settings);
// The first window: where it was last time if its title bar is still on a monitor (clipped to that
// monitor's work area), else the whole work area of the primary monitor, so a 1280 × 720 projector
// shows every panel as a 4K screen does.
core::io::WindowGeometry first_placement(const std::optional<core::io::WindowGeometry>& saved);
// Where the window is now, to open there next time (its size before it was maximized is not
// known to GLFW, so a maximized window keeps the last size it had otherwise).
void remember_geometry(GLFWwindow* window, core::io::Settings& settings);
// imgui.ini in core::io::config_dir() ($XDG_CONFIG_HOME/attnviz, else ~/.config/attnviz), creating
// the directory; empty (no saved layout) when the directory cannot be made.
std::string layout_file(std::ostream& err);

} // namespace app
