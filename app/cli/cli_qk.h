// app/cli/cli_qk.h — why heads attend where they do, on the command line: composition scores between
// heads (core/model/circuits/composition.h) and one head's scores as sums over pairs of the
// stream's components (core/model/circuits/qk.h).
#pragma once

#include <iosfwd>

namespace app {

// attnviz --composition MODEL [--kind q|k|v]
//     {"kind", "scores": (L, H, L, H)}, [l₁][h₁][l₂][h₂] the score of head h₁ of layer l₁ into h₂ of
//     l₂, null unless l₁ < l₂; --kind k by default
// attnviz --qk MODEL (--text T | --sequence IDS) --head L.H --query I [--key J]
//     {"head", "query", "keys", "scores"}: every key the query sees and its score (before any
//     soft-cap); with --key also "key", "components", "pairs" (C, C), "bias", "score" (Σ pairs +
//     bias) and "top", the three largest pairs in words
// Layers, heads and positions count from 1. Returns 0, or 2 after one line "attnviz: …" on `err`.
int run_qk_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
