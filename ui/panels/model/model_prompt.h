// ui/panels/model/model_prompt.h — the Model workspace's prompt: which model is open, the prompt box (typing
// re-runs the model on the session's worker), a progress bar with Cancel for a slow forward, the
// run's error, Save attention…, and the Open model window (the Hugging Face cache's models with
// their sizes, the bundled model, a file or directory).
#pragma once

#include "ui/view.h"
#include "ui/panels/shared/wrapped_input.h"

namespace ui {

// The prompt box, soft-wrapped to the panel's width (its text, m.prompt, holds no inserted breaks).
struct ModelPromptView {
    WrappedInput box;
};

void draw_model_prompt_panel(View& v);
// Each frame's start: the newest run becomes the one shown (publishers() in ui/panel_table.h).
void publish_model_snapshot(View& v);

} // namespace ui
