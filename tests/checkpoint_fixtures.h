// tests/checkpoint_fixtures.h — the tiny checkpoints of tests/fixtures/make_checkpoints.py, written
// once per test run into a scratch folder (empty when there is no Python with NumPy).
#pragma once

#include "tests/fixture_files.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>

namespace fixtures {

inline const std::string& checkpoints() {
    static const std::string dir = [] {
        const std::string python = numpy_python();
        if (python.empty()) return std::string();
        const std::string d = temp_dir();
        const std::string cmd = python + " " + path("make_checkpoints.py") + " " + d;
        return std::system(cmd.c_str()) == 0 ? d : std::string();
    }();
    return dir;
}

} // namespace fixtures

#define NEED_CHECKPOINTS()                                                       \
    if (fixtures::checkpoints().empty()) {                                       \
        MESSAGE("skipped: no /usr/bin/python3 with NumPy to write the fixtures"); \
        return;                                                                  \
    }
