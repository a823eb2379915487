// app/cli/cli_probes.h — a checkpoint's head probes on the command line: every head's scores, each
// head's importance to the loss, the attention rollout.
#pragma once

#include "core/model/config.h"
#include "core/model/forward.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace app {

// Whether the arguments ask for a probe mode (--heads without --train, --head-importance, --rollout).
bool wants_probes_mode(int argc, const char* const* argv);

// attnviz --heads MODEL (--text T | --sequence IDS | --probe M [--seed S])
//     [{"layer", "head", "previous", "duplicate", "induction", "entropy"}, …], a score null where no row qualifies
// attnviz --head-importance MODEL (--text T | --sequence IDS)
//     [{"layer", "head", "delta_loss"}, …]
// attnviz --rollout MODEL (--text T | --sequence IDS)
//     {"rollout": (t, t)}
// Layers and heads count from 1. Returns 0, or 2 after one line "attnviz: …" on `err`.
int run_probes_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
