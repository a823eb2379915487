// app/cli/cli.h — the command line: which mode to run (parse_args) and running it (main_with). The
// modes themselves are in app/cli_*.h; app/options.h is what they share.
//
// How to add a command-line mode:
//   1. Write app/cli_NAME.{h,cpp} with its run function (and its flags' checks), and add the .cpp
//      to attnviz_cli in CMakeLists.txt. Read flags' values and whole numbers with app/cli/cli_flags.h
//      and run the mode inside run_reporting_errors, so that every mode words its errors alike.
//   2. A mode with flags of its own reads argv itself: add {{"--FLAG", …}, nullptr, run_NAME_mode}
//      to own_modes in app/cli/cli.cpp (a wants_NAME_mode in place of the flags only where its flags
//      alone do not decide). A mode that shares the common flags: add its Options::Mode and
//      fields to app/options.h, its flags to parse_args and one row to text_modes in app/cli/cli.cpp.
//   3. Document it in usage_text (app/cli/cli.cpp, the manual page packaging/attnviz.1 follows it) and
//      in docs/cli.md (its line in the list, and the JSON it prints), and test it through main_with
//      (tests/cli_run.h).
#pragma once

#include "app/options.h"

#include <iosfwd>
#include <string>

namespace app {

// Throws UsageError with a one-line reason.
Options parse_args(int argc, const char* const* argv);

// Everything the program does; the window modes call `run_window` (null when built without one).
using WindowRunner = int (*)(const Options&);
int main_with(int argc, const char* const* argv, std::ostream& out, std::ostream& err, WindowRunner run_window);

// What --help prints.
std::string usage_text();

} // namespace app
