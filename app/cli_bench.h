// app/cli_bench.h — the benchmarks the command line runs: --bench-core (the recompute alone) and
// the figures --bench-frames prints for the window's frames (app/window_capture.h times them).
#pragma once

#include "app/options.h"

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
// With --model, model_ms: process start to the first frame showing every head of the prompt; the
// timed frames are those from then on.
std::string bench_frames_json(const Options& options, std::vector<double> frame_ms, double rss_mb, double first_frame_ms, double model_ms = -1.0);
// The smallest of the sorted `ms` that p % of them do not exceed (nearest rank); 0 when empty.
double nearest_rank(const std::vector<double>& ms, double p);
// Milliseconds since this process started (Linux, 10 ms resolution), or -1 when unknown.
double ms_since_process_start();
// The peak resident set (VmHWM) of this process in MiB (Linux), or -1 when unknown.
double peak_resident_set_mb();

} // namespace app
