// core/presets.h — the scenarios the articles use, and random ones for tests and benchmarks.
#pragma once

#include "core/scenario.h"

#include <cstdint>

namespace core {

// "the cat sat", d = 2: the three-token article's worked example. The default scenario.
Scenario preset_three_tokens();
// The step-by-step article's NumPy example: 4 tokens, d = 8.
Scenario preset_numpy_random();
// "the cat ate because it was hungry" in 2D; "it" attends most to "cat".
Scenario preset_it_sentence();
// The "original transformer" of the step-by-step article: 8 heads of 64, d_model 512, 16 random tokens, with W_O.
Scenario preset_eight_heads();

// The shape of a random scenario, e.g. Shape{}.with_tokens(9).with_width(4).with_heads(2).with_W_O().
struct Shape {
    int n = 1, d_model = 1, d_k = 1, d_v = 1, heads = 1;
    bool output_projection = false; // with a W_O of (heads·d_v, d_model)

    Shape& with_tokens(int count) { n = count; return *this; }
    Shape& with_d_model(int d) { d_model = d; return *this; }
    Shape& with_d_k(int d) { d_k = d; return *this; }
    Shape& with_d_v(int d) { d_v = d; return *this; }
    Shape& with_width(int d) { d_model = d_k = d_v = d; return *this; } // d_model = d_k = d_v = d
    Shape& with_heads(int count) { heads = count; return *this; }
    Shape& with_W_O(bool on = true) { output_projection = on; return *this; }
};

// Random scenario with unit-normal embeddings and weights scaled by 1/√d_model, so that
// Q, K and V have entries of variance about 1. Same seed, same scenario, on every platform.
Scenario random_scenario(const Shape& shape, std::uint64_t seed);
// What --bench-core and --bench-frames time: n random tokens, every width d, one head, no W_O.
Scenario bench_scenario(int n, int d);

struct PresetInfo {
    const char* name;
    const char* description;
    Scenario (*make)();
};
const std::vector<PresetInfo>& presets();

} // namespace core
