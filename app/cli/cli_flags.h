// app/cli/cli_flags.h — what the parsers of the command-line modes share: the value after a flag, a
// whole number in a range with one wording of its error, and one way of reporting a mode's errors
// (and of running a mode on one model).
#pragma once

#include "app/options.h"
#include "core/heads/scores.h"
#include "core/model/open.h"

#include <functional>
#include <iosfwd>
#include <ostream>
#include <optional>
#include <string>
#include <vector>

namespace app {

// argv[i + 1], the value of the flag argv[i], with i moved onto it. Throws UsageError
// "FLAG needs a value" at the end of argv.
std::string flag_value(int argc, const char* const* argv, int& i);

// `text` as a whole number from lo to hi (digits only). Throws UsageError
// "FLAG takes a whole number from LO to HI, not "TEXT"".
int whole_flag(const std::string& flag, const std::string& text, int lo, int hi);

// "unknown option OPTION" (" for WHERE" with a WHERE), with "; did you mean …?" naming the nearest
// of `known` when a typo or two away from it.
UsageError unknown_option(const std::string& option, const std::vector<std::string>& known, const std::string& where = "");

// `text` as a number, all of it (strtod's syntax); nothing when it is not one.
std::optional<double> number_of(const std::string& text);

// Every head's scores as one JSON array, layer-major with `heads` heads a layer, layers and heads
// from 1: [{"layer": 1, "head": 1, "previous": …, "duplicate": …, "induction": …, "entropy": …}, …],
// an empty score null, "copy" only where there is one (the tiny model's repeat task).
std::string head_scores_json(const std::vector<core::heads::HeadScores>& scores, int heads);

// Runs a mode: its return value, or 2 after one line "attnviz: …" on `err` for a usage error (with
// "(see attnviz --help)"), bad input, a tokenizer, a training configuration or a file that cannot
// be read.
int run_reporting_errors(std::ostream& err, const std::function<int()>& mode);

// Runs a mode on one model, as run_reporting_errors does: `parse` reads argv into the mode's
// options, the model their `model` names is opened, and `run(options, model)` gives the result.
template <class Parse, class Run>
int run_on_model(int argc, const char* const* argv, std::ostream& err, Parse parse, Run run) {
    return run_reporting_errors(err, [&] {
        const auto o = parse(argc, argv);
        const core::model::OpenedModel m = core::model::open_model(o.model);
        if (!m.notice.empty()) err << "attnviz: " << m.name << ": " << m.notice << "\n";
        return run(o, m);
    });
}

} // namespace app
