// ui/panels/model/model_tokens.h — the prompt's tokens as chips: each as a person reads it (␣cat for Ġcat
// and ▁cat, ##s kept), its id on hover; a click selects the query position every panel shows.
#pragma once

#include "ui/view.h"

namespace ui {

void draw_model_tokens_panel(View& v);

} // namespace ui
