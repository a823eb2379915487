// --monkey: random input against the real UI must leave a valid scenario and an autosave.
#include "app/cli/cli.h"
#include "app/window/monkey.h"
#include "core/io/scenario_io.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace {

int run_args(std::vector<std::string> args, std::string& err) {
    args.insert(args.begin(), "attnviz");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, errs;
    const int code = app::main_with(static_cast<int>(argv.size()), argv.data(), out, errs, nullptr);
    err = errs.str();
    return code;
}

} // namespace

TEST_CASE("--monkey usage errors exit 2 with one line") {
    std::string err;
    CHECK(run_args({"--monkey", "0"}, err) == 2);
    CHECK(err.find("--monkey") != std::string::npos);
    CHECK(run_args({"--monkey", "ten"}, err) == 2);
    CHECK(run_args({"--seed", "3"}, err) == 2);
    CHECK(err == "attnviz: --seed goes with --monkey or --preset numpy-random (see attnviz --help)\n");
    CHECK(run_args({"--monkey", "5", "scene.json"}, err) == 2);
    CHECK(err.find("takes no FILE") != std::string::npos);
}

TEST_CASE("a monkey run edits the scenario, stays valid, and autosaves where the window does") {
    char dir[] = "/tmp/attnviz-monkey-XXXXXX";
    REQUIRE(::mkdtemp(dir) != nullptr);
    const char* old_state = std::getenv("XDG_STATE_HOME");
    const std::string saved_state = old_state ? old_state : "";
    ::setenv("XDG_STATE_HOME", dir, 1);
    char old_cwd[4096];
    REQUIRE(::getcwd(old_cwd, sizeof old_cwd) != nullptr);
    REQUIRE(::chdir(dir) == 0); // a Save as… the monkey types lands here

    std::ostringstream out, err;
    CHECK(app::run_monkey(1500, 11, out, err) == 0);
    CHECK(err.str().empty());
    CHECK(out.str() == "monkey: 1500 frames, seed 11, no problem\n");
    const core::Scenario saved = core::io::load_scenario_file(std::string(dir) + "/attnviz/session.json");
    CHECK(core::validate(saved).empty());

    REQUIRE(::chdir(old_cwd) == 0);
    if (old_state) ::setenv("XDG_STATE_HOME", saved_state.c_str(), 1);
    else ::unsetenv("XDG_STATE_HOME");
    CHECK(std::system((std::string("rm -rf '") + dir + "'").c_str()) == 0);
}
