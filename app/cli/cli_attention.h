// app/cli/cli_attention.h — `attnviz --attention FILE [--labels FILE]`: the window opens a model's
// attention weights in the Model workspace (ui::App::open_attention_file); with --bench-frames F
// it times that window, with --screenshot it draws it once.
#pragma once

#include "app/options.h"
#include "ui/ui.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace app {

// --attention and --labels checked against the mode; throws UsageError.
void check_attention_args(const Options& options, bool tokens_or_dim_given);

// Opens the files as the window will, before any window opens, and checks --head and --select
// against them: false after one line "attnviz: FILE: reason" on `err`.
bool check_attention_files(const Options& options, std::ostream& err);

// --bench-frames F --attention FILE: every frame after the first is timed. One line:
// {"frames", "layers", "heads", "tokens", "first_frame_ms", "p50_ms", "p99_ms", "max_ms", "rss_mb",
//  "thumbnails_done", "thumbnails", "all_thumbnails_ms"} (all_thumbnails_ms: process start to the
// frame that showed the last thumbnail, -1 if the frames ended before).
std::string attention_bench_json(const ui::App::AttentionFigures& figures, std::vector<double> frame_ms, double rss_mb,
                                 double first_frame_ms, double all_thumbnails_ms);

} // namespace app
