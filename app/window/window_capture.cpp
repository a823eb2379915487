// app/window/window_capture.cpp — see window_capture.h.
//
// [SECTION] Screenshot
// [SECTION] Bench
#include "app/window/window_capture.h"

#include "app/cli/cli_attention.h"
#include "app/cli/cli_bench.h"
#include "core/io/files.h"

#include <stb_image_write.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <vector>

namespace app {

//-----------------------------------------------------------------------------
// [SECTION] Screenshot
//-----------------------------------------------------------------------------

namespace {

// ImGui auto-sizes windows over a few frames; --screenshot waits at least this long.
constexpr int screenshot_min_frames = 8;
constexpr int screenshot_max_frames = 60;

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


} // namespace

// An attention file's thumbnails and map are read by a worker and drawn a band a frame: the
// screenshot waits for them (for at most a minute).
bool attention_drawn(const ui::App& app, std::chrono::steady_clock::time_point started) {
    const ui::App::AttentionFigures f = app.attention_figures();
    return (f.thumbnails_done == f.thumbnails && f.map_drawn) || std::chrono::steady_clock::now() - started > std::chrono::minutes(1);
}

int screenshot_loop(Desktop& d, const std::string& path) {
    Settling settling;
    const auto started = std::chrono::steady_clock::now();
    while (!d.app->wants_to_quit()) {
        const Drawn drawn = draw_frame(d);
        if (drawn == Drawn::closed) break;
        if (drawn == Drawn::nothing) continue;
        if (settling.done(*ImGui::GetDrawData()) && attention_drawn(*d.app, started))
            return save_screenshot(path, d.width, d.height, std::cerr) ? 0 : 2;
        glfwSwapBuffers(d.backend.window);
    }
    return closed_early("the screenshot was taken");
}

//-----------------------------------------------------------------------------
// [SECTION] Bench
//-----------------------------------------------------------------------------

int bench_loop(Desktop& d, const Options& options) {
    std::vector<double> frame_ms;
    int frames_drawn = 0;
    double first_frame_ms = -1.0;     // until the first frame is on screen
    double all_thumbnails_ms = -1.0;  // --attention
    double model_ms = -1.0;           // --model: until every head of the prompt shows
    const int warmup = d.attention ? 1 : bench_frames_warmup;
    Typist typist(options.type_keys);
    Resting resting;
    while (!d.app->wants_to_quit()) {
        // --model: until every head shows, and while --type's keys run, frames come as the window's
        // own loop draws them (a running forward wakes it as each layer ends); then they are drawn
        // back to back and timed.
        const bool typing = !typist.done() && model_ms >= 0.0 && frames_drawn >= warmup;
        const bool as_the_window = (!options.model.empty() && model_ms < 0.0) || typing;
        if (as_the_window && !resting.frame_due()) continue;
        const double started = glfwGetTime();
        const auto frame_start = std::chrono::steady_clock::now();
        const Drawn drawn = draw_frame(d);
        if (drawn == Drawn::closed) break;
        if (drawn == Drawn::nothing) continue;
        glfwSwapBuffers(d.backend.window);
        if (as_the_window) resting.policy.drawn(started, d.app->motion());
        if (first_frame_ms < 0.0) first_frame_ms = ms_since_process_start();
        const ui::App::AttentionFigures figures = d.app->attention_figures();
        if (d.attention && all_thumbnails_ms < 0.0 && figures.thumbnails_done == figures.thumbnails) all_thumbnails_ms = ms_since_process_start();
        if (!options.model.empty() && model_ms < 0.0 && d.app->model_shown()) model_ms = ms_since_process_start();
        if (++frames_drawn <= warmup || (!options.model.empty() && model_ms < 0.0)) continue; // --model: frames with every head
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - frame_start).count();
        if (!typist.done()) {
            if (typist.after_frame(*d.app, ms)) resting.policy.input(); // a key, as GLFW would report it
            continue;
        }
        frame_ms.push_back(ms);
        if (static_cast<int>(frame_ms.size()) < options.frames) continue;
        if (d.attention) std::cout << attention_bench_json(figures, frame_ms, peak_resident_set_mb(), first_frame_ms, all_thumbnails_ms);
        else std::cout << bench_frames_json(options, frame_ms, peak_resident_set_mb(), first_frame_ms, model_ms, options.type_keys.empty() ? nullptr : &typist.figures());
        std::cout << std::flush;
        return 0;
    }
    return closed_early("the last frame was timed");
}

} // namespace app
