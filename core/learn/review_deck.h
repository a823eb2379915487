// core/learn/review_deck.h — the learner's review cards: one per answered lesson question, each
// with its FSRS state and review log, kept in $XDG_STATE_HOME/attnviz/review.json.
//
// A card keeps its own copy of the question and answer text, so that Review and the Anki export
// still work after a lesson is edited or removed. The file is written atomically (temp file,
// fsync, rename) and the version it replaces is kept as review.json.bak: a kill -9 at any moment
// loses at most the review being filed. A file that does not read is moved aside to
// review.json.bad, reported, and the backup loaded: never silently replaced by an empty deck.
#pragma once

#include "core/learn/fsrs.h"

#include <string>
#include <vector>

namespace core::learn {

struct ReviewEntry {
    Seconds time = 0;
    Rating rating = Rating::Good;
    Seconds due_after = 0; // when the card came due after this review
};

// A choice of a multiple-choice card, kept so that Review can ask the question again.
struct ReviewChoice {
    std::string text;
    bool correct = false;
};

struct ReviewCard {
    std::string id;    // "lesson_id/step_id"
    std::string front; // the question, as asked
    std::string back;  // the correct answer and why
    std::vector<ReviewChoice> choices; // empty: the learner recalls the answer, then reveals it
    FsrsCard fsrs;
    std::vector<ReviewEntry> log;
};

// Whether `picked` (indices into card.choices) is exactly the set of correct choices.
bool choices_correct(const ReviewCard& card, const std::vector<int>& picked);

// An "explain it back" answer, kept with its date so that the learner can compare later.
struct Explanation {
    std::string id;   // "lesson_id/step_id"
    Seconds time = 0;
    std::string text;
    std::vector<bool> ideas; // the key ideas ticked, in the step's order
};

// What a lesson answer proposes: wrong is Again, right is Good. The learner may change it.
inline Rating proposed_rating(bool correct) { return correct ? Rating::Good : Rating::Again; }

class ReviewDeck {
public:
    const std::vector<ReviewCard>& cards() const { return cards_; }
    const ReviewCard* find(const std::string& id) const;

    // Creates the card, or refreshes its text if the lesson changed it (its schedule stays).
    ReviewCard& upsert(const std::string& id, const std::string& front, const std::string& back,
                       const std::vector<ReviewChoice>& choices = {});
    // Files one review of card `id` (which must exist) at `now`, and returns the card.
    const ReviewCard& file(const std::string& id, Rating rating, Seconds now, const Scheduler& sched);

    // The cards due at `until` (due <= until), soonest first.
    std::vector<const ReviewCard*> due(Seconds until) const;
    int due_count(Seconds until) const;

    const std::vector<Explanation>& explanations() const { return explanations_; }
    // The answers given to explain step `id`, oldest first.
    std::vector<const Explanation*> explanations_of(const std::string& id) const;
    void add_explanation(Explanation e) { explanations_.push_back(std::move(e)); }

    bool operator==(const ReviewDeck& o) const;

private:
    ReviewCard* find_mutable(const std::string& id);
    std::vector<ReviewCard> cards_;
    std::vector<Explanation> explanations_;
};

// review.json in core::io::state_dir(): $XDG_STATE_HOME/attnviz, else ~/.local/state/attnviz (the
// home as core/io/user_dirs.h finds it).
std::string default_review_path();

std::string deck_to_json(const ReviewDeck& deck);
// Throws std::runtime_error "LABEL: line L, column C: why" or "LABEL: cards[i].field: why".
ReviewDeck deck_from_json(const std::string& text, const std::string& label);

struct LoadedDeck {
    ReviewDeck deck;
    std::string message; // for the learner: empty when the file read cleanly (or did not exist yet)
};
// Never throws. See the header comment for what happens to a bad file.
LoadedDeck load_review_deck(const std::string& path);
// Keeps the current file as PATH.bak, then writes the deck atomically. Throws std::runtime_error.
void save_review_deck(const std::string& path, const ReviewDeck& deck);

// Anki's tab-separated import text: a "#separator:Tab" header, then Front, Back, Tags per card.
std::string deck_to_anki(const ReviewDeck& deck);

} // namespace core::learn
