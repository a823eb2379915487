// app/cli/cli_presets.h — --presets, --preset ID [--seed S --tokens N --dim D], and opening any file
// attnviz reads (a scenario, or a tensor file) wherever FILE goes.
#pragma once

#include "app/options.h"
#include "core/scenario.h"

#include <string>

namespace app {

// [{"id": "cat-sat", "title": "the cat sat — worked example"}, …] and a newline.
std::string presets_json();
// Checks --preset and its --seed/--tokens/--dim (only "numpy-random" takes them) and fills their
// defaults (seed 0, 4 × 8). Throws UsageError.
void check_preset_args(Options& o, bool seed_given, bool tokens_given, bool dim_given);
// The scenario of --preset; the seed, tokens and dim of `o` for "numpy-random".
core::Scenario preset_scenario(const Options& o);

} // namespace app
