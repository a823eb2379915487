// app/cli_model.h — the command-line modes of real checkpoints: --forward, --generate,
// --export-attention and --bench-model on a model directory (or attnviz's own .safetensors).
#pragma once

#include <iosfwd>

namespace app {

// Whether the arguments ask for a checkpoint mode (then run_model_mode owns every flag). A
// --forward of attnviz's own .safetensors with --sequence stays with --train's modes.
bool wants_model_mode(int argc, const char* const* argv);

// attnviz --forward MODEL (--text TEXT | --sequence "ids")
// attnviz --generate MODEL (--text TEXT | --sequence "ids") --tokens N
// attnviz --export-attention MODEL (--text TEXT | --sequence "ids") --out att.safetensors
// attnviz --bench-model MODEL --tokens N [--reps R]
// Returns 0, or 2 after one line "attnviz: …" on `err`.
int run_model_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
