// core/presets.h — the scenarios the articles use, and random ones for tests and benchmarks.
#pragma once

#include "core/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core {

// Seed 000: "the cat sat", d = 2, the worked example. The default scenario.
Scenario preset_three_tokens();
// Seed 001: 4 tokens, d = 8, a fixed random example (not NumPy's stream).
Scenario preset_numpy_random();
// Seed 002: "the cat ate because it was hungry" in 2D; "it" attends most to "cat".
Scenario preset_it_sentence();
// Seed 001's "original transformer": 8 heads of 64, d_model 512, 16 random tokens, with W_O.
Scenario preset_eight_heads();
// The step-by-step article's NumPy code: Q, K, V = default_rng(0).normal(size=(4, 8)) three times,
// given directly. Its weights, printed as NumPy prints w.round(2), are the article's.
Scenario preset_numpy_example();
// The same for any seed and size: Q, K, V = default_rng(seed).normal(size=(n, d)), in that order.
Scenario numpy_random_qkv(std::uint64_t seed, int n, int d);

// Random scenario with unit-normal embeddings and weights scaled by 1/√d_model, so that
// Q, K and V have entries of variance about 1. Same seed, same scenario, on every platform.
Scenario random_scenario(int n, int d_model, int d_k, int d_v, int heads, bool with_output_projection, std::uint64_t seed);

struct PresetInfo {
    const char* name;        // the title users see
    const char* description;
    Scenario (*make)();
    const char* id = "";     // for --preset ID
};
const std::vector<PresetInfo>& presets();
// The preset with this id, or nullptr.
const PresetInfo* find_preset(const std::string& id);

// "NumPy random: default_rng(seed), n × d" takes its seed and size from the user; this is its id.
constexpr const char* numpy_random_id = "numpy-random";
struct NumpyRandomParams {
    std::uint64_t seed = 0;
    int n = 4;
    int d = 8;
};

} // namespace core
