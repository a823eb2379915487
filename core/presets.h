// core/presets.h — the scenarios the articles use, and random ones for tests and benchmarks.
#pragma once

#include "core/scenario.h"

#include <cstdint>

namespace core {

// Seed 000: "the cat sat", d = 2, the worked example. The default scenario.
Scenario preset_three_tokens();
// Seed 001: 4 tokens, d = 8, a fixed random example (not NumPy's stream).
Scenario preset_numpy_random();
// Seed 002: "the cat ate because it was hungry" in 2D; "it" attends most to "cat".
Scenario preset_it_sentence();
// Seed 001's "original transformer": 8 heads of 64, d_model 512, 16 random tokens, with W_O.
Scenario preset_eight_heads();

// Random scenario with unit-normal embeddings and weights scaled by 1/√d_model, so that
// Q, K and V have entries of variance about 1. Same seed, same scenario, on every platform.
Scenario random_scenario(int n, int d_model, int d_k, int d_v, int heads, bool with_output_projection, std::uint64_t seed);

struct PresetInfo {
    const char* name;
    const char* description;
    Scenario (*make)();
};
const std::vector<PresetInfo>& presets();

} // namespace core
