#include "app/cli/cli_attention.h"

#include "core/io/attention_file.h"
#include "app/cli/cli_bench.h"
#include "ui/ui.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace app {

void check_attention_args(const Options& o, bool tokens_or_dim_given) {
    if (!o.labels_file.empty() && o.attention_file.empty()) throw UsageError("--labels goes with --attention");
    if (o.attention_file.empty()) return;
    if (o.mode != Options::Mode::window && o.mode != Options::Mode::screenshot && o.mode != Options::Mode::bench_frames)
        throw UsageError("--attention opens the window (or goes with --screenshot or --bench-frames)");
    if (!o.file.empty()) throw UsageError("--attention shows the weights file alone; it takes no scenario FILE (" + o.file + ")");
    if (tokens_or_dim_given) throw UsageError("--bench-frames --attention times the viewer on the file; it takes no --tokens or --dim");
}

bool check_attention_files(const Options& o, std::ostream& err) {
    try {
        const auto file = core::io::AttentionFile::open(o.attention_file);
        std::vector<std::string> labels = o.labels_file.empty() ? file->labels() : core::io::read_token_labels(o.labels_file);
        if (!o.labels_file.empty() && static_cast<int>(labels.size()) != file->n()) {
            err << "attnviz: " << o.labels_file << ": " << labels.size() << " labels for " << file->n() << " tokens (" << o.attention_file << ")\n";
            return false;
        }
        if (std::max(o.head_layer, 1) > file->layers() || o.head > file->heads()) {
            err << "attnviz: " << o.attention_file << ": --head " << std::max(o.head_layer, 1) << "." << std::max(o.head, 1) << ", but the file has "
                << file->layers() << (file->layers() == 1 ? " layer" : " layers") << " of " << file->heads() << (file->heads() == 1 ? " head\n" : " heads\n");
            return false;
        }
        if (labels.empty())
            for (int i = 0; i < file->n(); ++i) labels.push_back(std::to_string(i + 1));
        if (!o.row.empty() && ui::find_query_row(o.row, labels) < 0) {
            err << "attnviz: " << o.attention_file << ": no query \"" << o.row << "\" (give 1.." << file->n() << " or a token label)\n";
            return false;
        }
    } catch (const core::io::FileError& e) {
        err << "attnviz: " << e.what() << "\n";
        return false;
    }
    return true;
}

std::string attention_bench_json(const ui::App::AttentionFigures& f, std::vector<double> ms, double rss_mb, double first_frame_ms,
                                 double all_thumbnails_ms) {
    std::sort(ms.begin(), ms.end());
    std::ostringstream line;
    line << std::fixed << std::setprecision(3) << "{\"frames\": " << ms.size() << ", \"layers\": " << f.layers
         << ", \"heads\": " << f.heads << ", \"tokens\": " << f.tokens << ", \"first_frame_ms\": " << first_frame_ms
         << ", \"p50_ms\": " << nearest_rank(ms, 50) << ", \"p99_ms\": " << nearest_rank(ms, 99) << ", \"max_ms\": " << (ms.empty() ? 0.0 : ms.back())
         << ", \"rss_mb\": " << std::setprecision(1) << rss_mb << ", \"thumbnails_done\": " << f.thumbnails_done << ", \"thumbnails\": " << f.thumbnails
         << ", \"all_thumbnails_ms\": " << std::setprecision(0) << all_thumbnails_ms << "}\n";
    return line.str();
}

} // namespace app
