// ui/panels/train/train_curves.h — the Train panel's loss and accuracy curves: labelled axes, the step
// the scrubber shows, and the moment the loss drops marked so that it is seen at a glance.
#pragma once

#include "core/train/session.h"

#include <vector>

namespace ui {

// The step around which the loss falls most steeply after its first fall: the mean loss over a
// window of a tenth of the run, before against after. -1 when the curve is too short or no fall
// reaches a tenth of the largest loss.
int loss_drop_step(const std::vector<core::train::CurvePoint>& curve);

// Loss (red, left axis, 0 to its largest) and accuracy (blue, right axis, 0 to 100 %) against the
// step (bottom axis, linear or log), `height` tall; a line at `marker_step` (none when < 0).
void draw_training_curves(const std::vector<core::train::CurvePoint>& curve, bool log_x, float height, int marker_step);

} // namespace ui
