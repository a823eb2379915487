// ui/ui.h — the seam between the window (app/) and the panels (ui/).
//
// The window owns GLFW, OpenGL, fonts and the frame loop; it calls App::frame() once per frame
// between ImGui::NewFrame() and ImGui::Render(). Everything else — recomputing the Result from
// the Scenario, every panel, undo, open/save — lives behind App. The same App runs on a headless
// ImGui context (no window, no GL) in the tests, with a null TextureUploader.
#pragma once

#include "core/attention.h"
#include "core/io/settings.h"
#include "ui/about.h"
#include "ui/frame_policy.h"

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ui {

// The one thing the panels need from the renderer: an RGBA texture for big heatmaps. A heatmap
// texture has one texel per cell: sample it with GL_NEAREST so zoomed-in cells stay sharp squares.
struct TextureUploader {
    virtual ~TextureUploader() = default;
    // A width × height RGBA8 texture, its texels undefined until written.
    virtual ImTextureID create(int width, int height) = 0;
    // Overwrites `rows` whole rows from row `first` on, in place.
    virtual void write_rows(ImTextureID texture, int first, int rows, const unsigned char* rgba) = 0;
    virtual void release(ImTextureID texture) = 0;
};

// A texture uploader that keeps no texels, for headless runs and tests: it counts what it is asked.
// Its ids are not the headless font atlas's (1), so that a draw command tells which it samples.
struct NullTextureUploader final : TextureUploader {
    int created = 0, released = 0;
    long long rows_written = 0;
    ImTextureID create(int, int) override { return reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(1000 + ++created)); }
    void write_rows(ImTextureID, int, int rows, const unsigned char*) override { rows_written += rows; }
    void release(ImTextureID) override { ++released; }
};

struct AttentionView;

// The 0-based row that `row` names among `labels`: a 1-based index or a label; -1 when none does.
int find_query_row(const std::string& row, const std::vector<std::string>& labels);

class App {
public:
    // `textures` must outlive the App. `file_path`, when the scenario came from a file, is where
    // File ▸ Save writes (otherwise Save asks for a path).
    App(core::Scenario initial, TextureUploader& textures, std::string file_path = {});
    ~App();
    App(const App&) = delete;
    App& operator=(const App&) = delete;

    // Recompute and draw every panel. Call between ImGui::NewFrame() and ImGui::Render().
    void frame();
    // After frame(): what changes on screen with no input, so that the window draws only then
    // (ui/frame_policy.h): the panels' work and animations, and ImGui's own timers and layout.
    Motion motion() const;

    // Selects the query row shown in the calculation and highlighted everywhere; false if no such row.
    bool select_row(int row);
    // True once the user chose File ▸ Quit (or Ctrl+Q) and, when a named file had unsaved changes,
    // answered Save or Discard; the window then closes.
    bool wants_to_quit() const;
    // Files dropped on the window: the frame takes them one at a time (ui/file_drop.h).
    void drop_files(const std::vector<std::string>& paths);
    // Opens a scenario file (any format core/io/formats.h opens as a scenario) as File ▸ Open does;
    // false with `error` ("FILE: reason") and nothing changed when it does not load.
    bool open_file(const std::string& path, std::string& error);
    // Opens a lesson (a built-in id or a .toml file) at step `step` (1-based; 0 resumes where the
    // learner left it), as the Learn menu does; without `keep_progress` nothing is read or written
    // of the learner's progress. False with `error` ("FILE:LINE: reason").
    bool open_lesson(const std::string& id_or_file, int step, bool keep_progress, std::string& error);
    // Opens a model in the Model panels (attnviz --model) and runs `text` on it (empty: the default
    // prompt); false with `error` (one line naming the file) and the open model kept. With `wait`,
    // returns once the run is done (--screenshot); else at once, the model read and run in the
    // background and a failure shown in the window.
    // `layer` and `head` (from 0) choose the head shown, kept inside the model.
    bool open_model(const std::string& path, const std::string& text, bool wait, std::string& error, int layer = 0, int head = 0);
    // The window's close box: quits, or first asks about unsaved changes as File ▸ Quit does.
    void request_quit();
    // "attnviz — heads.json", with " •" when it has unsaved changes; the worked example without a file.
    std::string window_title() const;
    // The scenario differs from the file it was last opened from or saved to.
    bool has_unsaved_changes() const;

    // Theme, zoom, colour maps and recent files, changed by the menus and shortcuts; the window
    // applies and saves them (core/io/settings.h), and puts its geometry in before saving.
    core::io::Settings& settings();
    // Where the session, settings and layout live, for Help ▸ About.
    void set_file_locations(FileLocations where);
    // Shows `text` in a modal at the next frame: start-up restored the autosaved session (then
    // `offer_default` adds "Start from the worked example"), or could not read it.
    void notify_restored(std::string text, bool offer_default);

    // The workspace to start in (ui/workspace_table.h: "explore", "learn", "train", "model"): it
    // beats the last session's and the one a lesson or a file opened. False for an unknown id.
    bool set_workspace(const std::string& id);
    // The current workspace's id.
    std::string workspace() const;
    // A model's attention weights (core/io/attention_file.h) in the Model workspace, showing
    // `layer`, `head` (0-based) and the query `row` names (find_query_row; "": none chosen); false
    // with the reason in `error` ("FILE: reason") for a bad file, which changes nothing.
    bool open_attention_file(const std::string& path, const std::string& labels, std::string& error, int layer = 0, int head = 0,
                             const std::string& row = "");
    // The head shown and edited (View::selected_head), clamped to the scenario's heads.
    void select_head(int head);
    // What the open attention file is, and how far its thumbnails and map are drawn (--bench-frames,
    // --screenshot, which waits for them).
    struct AttentionFigures {
        int layers = 0, heads = 0, tokens = 0;
        int thumbnails_done = 0, thumbnails = 0; // every head's thumbnail fills in over the first frames
        bool map_drawn = true;                   // the chosen head's map, a band of rows a frame
    };
    AttentionFigures attention_figures() const;
    // Whether the Model workspace shows a run of the open model (every head of its prompt).
    bool model_shown() const;
    // --bench-frames --type: `key` appended to the Model workspace's prompt and run, as the prompt box
    // does when a key is typed into it; returns the prompt now.
    std::string type_into_prompt(const std::string& key);
    // The prompt of the run the Model workspace shows and how long the run took (the forward with its
    // predictions and scores); empty before one.
    struct ShownRun {
        std::string prompt;
        double forward_ms = 0.0;
    };
    ShownRun shown_run() const;

    const core::Scenario& scenario() const;
    const core::Result& result() const;

    struct State;
    State& state(); // everything inside (ui/app_state.h), for the tests only

private:
    std::unique_ptr<State> state_;
};

} // namespace ui
