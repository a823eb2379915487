// ui/panels/learn/review.h — the Review panel (spaced repetition of answered lesson questions) and the
// "Review · N due" item of the menu bar.
#pragma once

#include "ui/panels/shared/review_cards.h"
#include "ui/view.h"

namespace ui {

void draw_review_panel(View& v);
// In the menu bar: "Review · N due" while cards are due; it opens the Review panel.
void draw_review_menu_item(View& v);

} // namespace ui
