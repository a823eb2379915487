// app/cli/cli_stores.h — attnviz --list-models: every model in the places people keep them
// (core/model/open.h), as JSON.
#pragma once

#include <iosfwd>

namespace app {

// Prints {"models": [{"name", "store", "path", "format", "bytes", "quantization"}, …]}; each file of a
// store that cannot be read is one line "attnviz: FILE: reason" on `err`, and the listing goes on.
// Returns 0, or 2 after one line for a usage error.
int run_list_models_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
