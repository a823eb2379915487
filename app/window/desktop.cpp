// app/window/desktop.cpp — see desktop.h.
//
// [SECTION] Set-up
// [SECTION] One frame
#include "app/window/desktop.h"

#include "app/window/window_events.h"
#include "core/background.h"
#include "core/wake.h"
#include "ui/fonts.h"

#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>
#include <future>
#include <iostream>

namespace app {

//-----------------------------------------------------------------------------
// [SECTION] Set-up
//-----------------------------------------------------------------------------

// Opening the window (X, GLX and Mesa loading LLVM) is most of the time to the first frame and
// keeps one core busy; the fonts and the first Result need no window, so a helper makes them
// meanwhile on the other (core::background::meanwhile). It runs at the UI's priority, not a
// worker's: the first frame waits for it.
bool open_desktop(const Options& options, Launch& l, Desktop& d) {
    Backend& backend = d.backend;
    if (!start_glfw(backend, std::cerr)) return false;
    backend.appearance = {monitor_scale(), l.settings.zoom_percent, l.settings.theme};
    const ui::Appearance first_look = backend.appearance;
    struct Prepared {
        std::unique_ptr<ImFontAtlas> fonts = std::make_unique<ImFontAtlas>();
        std::unique_ptr<ui::App> app;
    };
    std::future<Prepared> preparing = core::background::meanwhile([&] {
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

    // --screenshot always shows the default layout: it neither reads nor writes the layout file.
    start_imgui(backend, l.screenshot || l.bench ? std::string() : layout_file(std::cerr));
    d.attention = l.attention;
    d.unattended = l.screenshot || l.bench;
    return true;
}


bool start_content(const Options& options, const Launch& l, Desktop& d) {
    ui::App& app = *d.app;
    app.settings() = l.settings;
    app.set_file_locations({l.autosave ? l.autosave->path() : default_session_path(), l.settings_file, d.backend.ini_path});
    std::string problem;
    if (!options.workspace.empty()) app.set_workspace(options.workspace);
    // --head and --select were checked against the file (check_attention_files).
    if (l.attention && !app.open_attention_file(options.attention_file, options.labels_file, problem, std::max(options.head_layer, 1) - 1,
                                                std::max(options.head, 1) - 1, options.row)) {
        std::cerr << "attnviz: " << problem << "\n";
        return false;
    }
    if (!options.model.empty() && !app.open_model(options.model, options.model_text, l.screenshot, problem,
                                                  std::max(options.head_layer, 1) - 1, std::max(options.head, 1) - 1)) {
        std::cerr << "attnviz: " << problem << "\n";
        return false;
    }
    if (l.row >= 0) app.select_row(l.row);
    if (options.head && !l.attention && options.model.empty()) app.select_head(options.head - 1);
    if (!l.restore_notice.empty()) app.notify_restored(l.restore_notice, l.offer_default);
    if (options.lesson.empty()) return true;
    // --screenshot neither reads nor writes the learner's progress: it shows the step as it opens.
    if (!app.open_lesson(options.lesson, options.lesson_step, !l.screenshot, problem)) {
        std::cerr << "attnviz: " << problem << "\n";
        return false;
    }
    return true;
}

//-----------------------------------------------------------------------------
// [SECTION] One frame
//-----------------------------------------------------------------------------

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
    apply_appearance(d.backend, {content_scale(), d.app->settings().zoom_percent, d.app->settings().theme});
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplGlfw_NewFrame();
    if (d.unattended) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX); // wherever the pointer is, nothing is hovered
    ImGui::NewFrame();
    d.app->frame();
    ImGui::Render();
    frame_ended(window);

    glfwGetFramebufferSize(window, &d.width, &d.height);
    glViewport(0, 0, d.width, d.height);
    const ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
    glClearColor(background.x, background.y, background.z, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    return Drawn::frame;
}

Resting::Resting() : events_(events_seen()), wakes_(core::wakes()) { core::set_waker(glfwPostEmptyEvent); }

Resting::~Resting() { core::set_waker(nullptr); }

bool Resting::frame_due() {
    const ui::FramePolicy::Next next = policy.next(glfwGetTime());
    if (next.kind == ui::FramePolicy::Next::wait_event) glfwWaitEvents();
    if (next.kind == ui::FramePolicy::Next::wait_until) {
        const double left = next.until - glfwGetTime();
        if (left > 0.0) glfwWaitEventsTimeout(left);
    }
    if (const unsigned long long e = events_seen(); e != events_) events_ = e, policy.input();
    if (const unsigned long long w = core::wakes(); w != wakes_) wakes_ = w, policy.woken();
    return policy.next(glfwGetTime()).kind == ui::FramePolicy::Next::draw;
}

int closed_early(const char* before) {
    std::cerr << "attnviz: the window closed before " << before << "\n";
    return 1;
}

} // namespace app
