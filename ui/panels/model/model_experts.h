// ui/panels/model/model_experts.h — where a mixture of experts sends each token: for the chosen mixture
// layer, a positions × experts map of the router's probabilities with each position's chosen
// experts outlined; each expert's load over the prompt; the experts a clicked position went to in
// every layer; expert knock-outs (Ctrl+click, or a click in knock-out mode); and expert importance,
// measured on a worker, as a mixture layers × experts map of Δloss.
#pragma once

#include "ui/view.h"

#include <vector>

namespace ui {

struct ModelExpertsView {
    bool importance = false; // which view: the routing (false) or expert importance
    int routed = 0;         // the mixture layer shown: an index of the snapshot's routing
    int position = -1;      // the clicked position, whose experts in every layer are listed (-1: none)
    int hovered = -1;       // this frame: the map's hovered cell, position · experts + expert, or -1
    double hovered_probability = 0.0;
    std::vector<float> load; // this frame: each expert's share of the shown layer's choices
    int importance_hovered = -1; // this frame: the importance map's hovered cell, row · experts + expert
    bool no_mixture = false;     // this frame: the model has no mixture-of-experts layer
};

void draw_model_experts_panel(View& v);

} // namespace ui
