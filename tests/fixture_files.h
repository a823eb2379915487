// tests/fixture_files.h — where the committed fixtures are (and GPT-2's merges from them), scratch
// folders, and NumPy when present.
#pragma once

#include "core/scenario.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <unistd.h>
#include <vector>

namespace fixtures {

inline std::string path(const std::string& rel) { return std::string(ATTNVIZ_FIXTURES) + "/" + rel; }

inline std::string read(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// GPT-2's merges as tokenizer.json lists them: the lines of gpt2/vocab.bpe after its "#version" line.
inline nlohmann::json gpt2_merges() {
    nlohmann::json merges = nlohmann::json::array();
    std::istringstream lines(read(path("gpt2/vocab.bpe")));
    std::string line;
    std::getline(lines, line); // #version
    while (std::getline(lines, line))
        if (!line.empty()) merges.push_back(line);
    return merges;
}

// A matrix written in a JSON fixture as a list of rows.
inline core::Matrix matrix(const nlohmann::json& rows) {
    core::Matrix m(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(rows[0].size()));
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) m(r, c) = rows[static_cast<std::size_t>(r)][static_cast<std::size_t>(c)];
    return m;
}

// Scratch folders, removed with what they hold when the test program exits (by the process that
// made them, not a forked child).
struct TempDirs {
    pid_t owner = ::getpid();
    std::vector<std::string> dirs;
    ~TempDirs() {
        if (::getpid() != owner) return;
        std::error_code ec;
        for (const std::string& d : dirs) std::filesystem::remove_all(d, ec);
    }
};

inline std::string temp_dir() {
    static TempDirs made;
    std::string dir = "/tmp/attnviz-test-XXXXXX";
    REQUIRE(::mkdtemp(dir.data()) != nullptr);
    made.dirs.push_back(dir);
    return dir;
}

// Debian's python3 with numpy, or "" (the tests that need it then skip).
inline std::string numpy_python() {
    for (const char* py : {"/usr/bin/python3", "python3"}) {
        const std::string cmd = std::string(py) + " -c 'import numpy' >/dev/null 2>&1";
        if (std::system(cmd.c_str()) == 0) return py;
    }
    return "";
}

// Runs `python -c script` and returns what it printed.
inline std::string run_python(const std::string& python, const std::string& script) {
    const std::string dir = temp_dir();
    const std::string file = dir + "/script.py";
    std::ofstream(file) << script;
    std::string out;
    if (FILE* p = ::popen((python + " " + file + " 2>&1").c_str(), "r")) {
        char buf[4096];
        std::size_t n;
        while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
        ::pclose(p);
    }
    std::remove(file.c_str());
    ::rmdir(dir.c_str());
    return out;
}

} // namespace fixtures
