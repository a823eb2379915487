// app/cli/cli_activations.h — `attnviz --forward MODEL (--text … | --sequence …) --activations L`: layer L's
// activations as JSON (core/model/activations.h) in place of the forward's, for checking a layer
// against a reference.
#pragma once

#include <iosfwd>

namespace app {

// The mode's own row in app/cli/cli.cpp (`--activations` asks for it).
int run_activations_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
