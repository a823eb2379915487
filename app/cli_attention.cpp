#include "app/cli_attention.h"

#include "core/io/attention_file.h"
#include "ui/panels/attention.h"

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
    if (o.mode != Options::Mode::window && o.mode != Options::Mode::bench_frames)
        throw UsageError("--attention opens the window (or goes with --bench-frames)");
    if (!o.file.empty()) throw UsageError("--attention shows the weights file alone; it takes no scenario FILE (" + o.file + ")");
    if (tokens_or_dim_given) throw UsageError("--bench-frames --attention times the viewer on the file; it takes no --tokens or --dim");
}

bool check_attention_files(const Options& o, std::ostream& err) {
    try {
        const auto file = core::io::AttentionFile::open(o.attention_file);
        if (!o.labels_file.empty()) {
            const auto labels = core::io::read_token_labels(o.labels_file);
            if (static_cast<int>(labels.size()) != file->n()) {
                err << "attnviz: " << o.labels_file << ": " << labels.size() << " labels for " << file->n() << " tokens (" << o.attention_file << ")\n";
                return false;
            }
        }
    } catch (const core::io::FileError& e) {
        err << "attnviz: " << e.what() << "\n";
        return false;
    }
    return true;
}

void draw_attention_window(ui::AttentionView& view, ui::TextureUploader& textures) {
    const ImGuiViewport* screen = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(screen->WorkPos);
    ImGui::SetNextWindowSize(screen->WorkSize);
    ImGui::Begin("Attention weights", nullptr, ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
    ui::draw_attention_viewer(view, textures);
    ImGui::End();
}

std::string attention_bench_json(const ui::AttentionView& view, std::vector<double> ms, double rss_mb, double first_frame_ms,
                                 double all_thumbnails_ms) {
    std::sort(ms.begin(), ms.end());
    auto nearest_rank = [&](double p) {
        if (ms.empty()) return 0.0;
        const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(ms.size())));
        return ms[std::min(ms.size(), std::max<std::size_t>(rank, 1)) - 1];
    };
    const core::io::AttentionFile* f = view.file.get();
    std::ostringstream line;
    line << std::fixed << std::setprecision(3) << "{\"frames\": " << ms.size() << ", \"layers\": " << (f ? f->layers() : 0)
         << ", \"heads\": " << (f ? f->heads() : 0) << ", \"tokens\": " << (f ? f->n() : 0) << ", \"first_frame_ms\": " << first_frame_ms
         << ", \"p50_ms\": " << nearest_rank(50) << ", \"p99_ms\": " << nearest_rank(99) << ", \"max_ms\": " << (ms.empty() ? 0.0 : ms.back())
         << ", \"rss_mb\": " << std::setprecision(1) << rss_mb << ", \"thumbnails_done\": " << view.uploaded << ", \"thumbnails\": " << view.total()
         << ", \"all_thumbnails_ms\": " << std::setprecision(0) << all_thumbnails_ms << "}\n";
    return line.str();
}

} // namespace app
