// ui/panels/model/model_map.h — the selected head's weights as a map (rows are queries) with token labels
// on both axes (thinned when they do not fit), a colour bar, hover, wheel zoom and drag pan; a click
// selects the query and the key (ModelService::key) and opens Why this score on them. A key outside
// a query's sliding window is shaded apart from a key the causal mask hides (a legend says which is
// which), and a head with a learned sink shows each query's sink share in a column beside its row.
// A linear head's map is its signed matrix M: a diverging map from −max|M| through 0 to +max|M|, its
// colour bar centred at 0. "Save figure…" writes the map as a labelled PNG in the same maps.
#pragma once

#include "ui/ui.h"
#include "ui/view.h"
#include "ui/panels/shared/zoom_map.h"

#include <vector>

namespace ui {

struct ModelMapView : ZoomMap {
    ModelMapView() = default;
    ModelMapView(const ModelMapView&) = delete;
    ModelMapView& operator=(const ModelMapView&) = delete;
    ~ModelMapView() {
        if (texture) uploader->release(texture);
    }

    bool stretch = true; // colours span 0 … the head's largest weight
    // Recorded each frame, for the tests: the head drawn and the labels on each axis.
    int layer = -1, head = -1;
    int row_labels = 0, column_labels = 0;
    int window = 0;           // the layer's sliding window as drawn (0: none)
    bool sink_column = false; // each query's learned sink share drawn beside its row
    bool diverging = false;   // a linear head's signed M: the diverging map, its bar from −range to +range
    float range = 0.0f;       // the colour bar's top (its bottom is −range when diverging, else 0)

    // The visible cells as one texture, a texel a drawn block of step × step cells (the largest
    // weight it covers): a software rasteriser pays per rectangle, and 128 tokens are 16 384 cells.
    // Painted again only when what it shows changes.
    struct Largest {
        long long serial = -1;
        int layer = -1, head = -1;
        float weight = 1.0f; // the head's largest weight (largest |entry| for a signed map)
    } largest;
    struct Blocks {
        long long serial = -1; // of the run
        int layer = -1, head = -1, colour_map = -1, window = 0;
        bool diverging = false;
        float top = 0.0f;
        int row0 = 0, col0 = 0, step = 1, rows = 0, cols = 0; // the first cell, and blocks down and across
        bool operator==(const Blocks& o) const;
    } painted;
    TextureUploader* uploader = nullptr; // the one that made `texture`
    ImTextureID texture = nullptr;
    std::vector<unsigned char> texels; // (painted.rows, painted.cols) RGBA, as sent
    int paintings = 0;                 // times it was painted (the tests read it)
};

void draw_model_map_panel(View& v, TextureUploader& textures);

} // namespace ui
