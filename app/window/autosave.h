// app/window/autosave.h — keeps the current scenario on disk so that nothing is lost to a crash.
//
// The window (and --monkey) call tick() once per frame. Within `delay` of an edit the scenario is
// written to $XDG_STATE_HOME/attnviz/session.json (default ~/.local/state/attnviz/session.json)
// through core::io::write_file_atomically: temp file, fsync, rename. A SIGKILL at any moment
// therefore leaves the previous file or the new one, both loadable.
#pragma once

#include "core/scenario.h"

#include <chrono>
#include <optional>
#include <string>

namespace app {

// session.json in core::io::state_dir(): $XDG_STATE_HOME/attnviz, else ~/.local/state/attnviz (the
// home as core/io/user_dirs.h finds it).
std::string default_session_path();

class Autosave {
public:
    using Clock = std::chrono::steady_clock;
    explicit Autosave(std::string path, Clock::duration delay = std::chrono::milliseconds(500));

    // What was saved last time, if anything. A file that does not load is moved aside to
    // session.json.bad (kept for the user) and its problem reported in `error`.
    std::optional<core::Scenario> restore(std::string& error);

    // Call every frame. Returns the error of a failed save (it is retried a second later), or "".
    std::string tick(const core::Scenario& current, Clock::time_point now = Clock::now());
    // Saves now if the scenario differs from the file (on quit).
    std::string flush(const core::Scenario& current);
    // When a tick would save (the changes it saw are `delay` old, or a failed save is retried);
    // none while the file holds what the last tick saw.
    std::optional<Clock::time_point> due() const;

    const std::string& path() const { return path_; }

private:
    std::string save(const core::Scenario& s);

    std::string path_;
    Clock::duration delay_;
    std::optional<core::Scenario> saved_;          // what the file holds
    std::optional<Clock::time_point> dirty_since_; // first frame with unsaved changes
};

// How a window opened without a FILE starts: the autosaved session when there is one that differs
// from `fallback` (the worked example), with the notice the user reads; or the fallback, with the
// reason, when the session file did not load.
struct Start {
    core::Scenario scenario;
    std::string notice;         // "" = nothing to say
    bool offer_default = false; // the notice offers "Start from the worked example"
};
Start choose_start(Autosave& autosave, core::Scenario fallback);

struct Options;
// The command line names what to open: a FILE, --preset, --lesson or --attention.
bool names_what_to_open(const Options& options);
// How the window starts: what the command line names (`named`), without a word about the last
// session, when it names something; else choose_start, which offers the session.
Start launch_start(const Options& options, Autosave& autosave, core::Scenario named);

} // namespace app
