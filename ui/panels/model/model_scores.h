// ui/panels/model/model_scores.h — every head of the live model by its four scores (previous, duplicate,
// induction, entropy) in a table sorted by a clicked column header; a click on a row selects the
// head; the best head of each score is marked. Above it, the sequence scored: the prompt or the probe.
#pragma once

#include "ui/view.h"

#include <vector>

namespace ui {

struct ModelScoresView {
    int sort_column = 0;     // 0 the head, 1 … 4 the scores in grid order
    bool descending = false;
    std::vector<int> order;  // the rows as listed this frame: head indices (layer · heads + head)
};

void draw_model_scores_panel(View& v);

} // namespace ui
