// core/io/scenario_io.h — the scenario file format (JSON), the one format everything uses.
//
//   {"tokens": ["the", "cat", "sat"], "X": [[1, 0], [0, 1], [1, 1]],
//    "W_Q": [[1, 0], [1, 2]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]],
//    "causal": false, "scale": true}
//
// Several heads: "heads": [{"W_Q": …, "W_K": …, "W_V": …}, …] and an optional "W_O".
// Optional: "tokens" (default t1, t2, …), "causal" (false), "scale" (true),
// "positional" ("none" or "sinusoidal"), "pin" ({"head": 0, "row": 2, "q": [x, y]}, 0-based).
#pragma once

#include "core/scenario.h"

#include <string>

namespace core {

// Parses and validates; throws ScenarioError naming the field ("X[1][0] is a string, expected a number").
Scenario parse_scenario(const std::string& text);
// Reads, parses and validates; the message starts with the path ("scene.json: …").
Scenario load_scenario_file(const std::string& path);

// Matrices one row per line; doubles written so that they read back exactly.
std::string to_json_text(const Scenario& s);
// Writes a temporary file beside `path`, fsyncs it and renames it over `path`: a crash at any
// moment leaves either the old file or the new one. Throws ScenarioError on failure.
void save_scenario_file(const std::string& path, const Scenario& s);
// The same for any text.
void write_file_atomically(const std::string& path, const std::string& text);

// One matrix as JSON, one row per line; every line after the first starts with `indent`.
// Non-finite entries (masked scores) are written as null.
std::string matrix_json(const Matrix& m, const std::string& indent);
std::string row_json(const double* v, Eigen::Index size);

// Shortest text that reads back as exactly `x` ("1", "0.1", "1.4142135623730951").
std::string json_number(double x);

constexpr std::size_t max_file_bytes = 256u << 20;
constexpr int max_json_depth = 32;

} // namespace core
