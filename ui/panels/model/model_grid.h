// ui/panels/model/model_grid.h — every layer × head of the prompt's attention as a small map (rows are
// queries), filling the panel; a click selects a head for the other panels. Each head carries its
// four scores as a strip of four cells along its bottom, and letters mark each score's best head.
// Where a model's layers differ in kind (a window, no RoPE, a learned sink: core/model/attention_kind.h)
// each row writes its layer's kind under its name. A linear layer's thumbnails are of its signed M, on
// the diverging map, with a legend centred at 0 above the grid.
#pragma once

#include "ui/panels/shared/texture_atlas.h"
#include "ui/view.h"

#include <array>
#include <string>
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
    std::vector<std::string> kinds;            // this frame: each row's kind as written ("window 128"), empty when all are full
    bool signed_legend = false;                // this frame: a layer is linear, and the diverging map's legend is shown
};

void draw_model_grid_panel(View& v, TextureUploader& textures);

} // namespace ui
