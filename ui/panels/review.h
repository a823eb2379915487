// ui/panels/review.h — the Review panel (spaced repetition of answered lesson questions) and the
// "Review · N due" item of the menu bar.
#pragma once

#include "core/learn/review_store.h"
#include "ui/view.h"

#include <optional>

namespace ui {

// The review deck as the window keeps it, shared by the Review and Lesson panels:
// v.state<ReviewState>(). It loads $XDG_STATE_HOME/attnviz/review.json on first use.
struct ReviewState {
    core::learn::ReviewStore store{core::learn::default_review_path()};
    core::learn::ReviewQueue queue;
    std::optional<core::learn::Seconds> now_for_tests; // the clock, unless set
    bool told = false; // the load problem went to the status line
    core::learn::Seconds now() const;
    // The end of the learner's day (local midnight) after `t`: "left today" counts up to it.
    static core::learn::Seconds end_of_day(core::learn::Seconds t);
};

void draw_review_panel(View& v);
// In the menu bar: "Review · N due" while cards are due; it opens the Review panel.
void draw_review_menu_item(View& v);

} // namespace ui
