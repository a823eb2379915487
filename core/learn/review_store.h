// core/learn/review_store.h — the review deck as the window keeps it: loaded once, saved after
// every change, with the problems to show the learner. The Lesson panel adds cards through it;
// the Review panel files reviews through it.
#pragma once

#include "core/learn/review_deck.h"

#include <optional>

#include <string>
#include <vector>

namespace core::learn {

class ReviewStore {
public:
    // Loads `path` (see load_review_deck); message() tells what went wrong, if anything.
    explicit ReviewStore(std::string path, SchedulerOptions options = {});

    const ReviewDeck& deck() const { return deck_; }
    const Scheduler& scheduler() const { return scheduler_; }
    const std::string& path() const { return path_; }
    const std::string& message() const { return message_; }       // from loading
    const std::string& save_error() const { return save_error_; } // from the last save, "" when it worked
    void dismiss_message() { message_.clear(); }

    // A lesson question answered: creates (or refreshes) card `card.id` with the card's text and
    // choices, files the first review with `rating` and saves.
    void answered(const ReviewCard& card, Rating rating, Seconds now);
    // A review of an existing card.
    void file(const std::string& id, Rating rating, Seconds now);
    // An explain-it-back answer, kept with its date.
    void explained(const Explanation& e);

private:
    void save();

    std::string path_;
    Scheduler scheduler_;
    ReviewDeck deck_;
    std::string message_, save_error_;
};

// How long until a card comes back, as Anki writes it under its buttons: "1 min", "10 min",
// "5 h", "3 d", "2.5 mo", "1.2 y".
std::string format_wait(Seconds wait);

// A review in progress: the cards due, the one shown, whether its answer is revealed.
class ReviewQueue {
public:
    // The cards due at `now`, soonest first.
    void refresh(const ReviewDeck& deck, Seconds now);
    const ReviewCard* current(const ReviewDeck& deck) const;
    size_t left() const { return ids_.size(); }

    // A card with choices is answered (rating proposed by correctness); others are revealed as
    // they are (rating proposed Good). Either way the answer and its why are shown next.
    // Picks choice i of the shown card; with several correct choices a pick toggles.
    void pick(const ReviewDeck& deck, int choice);
    void reveal(const ReviewDeck& deck);
    bool revealed() const { return revealed_; }
    const std::vector<int>& picked() const { return picked_; }
    std::optional<bool> correct() const { return correct_; }
    Rating proposed() const { return proposed_; }

    // Files the shown card with `rating` through `store` and moves to the next card due at `now`.
    void file(ReviewStore& store, Rating rating, Seconds now);

private:
    std::vector<std::string> ids_;
    bool revealed_ = false;
    std::vector<int> picked_;
    std::optional<bool> correct_;
    Rating proposed_ = Rating::Good;
};

} // namespace core::learn
