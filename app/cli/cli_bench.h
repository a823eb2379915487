// app/cli/cli_bench.h — the benchmarks the command line runs: --bench-core (the recompute alone) and
// the figures --bench-frames prints for the window's frames (app/window/window_capture.h times them).
#pragma once

#include "app/options.h"
#include "ui/ui.h"

#include <chrono>

#include <iosfwd>
#include <string>
#include <vector>

namespace app {

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
// With --model, model_ms: process start to the first frame showing every head of the prompt, the
// frames until then drawn as the window's loop draws them (app/window/desktop.h: Resting); the timed frames
// are those from then on.
// With --type KEYS, typing: each key is typed once the run of the one before shows; per key, from
// the key to the first frame on screen showing its run (latency_ms) and that run's time in the
// model session (forward_ms: the forward with its predictions and scores, Snapshot::seconds), and every frame drawn while a key's run was on its way (between_ms), the frames
// drawn as the window's loop draws them. The line then
// has "typing": {"keys", "latency_ms_max", "forward_ms_p50", "over_forward_ms_max" (the largest
// latency − forward), "frames_between", "between_ms_p50", "between_ms_max"}.
struct TypingFigures {
    std::vector<double> latency_ms, forward_ms, between_ms;
};
std::string bench_frames_json(const Options& options, std::vector<double> frame_ms, double rss_mb, double first_frame_ms, double model_ms = -1.0,
                              const TypingFigures* typing = nullptr);
// --type: one key at a time, each typed into the Model workspace's prompt once the run of the key
// before shows.
class Typist {
public:
    explicit Typist(std::string keys) : keys_(std::move(keys)) {}
    bool done() const { return next_ >= keys_.size() && waiting_for_.empty(); }
    const TypingFigures& figures() const { return figures_; }
    // After a frame is on screen (it took frame_ms): a key's run shown ends its wait; then the next
    // key, and true.
    bool after_frame(ui::App& app, double frame_ms);

private:
    std::string keys_;
    std::size_t next_ = 0;
    std::string waiting_for_; // the prompt typed, until its run shows
    std::chrono::steady_clock::time_point typed_;
    TypingFigures figures_;
};

// The smallest of the sorted `ms` that p % of them do not exceed (nearest rank); 0 when empty.
double nearest_rank(const std::vector<double>& ms, double p);
// Milliseconds since this process started (Linux, 10 ms resolution), or -1 when unknown.
double ms_since_process_start();
// The peak resident set (VmHWM) of this process in MiB (Linux), or -1 when unknown.
double peak_resident_set_mb();

} // namespace app
