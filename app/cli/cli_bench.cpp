// app/cli/cli_bench.cpp — see cli_bench.h.
#include "app/cli/cli_bench.h"

#include "core/attention.h"
#include "core/kernels.h"
#include "core/presets.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iterator>
#include <ostream>
#include <sstream>

#include <time.h>
#include <unistd.h>

namespace app {

int run_bench_core(const Options& o, std::ostream& out) {
    using clock = std::chrono::steady_clock;
    const core::Scenario s = core::bench_scenario(o.tokens, o.dim);
    core::Result r;
    for (int i = 0; i < 3; ++i) core::compute_into(s, r); // warm-up: buffers, caches, threads
    std::vector<double> ms;
    ms.reserve(static_cast<size_t>(o.reps));
    for (int i = 0; i < o.reps; ++i) {
        const auto t0 = clock::now();
        core::compute_into(s, r);
        ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    const size_t mid = ms.size() / 2;
    const double median = ms.size() % 2 ? ms[mid] : (ms[mid - 1] + ms[mid]) / 2;
    out << std::fixed << std::setprecision(4) << "{\"tokens\": " << o.tokens << ", \"dim\": " << o.dim
        << ", \"median_ms\": " << median << ", \"min_ms\": " << ms.front() << ", \"reps\": " << o.reps << ", \"threads\": " << core::compute_threads(o.tokens)
        << ", \"kernels\": \"" << core::kernel_build() << "\"}\n";
    return 0;
}

bool Typist::after_frame(ui::App& app, double frame_ms) {
    const auto now = std::chrono::steady_clock::now();
    if (!waiting_for_.empty()) {
        const ui::App::ShownRun shown = app.shown_run();
        if (shown.prompt != waiting_for_) {
            figures_.between_ms.push_back(frame_ms);
            return false;
        }
        figures_.latency_ms.push_back(std::chrono::duration<double, std::milli>(now - typed_).count());
        figures_.forward_ms.push_back(shown.forward_ms);
        waiting_for_.clear();
    }
    if (next_ >= keys_.size()) return false;
    std::size_t end = next_ + 1; // one UTF-8 character
    while (end < keys_.size() && (static_cast<unsigned char>(keys_[end]) & 0xC0) == 0x80) ++end;
    waiting_for_ = app.type_into_prompt(keys_.substr(next_, end - next_));
    next_ = end;
    typed_ = now;
    return true;
}

double nearest_rank(const std::vector<double>& ms, double p) {
    if (ms.empty()) return 0.0;
    const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(ms.size())));
    return ms[std::min(ms.size(), std::max<size_t>(rank, 1)) - 1];
}

namespace {

std::string typing_json(const TypingFigures& t) {
    double over = 0.0;
    for (std::size_t k = 0; k < t.latency_ms.size(); ++k) over = std::max(over, t.latency_ms[k] - t.forward_ms[k]);
    auto sorted = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v;
    };
    const std::vector<double> latency = sorted(t.latency_ms), forward = sorted(t.forward_ms), between = sorted(t.between_ms);
    std::ostringstream line;
    line << std::fixed << std::setprecision(2) << "{\"keys\": " << latency.size() << ", \"latency_ms_max\": " << (latency.empty() ? 0.0 : latency.back())
         << ", \"forward_ms_p50\": " << nearest_rank(forward, 50) << ", \"over_forward_ms_max\": " << over << ", \"frames_between\": " << between.size()
         << ", \"between_ms_p50\": " << nearest_rank(between, 50) << ", \"between_ms_max\": " << (between.empty() ? 0.0 : between.back()) << "}";
    return line.str();
}

} // namespace

std::string bench_frames_json(const Options& o, std::vector<double> ms, double rss_mb, double first_frame_ms, double model_ms, const TypingFigures* typing) {
    std::sort(ms.begin(), ms.end());
    std::ostringstream line;
    line << std::fixed << std::setprecision(4) << "{\"frames\": " << ms.size() << ", \"tokens\": " << o.tokens
         << ", \"dim\": " << o.dim << ", \"p50_ms\": " << nearest_rank(ms, 50) << ", \"p99_ms\": " << nearest_rank(ms, 99)
         << ", \"rss_mb\": " << std::setprecision(1) << rss_mb << ", \"first_frame_ms\": " << std::setprecision(0) << first_frame_ms;
    if (!o.model.empty()) line << ", \"model_shown_ms\": " << model_ms;
    if (typing) line << ", \"typing\": " << typing_json(*typing);
    line << "}\n";
    return line.str();
}

double ms_since_process_start() {
    // Field 22 of /proc/self/stat: when the process started, in clock ticks since boot.
    std::ifstream stat_file("/proc/self/stat");
    std::string stat((std::istreambuf_iterator<char>(stat_file)), std::istreambuf_iterator<char>());
    const size_t after_name = stat.rfind(')'); // the command name may hold spaces
    if (after_name == std::string::npos) return -1.0;
    std::istringstream fields(stat.substr(after_name + 2));
    std::string field;
    for (int k = 3; k <= 22 && fields >> field; ++k) {}
    const double ticks = std::strtod(field.c_str(), nullptr);
    timespec now{};
    if (ticks <= 0.0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0) return -1.0;
    const double start_s = ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
    return (static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9 - start_s) * 1000.0;
}

double peak_resident_set_mb() {
    std::ifstream status("/proc/self/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0; // "VmHWM:  123456 kB"
    return -1.0;
}

} // namespace app
