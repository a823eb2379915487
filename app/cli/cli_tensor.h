// app/cli/cli_tensor.h — attnviz --tensor MODEL NAME: one of a model's weights as attnviz reads it.
#pragma once

#include <iosfwd>

namespace app {

// Prints {"name", "type", "shape", "values"} of the tensor NAME (as the model's builder names it,
// e.g. "model.layers.0.self_attn.q_proj.weight") of MODEL (any model --forward opens, a GGUF file
// too): its values as float32, row-major, dequantized block by block and in transformers' row
// order, each to 9 significant digits. Returns 0, or 2 after one line "attnviz: …" on `err`.
int run_tensor_mode(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

} // namespace app
