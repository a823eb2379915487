// app/window/desktop.h — the window with what it draws: opened with its fonts and the App, and one frame of it.
#pragma once

#include "app/window/window_backend.h"
#include "app/window/window_launch.h"
#include "ui/frame_policy.h"

#include <memory>

namespace app {

// Everything the frame loop draws with, taken down in reverse order: the App's textures go first,
// then the GL context with the window.
struct Desktop {
    Backend backend;
    GlTextures textures;
    std::unique_ptr<ui::App> app;
    bool attention = false;   // --attention: the App opened the file in the Model workspace
    bool unattended = false;  // --screenshot, --bench-frames: nothing is hovered, the close box ends the run
    int width = 0, height = 0; // of the framebuffer last drawn
};

// Opens the window with the fonts, the App and the ImGui context. False: exit code 1.
bool open_desktop(const Options& options, Launch& l, Desktop& d);
// The App's settings, workspace, selection, notice and lesson, or an attention file. False: exit code 2.
bool start_content(const Options& options, const Launch& l, Desktop& d);

enum class Drawn { frame, nothing, closed };
// One frame, as Dear ImGui's example draws it: poll the events, start the frame, the App, render
// into the back buffer — not yet shown. `closed` only when unattended: otherwise
// the close box quits as File ▸ Quit does.
Drawn draw_frame(Desktop& d);

// The frame policy's side of a loop (ui/frame_policy.h). While it lives, a worker's core::wake()
// ends a wait.
class Resting {
public:
    Resting();
    ~Resting();
    Resting(const Resting&) = delete;
    Resting& operator=(const Resting&) = delete;
    // Rests as the policy says (until an event, a wake or a time); true when a frame is due at `now`.
    bool frame_due();
    ui::FramePolicy policy;

private:
    unsigned long long events_, wakes_; // as the policy was last told
};

// "attnviz: the window closed before …" on stderr; exit code 1.
int closed_early(const char* before);

} // namespace app
