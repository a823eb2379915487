// ui/panels/model_grid.h — every layer × head of the prompt's attention as a small map (rows are
// queries), filling the panel; a click selects a head for the other panels.
#pragma once

#include "ui/view.h"

#include <vector>

namespace ui {

// Each head's map shrunk to side × side blocks (the mean of each block), made once per run.
struct ModelGridView {
    long long serial = -1;
    int side = 0;
    std::vector<float> thumbs; // (layers, heads, side, side), each head scaled to its largest block
};

void draw_model_grid_panel(View& v);

} // namespace ui
