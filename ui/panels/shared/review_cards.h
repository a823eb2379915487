// ui/panels/shared/review_cards.h — the review deck as the window keeps it, and the one way a review is filed:
// the Review panel (a due card) and the Lesson panel (an answered question) both file through
// file_review, with the same four rating buttons.
#pragma once

#include "core/learn/review_store.h"
#include "ui/view.h"

#include <optional>
#include <string>

namespace ui {

// v.state<ReviewState>(): it loads $XDG_STATE_HOME/attnviz/review.json on first use.
struct ReviewState {
    core::learn::ReviewStore store{core::learn::default_review_path()};
    core::learn::ReviewQueue queue;
    std::optional<core::learn::Seconds> now_for_tests; // the clock, unless set
    bool told = false; // the load problem went to the status line
    core::learn::Seconds now() const;
    // The end of the learner's day (local midnight) after `t`: "left today" counts up to it.
    static core::learn::Seconds end_of_day(core::learn::Seconds t);
};

// "Again", "Hard", "Good", "Easy".
const char* rating_label(core::learn::Rating rating);
// "2026-03-01 14:05", local time.
std::string local_time_text(core::learn::Seconds t);

// Four buttons, `proposed` highlighted, each with the wait it gives a card in state `from`
// underneath; each is remembered as `item_prefix` + "again", "hard", … The one clicked, if any.
std::optional<core::learn::Rating> rating_buttons(View& v, const ReviewState& rs, const core::learn::FsrsCard& from,
                                                  core::learn::Rating proposed, const std::string& item_prefix);

// Files a review of `card` with `rating` now (a card not yet in the deck is added first), saves
// the deck, and moves the Review panel's queue on when the card was its current one. Returns the
// wait until the card is due again ("3 d").
std::string file_review(ReviewState& rs, const core::learn::ReviewCard& card, core::learn::Rating rating);

} // namespace ui
