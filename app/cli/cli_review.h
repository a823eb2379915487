// app/cli/cli_review.h — the review deck from the command line: --review and --export-anki.
#pragma once

#include "app/options.h"

#include <iosfwd>
#include <string>

namespace app {

// Throws UsageError for --now without --review, a --now that is not ISO 8601, or a FILE given to
// --review or --export-anki.
void check_review_args(const Options& o);

// --review [--now ISO8601]: the cards due at `now_text` (empty: the clock's now) with their FSRS
// state, as JSON on `out`. A review file that had to fall back to its backup is reported on `err`.
int run_review_list(const std::string& now_text, std::ostream& out, std::ostream& err);

// --export-anki OUT.txt: every card in Anki's tab-separated import format.
// Returns 0, or 2 with "attnviz: OUT: reason" on `err`.
int run_export_anki(const std::string& out_path, std::ostream& out, std::ostream& err);

} // namespace app
