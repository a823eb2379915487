// tests/cli_run.h — running the program's command line in-process, as the tests of its modes do.
#pragma once

#include "app/cli/cli.h"

#include <sstream>
#include <string>
#include <vector>

namespace {

struct Run {
    int code;
    std::string out, err;
};

// `attnviz ARGS…` through app::main_with, without a window.
inline Run run(std::vector<std::string> args) {
    args.insert(args.begin(), "attnviz");
    std::vector<const char*> argv;
    for (const auto& a : args) argv.push_back(a.c_str());
    std::ostringstream out, err;
    const int code = app::main_with(static_cast<int>(argv.size()), argv.data(), out, err, nullptr);
    return {code, out.str(), err.str()};
}

// Ids as --sequence takes them: "3 1 4".
inline std::string ids_text(const std::vector<int>& ids) {
    std::string s;
    for (int id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
    return s;
}

} // namespace
