// app/cli.h — the command line: which mode to run, and the modes that need no window.
#pragma once

#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace core { struct Scenario; }

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
    std::string preset;          // --preset ID: a preset instead of FILE (app/cli_presets.h)
    std::string lesson;          // --lesson ID|FILE: a built-in lesson's id or a lesson file
    int lesson_step = 0;         // --step K (1-based; 0 = where the learner left the lesson)
    std::string export_what;     // --export WHAT (app/cli_export.h)
    std::string export_format;   // --export: --format FMT
    std::string export_out;      // --export: --out PATH
    int head = 0;                // --export: --head H (1-based), 0 = not given
    std::string attention_file;  // --attention FILE: a model's attention weights (app/cli_attention.h)
    std::string labels_file;     // --attention: --labels FILE
    std::string theme;           // --theme dark|light (window, --screenshot); empty = the setting
    int zoom_percent = 0;        // --zoom PERCENT, one of core::io::zoom_steps; 0 = the setting
    std::string review_now;      // --review: --now ISO8601 (empty: the clock)
    std::string anki_path;       // --export-anki OUT.txt
};

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Throws UsageError with a one-line reason.
Options parse_args(int argc, const char* const* argv);

// Times core::compute_into on a random single-head scenario (tokens × dim, d_model = d_k = d_v)
// (3 untimed runs first) and prints one JSON line {"tokens", "dim", "median_ms", "min_ms", "reps",
// "threads", "kernels"}: the threads and the kernel build (core::kernel_build) it ran with.
int run_bench_core(const Options& options, std::ostream& out);

// --bench-frames: the window draws bench_frames_warmup untimed frames, then options.frames timed
// ones (a frame = one whole iteration of its loop, on the CPU's clock, vsync off) and prints this
// line: {"frames", "tokens", "dim", "p50_ms", "p99_ms", "rss_mb", "first_frame_ms"} (p99: nearest
// rank; rss_mb: the peak resident set of the whole run, MiB; first_frame_ms: from the start of the
// process to the first frame on screen).
constexpr int bench_frames_warmup = 10;
std::string bench_frames_json(const Options& options, std::vector<double> frame_ms, double rss_mb, double first_frame_ms);
// Milliseconds since this process started (Linux, 10 ms resolution), or -1 when unknown.
double ms_since_process_start();
// The peak resident set (VmHWM) of this process in MiB (Linux), or -1 when unknown.
double peak_resident_set_mb();

// Runs dump, explain, decode, bench-core, help or version. Returns the exit code: 0, or 2 with one line
// "attnviz: FILE: reason" on `err`.
int run_text_mode(const Options& options, std::ostream& out, std::ostream& err);

// The scenario `options` names: its file, or the worked example without one. A bad file writes one
// line "attnviz: FILE: reason" on `err` and returns false.
bool load_scenario(const Options& options, core::Scenario& scenario, std::ostream& err);
// How messages name that scenario: "preset ID", FILE or "default scenario".
std::string scenario_name(const Options& options);
// The 0-based row that options.row names; -1 after one line "attnviz: FILE: no row …" on `err`.
int row_of(const Options& options, const core::Scenario& scenario, std::ostream& err);

// Everything the program does; the window modes call `run_window` (null when built without one).
using WindowRunner = int (*)(const Options&);
int main_with(int argc, const char* const* argv, std::ostream& out, std::ostream& err, WindowRunner run_window);

// What --help prints.
std::string usage_text();

} // namespace app
