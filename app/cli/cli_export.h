// app/cli/cli_export.h — `attnviz --export WHAT --format FMT --out PATH [--head H] [FILE]`.
#pragma once

#include "app/options.h"

namespace app {

// --export's WHAT, --format and --head checked against each other (not yet against the scenario);
// throws UsageError naming the combination that does not go.
void check_export_options(const Options& options);

// Writes the export atomically. Returns 0, or 2 after one line "attnviz: FILE: reason" on `err`.
int run_export(const Options& options, std::ostream& err);

} // namespace app
