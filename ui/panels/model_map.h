// ui/panels/model_map.h — the selected head's weights as a map (rows are queries) with token labels
// on both axes (thinned when they do not fit), a colour bar, hover, wheel zoom and drag pan; a click
// selects the query and the key (ModelService::key, for QK attribution).
#pragma once

#include "ui/view.h"
#include "ui/zoom_map.h"

namespace ui {

struct ModelMapView : ZoomMap {
    bool stretch = true; // colours span 0 … the head's largest weight
    // Recorded each frame, for the tests: the head drawn and the labels on each axis.
    int layer = -1, head = -1;
    int row_labels = 0, column_labels = 0;
};

void draw_model_map_panel(View& v);

} // namespace ui
