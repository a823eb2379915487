// tests/checkpoint_fixtures.h — the tiny checkpoints of tests/fixtures/make_checkpoints.py, written
// once per test run into a scratch folder (empty when there is no Python with NumPy), each of them
// opened in turn, and a fake Hugging Face cache made of them.
#pragma once

#include "core/model/open.h"
#include "tests/fixture_files.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

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

inline void say_skipped() { MESSAGE("skipped: no /usr/bin/python3 with NumPy to write the fixtures"); }

// Opens each fixture checkpoint of `names` in turn and calls test(opened), with the name captured for
// the checks' messages; skips them all, as NEED_CHECKPOINTS does, when there are no fixtures.
template <class Names, class Test>
void for_each_checkpoint(const Names& names, Test test) {
    if (checkpoints().empty()) return say_skipped();
    for (const auto& name : names) {
        CAPTURE(name);
        test(core::model::open_model(checkpoints() + "/" + name));
    }
}

// The largest |a − b| over n values.
inline double max_diff(const float* a, const float* b, std::size_t n) {
    double d = 0;
    for (std::size_t i = 0; i < n; ++i) d = std::max(d, std::abs(static_cast<double>(a[i]) - b[i]));
    return d;
}

// A copy of checkpoint `name` whose config.json lists `eos` as its end-of-text ids.
inline std::string with_eos(const std::string& name, const std::vector<int>& eos) {
    namespace fs = std::filesystem;
    const std::string dir = temp_dir();
    for (const auto& f : fs::directory_iterator(checkpoints() + "/" + name)) fs::copy_file(f.path(), fs::path(dir) / f.path().filename());
    nlohmann::json config = nlohmann::json::parse(read(dir + "/config.json"));
    config["eos_token_id"] = eos;
    std::ofstream(dir + "/config.json") << config.dump();
    return dir;
}

// A cache tree hub/models--ORG--NAME/snapshots/REV/ whose files link into blobs/, as the Hub writes it.
inline void add_to_fake_cache(const std::string& hub, const std::string& org_name, const std::string& checkpoint) {
    namespace fs = std::filesystem;
    std::string entry = org_name;
    for (std::size_t p; (p = entry.find('/')) != std::string::npos;) entry.replace(p, 1, "--");
    const fs::path base = fs::path(hub) / ("models--" + entry);
    const fs::path snap = base / "snapshots" / "0123abcd";
    fs::create_directories(snap);
    fs::create_directories(base / "blobs");
    fs::create_directories(base / "refs");
    std::ofstream(base / "refs" / "main") << "0123abcd";
    for (const auto& f : fs::directory_iterator(checkpoint)) {
        const fs::path blob = base / "blobs" / f.path().filename();
        fs::copy_file(f.path(), blob, fs::copy_options::overwrite_existing);
        fs::create_symlink(fs::path("../../blobs") / f.path().filename(), snap / f.path().filename());
    }
}

} // namespace fixtures

#define NEED_CHECKPOINTS()               \
    if (fixtures::checkpoints().empty()) { \
        fixtures::say_skipped();           \
        return;                            \
    }
