// core/io/scenario_io.h — the scenario file format (JSON), the one format everything uses.
//
//   {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
//    "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]],
//    "causal": false, "scale": true}
//
// Several heads: "heads": [{"W_Q": …, "W_K": …, "W_V": …}, …] and an optional "W_O".
// Q, K and V given directly: "Q", "K", "V" (or "heads": [{"Q": …, "K": …, "V": …}, …]) instead of X
// and the W's. Any matrix may name a file instead: "X": "emb.npy", "W_Q": {"file": "l3.safetensors",
// "tensor": "attn.q_proj.weight", "transpose": true}; "tokens": "tokens.txt" (see core/io/arrays.h).
// Optional: "tokens" (default t1, t2, …), "causal" (false), "scale" (true: 1/√d_k; false: none; a
// number: that factor), "window" (0: none; a sliding window's width), "softcap" (0: none; the cap),
// "positional" ("none" or "sinusoidal"), "pin" ({"head": 0, "row": 2, "q": [x, y]}, 0-based).
#pragma once

#include "core/scenario.h"

#include <string>

namespace core::io {

// Parses and validates; throws ScenarioError naming the field ("X[1][0] is a string, expected a number").
// Fields that name files (see core/io/arrays.h) are read relative to `base_dir`.
Scenario parse_scenario(const std::string& text, const std::string& base_dir = "");
// Reads, parses and validates; the message starts with the path ("scene.json: …"). A file of
// arrays (core/io/formats.h) is opened as core/io/arrays.h's scenario_from_array_file does.
Scenario load_scenario_file(const std::string& path);

// Matrices one row per line; doubles written so that they read back exactly.
std::string to_json_text(const Scenario& s);
// Writes atomically (core/io/files.h). Throws ScenarioError when the scenario is invalid or the
// file cannot be written.
void save_scenario_file(const std::string& path, const Scenario& s);

// One matrix as JSON, one row per line; every line after the first starts with `indent`.
// Non-finite entries (masked scores) are written as null.
std::string matrix_json(const Matrix& m, const std::string& indent);
std::string row_json(const double* v, Eigen::Index size);

} // namespace core::io
