// The suite's main: each test process keeps lesson progress, reviews and the autosave in a folder of
// its own. ctest runs tests side by side, and the default folder ($HOME/.local/state/attnviz) is the
// user's: two tests walking lessons there at once changed each other's progress.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include "core/background.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <system_error>

int main(int argc, char** argv) {
    char state[] = "/tmp/attnviz-tests-XXXXXX";
    if (!mkdtemp(state)) {
        std::cerr << "attnviz_tests: cannot make a state folder in /tmp\n";
        return 2;
    }
    setenv("XDG_STATE_HOME", state, 1);
    const int rc = doctest::Context(argc, argv).run();
    core::background::wait_all();
    std::error_code ec;
    std::filesystem::remove_all(state, ec);
    return rc;
}
