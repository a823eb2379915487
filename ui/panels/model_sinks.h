// ui/panels/model_sinks.h — where each head parks its attention: every head's sink share (the mean
// weight its queries put on position 1, core::heads::HeadScores::sink: BOS where the prompt starts
// with it, StreamingLLM's attention sink) as a layers × heads map, and the selected head's weight on
// position 1 query by query.
#pragma once

#include "ui/view.h"

#include <vector>

namespace ui {

struct ModelSinksView {
    int hovered = -1;          // this frame: the map's hovered head, layer · heads + head, or -1
    std::vector<float> shares; // this frame: the selected head's weight on position 1 at positions 2 … t
};

void draw_model_sinks_panel(View& v);

} // namespace ui
