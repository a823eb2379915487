// ui/panels/model_grid.h — every layer × head of the prompt's attention as a small map (rows are
// queries), filling the panel; a click selects a head for the other panels. Each head carries its
// four scores as a strip of four cells along its bottom, and letters mark each score's best head.
#pragma once

#include "ui/texture_atlas.h"
#include "ui/view.h"

#include <array>
#include <vector>

namespace ui {

// Each head's map shrunk to side × side blocks (the mean of each block), made once per run and
// painted into one texture, again when the weights' colour map changes.
struct ModelGridView {
    long long serial = -1;
    int side = 0;
    std::vector<float> thumbs; // (layers, heads, side, side), each head scaled to its largest block
    TextureAtlas atlas;        // layers × heads cells of side texels
    long long painted = -1;    // the run the atlas was painted with
    int colour_map = -1;       // and the weights map (core::io::WeightsMap)
    int paintings = 0;         // times the atlas was painted (the tests read it)
    std::array<int, 4> best{{-1, -1, -1, -1}}; // per score, the head marked best (layer · heads + head), this frame
};

void draw_model_grid_panel(View& v, TextureUploader& textures);

} // namespace ui
