// app/cli_probes.h — a checkpoint's head probes on the command line: every head's scores, each
// head's importance to the loss, the attention rollout; and the head lists --ablate takes.
#pragma once

#include "core/model/config.h"
#include "core/model/forward.h"

#include <iosfwd>
#include <string>
#include <vector>

namespace app {

// "L.H,L.H", layers and heads from 1, into heads from 0. Throws ModelUsage naming `flag`, the item
// and, for one out of range, the model's layers or heads.
std::vector<core::model::HeadRef> parse_head_list(const std::string& flag, const std::string& spec, const core::model::ModelConfig& c);

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
