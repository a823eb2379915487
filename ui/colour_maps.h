// ui/colour_maps.h — the colour maps the panels paint matrices with, chosen in View ▸ Colour maps
// and kept in settings.json. Weights (in [0, 1]) use a sequential map: viridis, or cividis for
// colour-vision deficiency. Signed matrices (scores, Q, K, V, Z) use a diverging map centred on 0:
// negative one hue, positive another, 0 close to the panel background of the theme, so that the
// sign reads at a glance and near-zero entries stay quiet.
#pragma once

#include "core/io/settings.h"

#include <imgui.h>

namespace ui {

struct ColourMaps {
    core::io::WeightsMap weights = core::io::WeightsMap::viridis;
    core::io::SignedMap signed_map = core::io::SignedMap::blue_red;
    core::io::Theme theme = core::io::Theme::dark; // the diverging maps' middle follows the background
};

// The maps every panel paints with from now on (the App sets them once per frame).
void use_colour_maps(const ColourMaps& maps);
const ColourMaps& colour_maps();

// t in [0, 1] through the weights map (table lookup: big heatmaps colour a million cells).
ImU32 weights_colour(double t);
// t in [−1, 1] through the signed map; 0 is the middle.
ImU32 signed_colour(double t);
// Colour c as a texel's bytes R, G, B, A (ImU32 is ABGR), opaque.
void put_rgba(unsigned char* rgba, ImU32 c);

} // namespace ui
