// app/options.h — what the command line asked for, shared by the parser (app/cli/cli.cpp), every
// mode (app/cli_*.h) and the window (app/window/window.h).
#pragma once

#include <stdexcept>
#include <string>

namespace app {

struct Options {
    enum class Mode { window, dump, explain, decode, help, version, screenshot, bench_core, monkey, bench_frames, review, export_anki, export_file, lessons, lesson_check, lesson_answers, presets };
    Mode mode = Mode::window;
    std::string file;            // scenario file; empty = the default ("the cat sat")
    std::string row;             // --explain ROW, --select ROW: 1-based index or token name
    std::string screenshot_path; // --screenshot OUT.png
    int tokens = 0;              // --bench-core, --bench-frames: --tokens N (1..4096)
    int dim = 0;                 // --bench-core, --bench-frames: --dim D (1..512), d_model = d_k = d_v = D
    int reps = 20;               // --bench-core: --reps R (1..100000) timed runs after the warm-up
    int frames = 0;              // --bench-frames F (1..100000) timed frames of the window
    long monkey_frames = 0;      // --monkey FRAMES (1..10^9)
    long long seed = 1;          // --monkey: --seed S; --preset numpy-random: --seed S (default 0)
    std::string preset;          // --preset ID: a preset instead of FILE (app/cli/cli_presets.h)
    std::string lesson;          // --lesson ID|FILE: a built-in lesson's id or a lesson file
    int lesson_step = 0;         // --step K (1-based; 0 = where the learner left the lesson)
    std::string export_what;     // --export WHAT (app/cli/cli_export.h)
    std::string export_format;   // --export: --format FMT
    std::string export_out;      // --export: --out PATH
    int head = 0;                // --export, the window, --screenshot: --head H (1-based), 0 = not given
    int head_layer = 0;          // --attention: --head L.H, the layer L (1-based), 0 = not given
    std::string workspace;       // --workspace NAME: the window or --screenshot starts there
    std::string attention_file;  // --attention FILE: a model's attention weights (app/cli/cli_attention.h)
    std::string labels_file;     // --attention: --labels FILE
    std::string model;           // --model MODEL: a checkpoint opened in the Model panels
    std::string model_text;      // --model: --text TEXT, the prompt (empty: the default prompt)
    std::string type_keys;       // --bench-frames --model: --type KEYS, typed into the prompt one at a time
    std::string theme;           // --theme dark|light (window, --screenshot); empty = the setting
    int zoom_percent = 0;        // --zoom PERCENT, one of core::io::zoom_steps; 0 = the setting
    std::string review_now;      // --review: --now ISO8601 (empty: the clock)
    std::string anki_path;       // --export-anki OUT.txt
};

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

} // namespace app
