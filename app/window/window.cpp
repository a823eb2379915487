// app/window/window.cpp — the GLFW/OpenGL 3.3 window around ui::App, shaped like Dear ImGui's
// example_glfw_opengl3/main.cpp: set up (app/window/desktop.h), loop, tear down (~Desktop).
//
// [SECTION] Keeping the desktop in step
// [SECTION] The frame loop
// [SECTION] run_window
#include "app/window/window.h"

#include "app/window/desktop.h"
#include "app/window/window_capture.h"
#include "app/window/window_events.h"
#include "ui/frame_policy.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

namespace app {
namespace {

//-----------------------------------------------------------------------------
// [SECTION] Keeping the desktop in step
//-----------------------------------------------------------------------------

// Per frame: the title follows the file and its unsaved changes, and settings changed in the
// menus are saved at once (the window's geometry is added at exit).
struct DesktopState {
    std::string title; // the App's title as last set
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

// A failing save is retried every second: say so once, and again when the reason changes.
void report_save_problem(const std::string& problem, std::string& last_reported, std::ostream& err) {
    if (problem.empty() || problem == last_reported) return;
    err << "attnviz: " << problem << "\n";
    last_reported = problem;
}

//-----------------------------------------------------------------------------
// [SECTION] The frame loop
//-----------------------------------------------------------------------------

// Files dropped on the window become a request to the App, which the next frames take in turn
// (ui/file_drop.h): nothing is opened inside GLFW's callback.
void queue_dropped_files(GLFWwindow* window, int count, const char** paths) {
    count_event();
    if (auto* app = static_cast<ui::App*>(glfwGetWindowUserPointer(window)))
        app->drop_files(std::vector<std::string>(paths, paths + std::max(count, 0)));
}

// What changes with no input after this frame: the App's, and a save that falls due.
ui::Motion after_frame(const ui::App& app, const Launch& l) {
    ui::Motion m = app.motion();
    if (const auto due = l.autosave ? l.autosave->due() : std::nullopt)
        m.wake_after(std::chrono::duration<double>(*due - Autosave::Clock::now()).count());
    return m;
}

// Until the user quits: a frame whenever the frame policy asks for one (ui/frame_policy.h), each
// shown, the session autosaved, the title and settings kept in step; otherwise the loop sleeps in
// GLFW until something happens. At the end the session flushed and the window's place remembered.
int frame_loop(Desktop& d, Launch& l) {
    ui::App& app = *d.app;
    DesktopState desktop{app.window_title(), l.settings_file, l.settings};
    std::string save_problem;
    glfwSetWindowUserPointer(d.backend.window, &app);
    glfwSetDropCallback(d.backend.window, queue_dropped_files);
    Resting resting;
    while (!app.wants_to_quit()) {
        if (!resting.frame_due()) continue;
        const double started = glfwGetTime();
        if (draw_frame(d) != Drawn::frame) continue;
        glfwSwapBuffers(d.backend.window);
        if (l.autosave) report_save_problem(l.autosave->tick(app.scenario()), save_problem, std::cerr);
        keep_in_step(d.backend.window, app, desktop);
        resting.policy.drawn(started, after_frame(app, l));
    }
    if (l.autosave) report_save_problem(l.autosave->flush(app.scenario()), save_problem, std::cerr);
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

