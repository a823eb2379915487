// tests/python.h — runs a check written in Python (python3, optionally with NumPy) on files a test
// wrote; the check is skipped, with a message, when the interpreter or NumPy is missing.
#pragma once

#include "tests/fixture_files.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace test_python {

using fixtures::temp_dir;

// The first of python3 on PATH and Debian's /usr/bin/python3 that runs (and imports NumPy when
// `numpy`), or empty: a pyenv or venv python3 may lack the Debian package python3-numpy.
inline std::string interpreter(bool numpy) {
    for (const char* candidate : {"python3", "/usr/bin/python3"}) {
        const std::string probe = std::string(candidate) + (numpy ? " -c 'import numpy'" : " -c ''") + " >/dev/null 2>&1";
        if (std::system(probe.c_str()) == 0) return candidate;
    }
    return {};
}

// Runs `script` with `args` (paths without quotes) and CHECKs that it exits 0; its stderr shows
// what failed.
inline void run_or_skip(const std::string& script, const std::vector<std::string>& args, bool numpy) {
    const std::string python = interpreter(numpy);
    if (python.empty()) {
        const std::string why = std::string("skipped: no python3") + (numpy ? " with NumPy (python3-numpy)" : "");
        MESSAGE(why);
        return;
    }
    const std::string dir = temp_dir();
    const std::string path = dir + "/check.py";
    std::ofstream(path) << script;
    std::string command = python + " '" + path + "'";
    for (const std::string& a : args) command += " '" + a + "'";
    CHECK_MESSAGE(std::system(command.c_str()) == 0, script);
}

} // namespace test_python
