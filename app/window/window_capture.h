// app/window/window_capture.h — the window run unattended: --screenshot draws until the layout has
// settled and writes the frame as a PNG; --bench-frames times frames and prints the figures.
#pragma once

#include "app/window/desktop.h"

#include <string>

namespace app {

// Exit code 0; 2 when the PNG cannot be written; 1 when the window closed first.
int screenshot_loop(Desktop& d, const std::string& path);
// Times options.frames frames after the warm-up and prints one JSON line (app/cli/cli_bench.h); the
// viewer's frames are timed from the second on, while its thumbnails fill in.
int bench_loop(Desktop& d, const Options& options);

} // namespace app
