// Autosave: saved within the delay of an edit, restored at start, and loadable after SIGKILL.
#include "app/window/autosave.h"
#include "core/presets.h"
#include "core/io/scenario_io.h"

#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

std::string autosave_dir() {
    std::string dir = "/tmp/attnviz-autosave-XXXXXX";
    REQUIRE(::mkdtemp(dir.data()) != nullptr);
    return dir;
}

} // namespace

TEST_CASE("the session path follows XDG_STATE_HOME, else ~/.local/state") {
    const char* old_state = std::getenv("XDG_STATE_HOME");
    const std::string saved = old_state ? old_state : "";
    ::setenv("XDG_STATE_HOME", "/x/state", 1);
    CHECK(app::default_session_path() == "/x/state/attnviz/session.json");
    ::unsetenv("XDG_STATE_HOME");
    CHECK(app::default_session_path() == std::string(std::getenv("HOME")) + "/.local/state/attnviz/session.json");
    if (old_state) ::setenv("XDG_STATE_HOME", saved.c_str(), 1);
}

TEST_CASE("an edit is saved once the delay has passed, not before, and restored next time") {
    const std::string dir = autosave_dir();
    const std::string path = dir + "/nested/attnviz/session.json";
    using namespace std::chrono;
    const auto t0 = app::Autosave::Clock::time_point{} + hours(1);
    app::Autosave autosave(path, milliseconds(500));
    std::string error;
    CHECK_FALSE(autosave.restore(error).has_value());
    CHECK(error.empty());

    core::Scenario s = core::preset_three_tokens();
    s.X(0, 0) = 0.25;
    CHECK_FALSE(autosave.due().has_value());
    CHECK(autosave.tick(s, t0).empty());
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK(autosave.due() == t0 + milliseconds(500)); // the window wakes then to save
    CHECK(autosave.tick(s, t0 + milliseconds(499)).empty());
    CHECK_FALSE(std::filesystem::exists(path));
    CHECK(autosave.tick(s, t0 + milliseconds(500)).empty());
    REQUIRE(std::filesystem::exists(path));
    CHECK(core::io::load_scenario_file(path) == s);
    CHECK_FALSE(autosave.due().has_value()); // nothing left to save: no timer

    app::Autosave next_start(path);
    const auto restored = next_start.restore(error);
    REQUIRE(restored.has_value());
    CHECK(*restored == s);
    std::filesystem::remove_all(dir);
}

TEST_CASE("a session file that does not load is kept aside and reported") {
    const std::string dir = autosave_dir();
    const std::string path = dir + "/session.json";
    std::ofstream(path) << "{ not json";
    app::Autosave autosave(path);
    std::string error;
    CHECK_FALSE(autosave.restore(error).has_value());
    CHECK(error.find("invalid JSON") != std::string::npos);
    CHECK(error.find("kept as " + path + ".bad") != std::string::npos);
    CHECK(std::filesystem::exists(path + ".bad"));
    CHECK_FALSE(std::filesystem::exists(path));
    std::filesystem::remove_all(dir);
}

TEST_CASE("a failed save is reported and retried") {
    app::Autosave autosave("/proc/attnviz-cannot-write/session.json", std::chrono::milliseconds(0));
    const auto t0 = app::Autosave::Clock::now();
    const std::string error = autosave.tick(core::preset_three_tokens(), t0);
    CHECK(error.rfind("autosave: ", 0) == 0);
    CHECK(autosave.due() == t0 + std::chrono::seconds(1)); // the retry
}

TEST_CASE("SIGKILL at any moment leaves a session file that loads") {
    const std::string dir = autosave_dir();
    const std::string path = dir + "/session.json";
    app::Autosave(path, std::chrono::milliseconds(0)).flush(core::preset_three_tokens());
    for (int trial = 0; trial < 20; ++trial) {
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            // Save big scenarios, each different, as fast as possible until killed.
            app::Autosave autosave(path, std::chrono::milliseconds(0));
            for (std::uint64_t i = 0;; ++i) autosave.tick(core::random_scenario(core::Shape{}.with_tokens(200).with_d_model(64).with_d_k(16).with_d_v(16).with_heads(2).with_W_O(), i));
        }
        ::usleep(static_cast<useconds_t>(5000 + trial * 3700));
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        CHECK(WIFSIGNALED(status));
        CHECK_NOTHROW(core::io::load_scenario_file(path));
    }
    std::filesystem::remove_all(dir);
}
