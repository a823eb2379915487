// ui/panels/explore/tokens.h — token names and embeddings (X), edited in place; d_model.
#pragma once

#include "ui/view.h"

namespace ui {

void draw_tokens_panel(core::Scenario& s, View& v); // edits the scenario

} // namespace ui
