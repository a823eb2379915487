// ui/panels/model/model_sinks.h — where each head parks its attention: every head's sink share
// (core::heads::HeadScores::sink: its learned sink's mean share where its layer has one, as gpt-oss's
// do, else the mean weight its queries put on position 1, BOS where the prompt starts with it,
// StreamingLLM's attention sink) as a layers × heads map, and the selected head's share query by query.
#pragma once

#include "ui/view.h"

#include <vector>

namespace ui {

struct ModelSinksView {
    int hovered = -1;          // this frame: the map's hovered head, layer · heads + head, or -1
    std::vector<float> shares; // this frame: the selected head's learned sink share at positions 1 … t, or
                               // its weight on position 1 at positions 2 … t
    bool learned = false;      // this frame: the selected head's layer has a learned sink
};

void draw_model_sinks_panel(View& v);

} // namespace ui
