// app/cli_flags.h — what the parsers of the command-line modes share: the value after a flag, a
// whole number in a range with one wording of its error, and one way of reporting a mode's errors.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>

namespace app {

// argv[i + 1], the value of the flag argv[i], with i moved onto it. Throws UsageError
// "FLAG needs a value" at the end of argv.
std::string flag_value(int argc, const char* const* argv, int& i);

// `text` as a whole number from lo to hi (digits only). Throws UsageError
// "FLAG takes a whole number from LO to HI, not "TEXT"".
int whole_flag(const std::string& flag, const std::string& text, int lo, int hi);

// `text` as a number, all of it (strtod's syntax); nothing when it is not one.
std::optional<double> number_of(const std::string& text);

// Runs a mode: its return value, or 2 after one line "attnviz: …" on `err` for a usage error (with
// "(see attnviz --help)"), bad input, a tokenizer, a training configuration or a file that cannot
// be read.
int run_reporting_errors(std::ostream& err, const std::function<int()>& mode);

} // namespace app
