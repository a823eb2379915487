// core/learn/review_store.cpp — see review_store.h.
#include "core/learn/review_store.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace core::learn {

// [SECTION] store
ReviewStore::ReviewStore(std::string path, SchedulerOptions options) : path_(std::move(path)), scheduler_(std::move(options)) {
    LoadedDeck loaded = load_review_deck(path_);
    deck_ = std::move(loaded.deck);
    message_ = std::move(loaded.message);
}

void ReviewStore::save() {
    try {
        save_review_deck(path_, deck_);
        save_error_.clear();
    } catch (const std::exception& e) {
        save_error_ = e.what(); // shown in the window; the deck stays in memory and the next change retries
    }
}

void ReviewStore::answered(const ReviewCard& card, Rating rating, Seconds now) {
    deck_.upsert(card.id, card.front, card.back, card.choices);
    deck_.file(card.id, rating, now, scheduler_);
    save();
}

void ReviewStore::file(const std::string& id, Rating rating, Seconds now) {
    deck_.file(id, rating, now, scheduler_);
    save();
}

void ReviewStore::explained(const Explanation& e) {
    deck_.add_explanation(e);
    save();
}

std::string format_wait(Seconds wait) {
    const double minutes = static_cast<double>(wait) / 60.0;
    char buf[32];
    if (minutes < 60) std::snprintf(buf, sizeof buf, "%.0f min", std::max(1.0, std::round(minutes)));
    else if (minutes < 24 * 60) std::snprintf(buf, sizeof buf, "%.0f h", std::round(minutes / 60));
    else if (minutes < 30 * 24 * 60) std::snprintf(buf, sizeof buf, "%.0f d", std::round(minutes / (24 * 60)));
    else if (minutes < 365 * 24 * 60) std::snprintf(buf, sizeof buf, "%.1f mo", minutes / (30 * 24 * 60));
    else std::snprintf(buf, sizeof buf, "%.1f y", minutes / (365 * 24 * 60));
    return buf;
}

// [SECTION] queue
void ReviewQueue::refresh(const ReviewDeck& deck, Seconds now) {
    const std::string shown = ids_.empty() ? "" : ids_.front();
    ids_.clear();
    for (const ReviewCard* c : deck.due(now)) ids_.push_back(c->id);
    if (ids_.empty() || ids_.front() != shown) { // a new card on top: start it afresh
        revealed_ = false;
        picked_.clear();
        correct_.reset();
    }
}

void ReviewQueue::pick(const ReviewDeck& deck, int choice) {
    const ReviewCard* c = current(deck);
    if (!c || revealed_ || choice < 0 || choice >= static_cast<int>(c->choices.size())) return;
    const auto n_correct = std::count_if(c->choices.begin(), c->choices.end(), [](const ReviewChoice& ch) { return ch.correct; });
    const auto at = std::find(picked_.begin(), picked_.end(), choice);
    if (n_correct <= 1) picked_ = {choice};
    else if (at == picked_.end()) picked_.push_back(choice);
    else picked_.erase(at);
}

const ReviewCard* ReviewQueue::current(const ReviewDeck& deck) const { return ids_.empty() ? nullptr : deck.find(ids_.front()); }

void ReviewQueue::reveal(const ReviewDeck& deck) {
    const ReviewCard* c = current(deck);
    if (!c) return;
    revealed_ = true;
    if (!c->choices.empty()) {
        correct_ = choices_correct(*c, picked_);
        proposed_ = proposed_rating(*correct_);
    } else {
        correct_.reset();
        proposed_ = Rating::Good;
    }
}

void ReviewQueue::file(ReviewStore& store, Rating rating, Seconds now) {
    const ReviewCard* c = current(store.deck());
    if (!c || !revealed_) return;
    store.file(c->id, rating, now);
    ids_.erase(ids_.begin());
    revealed_ = false;
    picked_.clear();
    correct_.reset();
    refresh(store.deck(), now);
}

} // namespace core::learn
