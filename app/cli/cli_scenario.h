// app/cli/cli_scenario.h — the scenario the command line names (FILE, --preset or the worked
// example) and the modes that print its numbers: --dump, --explain ROW, --decode.
#pragma once

#include "app/options.h"

#include <iosfwd>
#include <string>

namespace core { struct Scenario; }

namespace app {

// The scenario `options` names: its file, or the worked example without one. A bad file writes one
// line "attnviz: FILE: reason" on `err` and returns false.
bool load_scenario(const Options& options, core::Scenario& scenario, std::ostream& err);
// How messages name that scenario: "preset ID", FILE or "default scenario".
std::string scenario_name(const Options& options);
// The 0-based row that options.row names; -1 after one line "attnviz: FILE: no row …" on `err`.
int row_of(const Options& options, const core::Scenario& scenario, std::ostream& err);

// --dump: every matrix as JSON. --explain ROW: the calculation of one row, written out. --decode:
// a decoder stepped through its KV cache, as JSON. Exit code 0, or 2 after one line on `err`.
int run_dump(const Options& options, std::ostream& out, std::ostream& err);
int run_explain(const Options& options, std::ostream& out, std::ostream& err);
int run_decode(const Options& options, std::ostream& out, std::ostream& err);

} // namespace app
