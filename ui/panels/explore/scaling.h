// ui/panels/explore/scaling.h — why divide by √d_k: the variance of q·k with and without the division.
#pragma once

#include "core/experiments.h"
#include "ui/view.h"

#include <cstdint>

namespace ui {

struct ScalingView {
    int d_k = 64, samples = 10000;
    std::uint64_t seed = 1;
    bool same_axis = true;
    // What was last run, so the experiment reruns only when an input changes.
    int ran_d_k = 0, ran_samples = 0;
    std::uint64_t ran_seed = 0;
    core::ScalingExperiment experiment;
};

void draw_scaling_panel(View& v);

} // namespace ui
