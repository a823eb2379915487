// ui/panels/model/model_rollout.h — attention rollout of the live model's prompt (Abnar and Zuidema 2020):
// R = Â_L ⋯ Â_1 with Â_l = rownorm(mean over heads of A_l + I), as a t × t map; row i is how much
// of position i after the last layer comes from each input token. A colour bar and hover.
#pragma once

#include "ui/view.h"

namespace ui {

struct ModelRolloutView {
    int hovered_row = -1, hovered_column = -1; // this frame
    float hovered_value = 0.0f;
};

void draw_model_rollout_panel(View& v);

} // namespace ui
