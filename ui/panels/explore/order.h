// ui/panels/explore/order.h — order and position: shuffle the tokens, see where each output row goes.
#pragma once

#include "core/experiments.h"
#include "ui/view.h"

#include <cstdint>
#include <vector>

namespace ui {

struct OrderView {
    std::uint64_t next_seed = 1;
    std::vector<int> perm;  // the last shuffle: new token i was old token perm[i]
    long long version = -1; // result version the check was made for
    core::OrderCheck check; // redone per result version
};

void draw_order_panel(core::Scenario& s, const core::Result& r, View& v); // edits the scenario

} // namespace ui
