// ui/panels/model/model_importance.h — head importance on the live model: a button measures, on a worker,
// the loss on the prompt with each head alone knocked out to zero, with a progress bar and Cancel;
// the result is a layer × head map of Δloss with a colour bar, a value on hover, a click selects.
#pragma once

#include "ui/view.h"

namespace ui {

struct ModelImportanceView {
    int hovered = -1;       // the head under the pointer this frame (layer · heads + head), -1: none
    double hovered_delta = 0.0;
};

void draw_model_importance_panel(View& v);

} // namespace ui
