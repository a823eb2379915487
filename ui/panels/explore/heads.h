// ui/panels/explore/heads.h — several heads: add and remove them, their maps, the concatenation and W_O.
#pragma once

#include "ui/view.h"

#include <cstdint>
#include <vector>

namespace ui {

struct HeadsView {
    std::uint64_t next_seed = 1; // seeds the weights of the next added head
    // Thumbnails: per head, blocks × blocks shares of attention (row-major), refreshed per result version.
    long long version = -1;
    int blocks = 0;
    std::vector<std::vector<float>> shares;
    std::vector<ImRect> thumbnails; // recorded: each head's thumbnail on screen
};

void draw_heads_panel(core::Scenario& s, const core::Result& r, View& v); // edits the scenario

} // namespace ui
