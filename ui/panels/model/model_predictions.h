// ui/panels/model/model_predictions.h — the model's ten most likely next tokens after the selected position
// (a causal LM), or the ten most likely fillers of each [MASK] (BERT), with their probabilities, and
// the prompt's loss; with heads knocked out, the intact model's beside them.
#pragma once

#include "ui/view.h"

#include <vector>

namespace ui {

struct ModelPredictionsView {
    std::vector<int> shown; // recorded each frame, for the tests: the ids listed, in order
    std::vector<int> intact_shown; // with knock-outs, the intact model's ids listed beside them
    double loss = 0.0, intact_loss = 0.0; // the prompt's loss as shown (a causal LM)
};

void draw_model_predictions_panel(View& v);

} // namespace ui
