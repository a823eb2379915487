// ui/panels/model_predictions.h — the model's ten most likely next tokens after the selected position
// (a causal LM), or the ten most likely fillers of each [MASK] (BERT), with their probabilities.
#pragma once

#include "ui/view.h"

#include <vector>

namespace ui {

struct ModelPredictionsView {
    std::vector<int> shown; // recorded each frame, for the tests: the ids listed, in order
};

void draw_model_predictions_panel(View& v);

} // namespace ui
