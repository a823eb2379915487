// core/io/arrays.h — arrays from files, for scenario fields and for opening a tensor file as a
// scenario.
//
// A scenario field may point at a file instead of holding numbers:
//   "X": "emb.npy"
//   "W_Q": {"file": "layer3.safetensors", "tensor": "attn.q_proj.weight", "transpose": true}
//   "tokens": "tokens.txt"                       (one token a line, or a JSON array of strings)
// Paths are relative to the scenario file's folder. A 3-d array (heads, rows, cols) gives one
// matrix per head.
#pragma once

#include "core/scenario.h"

#include <string>
#include <vector>

namespace core::io {

struct ArrayRef {
    std::string file;   // as written in the scenario
    std::string tensor; // the name inside an .npz or .safetensors; may be empty when it holds one
    bool transpose = false;
};

// `file` if absolute, else `base_dir`/`file`.
std::string resolve_path(const std::string& base_dir, const std::string& file);

// One matrix for a 2-d array (a 1-d array is one row), one per head for a 3-d one. Throws
// ScenarioError starting with "<field>: <file>: ".
std::vector<Matrix> load_matrices(const ArrayRef& ref, const std::string& base_dir, const std::string& field);
std::vector<std::string> load_token_file(const std::string& file, const std::string& base_dir, const std::string& field);

// A scenario made of a tensor file alone (what --dump FILE, Open and drag and drop accept):
// - .npz / .safetensors whose arrays are named like scenario fields (X, W_Q, W_K, W_V, W_O, or
//   Q, K, V; 3-d for several heads) become that scenario;
// - any other single 2-d array (.npy, .csv, .tsv, a one-array .npz) is X, with identity W's, so
//   that the attention is that of the embeddings as they are; a .csv's first column of names
//   gives the tokens.
Scenario scenario_from_array_file(const std::string& path);
// Whether the file's arrays are named like scenario fields (X, W_Q, …, or Q, K, V), so that it is
// a whole scenario rather than one array; false for a file that cannot be read.
bool names_a_scenario(const std::string& path);

} // namespace core::io
