// app/cli/cli_circuits.h — a checkpoint's circuits on the command line: the logit lens, direct logit
// attribution and activation patching.
#pragma once

#include <iosfwd>

namespace app {

// attnviz --logit-lens MODEL (--text T | --sequence IDS) [--top K]
//     {"tokens", "top": (L, t, K) ids, "p": (L, t, K), "p_next": (L, t), "rank_next": (L, t)}
// attnviz --attribute MODEL (--text T | --sequence IDS) --target TOKEN [--vs TOKEN] [--position I]
//     {"position", "target", "vs", "logit", "embed", "heads": (L, H), "mlps": (L), "bias"}
// attnviz --patch MODEL --clean T --corrupt T (--answer TOKEN --vs TOKEN | --metric loss) [--by head|position]
//     {"clean_metric", "corrupt_metric", "by", "recovery": (L, H) or (L, t)}
// TOKEN: a text that is one token of the model's vocabulary, or #ID. Layers, heads and positions
// count from 1. Returns 0, or 2 after one line "attnviz: …" on `err`.
int run_circuits_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
