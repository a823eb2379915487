#include "app/window/autosave.h"
#include "core/io/user_dirs.h"

#include "app/options.h"

#include "core/io/scenario_io.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/stat.h>

namespace app {

namespace {

// mkdir -p for the directory part of `path`.
bool make_parent_dirs(const std::string& path) {
    for (size_t slash = path.find('/', 1); slash != std::string::npos; slash = path.find('/', slash + 1)) {
        const std::string dir = path.substr(0, slash);
        if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return false;
    }
    return true;
}

} // namespace

std::string default_session_path() { return core::io::state_dir() + "/session.json"; }

Autosave::Autosave(std::string path, Clock::duration delay) : path_(std::move(path)), delay_(delay) {}

std::optional<core::Scenario> Autosave::restore(std::string& error) {
    error.clear();
    struct stat st{};
    if (::stat(path_.c_str(), &st) != 0) return std::nullopt;
    try {
        core::Scenario s = core::io::load_scenario_file(path_);
        saved_ = s;
        return s;
    } catch (const core::ScenarioError& e) {
        const std::string aside = path_ + ".bad";
        error = std::string(e.what()) + (std::rename(path_.c_str(), aside.c_str()) == 0 ? " (kept as " + aside + ")" : "");
        return std::nullopt;
    }
}

std::string Autosave::save(const core::Scenario& s) {
    if (!make_parent_dirs(path_)) return "autosave: cannot create the folder for " + path_ + ": " + std::strerror(errno);
    try {
        core::io::save_scenario_file(path_, s);
    } catch (const core::ScenarioError& e) {
        return std::string("autosave: ") + e.what();
    }
    saved_ = s;
    dirty_since_.reset();
    return {};
}

std::string Autosave::tick(const core::Scenario& current, Clock::time_point now) {
    if (saved_ && *saved_ == current) {
        dirty_since_.reset();
        return {};
    }
    if (!dirty_since_) dirty_since_ = now;
    if (now - *dirty_since_ < delay_) return {};
    std::string error = save(current);
    if (!error.empty()) dirty_since_ = now + std::chrono::seconds(1) - delay_; // try again in a second
    return error;
}

std::optional<Autosave::Clock::time_point> Autosave::due() const {
    if (!dirty_since_) return std::nullopt;
    return *dirty_since_ + delay_;
}

std::string Autosave::flush(const core::Scenario& current) {
    if (saved_ && *saved_ == current) return {};
    return save(current);
}

Start choose_start(Autosave& autosave, core::Scenario fallback) {
    std::string problem;
    if (std::optional<core::Scenario> restored = autosave.restore(problem); restored && *restored != fallback)
        return {std::move(*restored), "attnviz restored the scenario you had open last time (" + autosave.path() + ").", true};
    if (!problem.empty()) return {std::move(fallback), "Your last session could not be restored, so this is the worked example.\n\n" + problem, false};
    return {std::move(fallback), "", false};
}

bool names_what_to_open(const Options& o) {
    return !o.file.empty() || !o.preset.empty() || !o.lesson.empty() || !o.attention_file.empty();
}

Start launch_start(const Options& options, Autosave& autosave, core::Scenario named) {
    if (names_what_to_open(options)) return {std::move(named), "", false};
    Start start = choose_start(autosave, std::move(named));
    if (!options.model.empty()) { // the model is what opens, silently beside the last scenario (Explore)
        start.notice.clear();
        start.offer_default = false;
    }
    return start;
}

} // namespace app
