// ui/panels/shared/head_map.h — a (layers, heads) map of one value a head, as the Model workspace's panels draw
// them (head importance, attribution, patching): the diverging colours over the largest |value|,
// layer and head labels, the selected head outlined, a colour bar; a click selects the head.
#pragma once

#include "core/scenario.h"
#include "ui/view.h"

namespace ui {

// How a map's values are coloured: signed values in diverging colours over the largest |value|, or
// shares (0 … 1) in the sequential colours of the attention maps, 0 to 1.
enum class HeadMapScale { signed_values, shares };

// Draws `values` (layers, heads) at the cursor, recorded as v.grids[id]; a non-finite value is
// masked. Returns the hovered cell as layer · heads + head (the caller's tooltip goes with it), or
// -1; a click sets layer and head.
int draw_head_map(View& v, const char* id, const core::Matrix& values, int& layer, int& head,
                  HeadMapScale scale = HeadMapScale::signed_values);

// The largest |value| of the finite entries (at least 1e-9): what a map's diverging colours span.
double colour_span(const core::Matrix& values);

} // namespace ui
