// The Review panel, headless: the menu bar's "Review · N due", answering a card, the rating
// buttons with their waits, the due date filed against the scheduler, a damaged file reported.
#include "state_home.h"
#include "headless.h"
#include "ui/panels/learn/review.h"
#include "tests/review_now.h"

#include <cstdlib>
#include <unistd.h>

using namespace core::learn;

namespace {

const char* const kButtons[] = {"review_again", "review_hard", "review_good", "review_easy"};


// Two cards answered in a lesson at kNow: a choice question answered right, a recall card wrong.
void answered_deck(const std::string& path) {
    ReviewStore store(path);
    ReviewCard choice;
    choice.id = "every-token/check-sum";
    choice.front = "What do one query's weights add up to?";
    choice.back = "1\nSoftmax divides each exponential by their sum.";
    choice.choices = {{"0", false}, {"1", true}, {"n", false}};
    store.answered(choice, Rating::Good, kNow); // due 10 minutes later
    ReviewCard recall;
    recall.id = "every-token/check-cache";
    recall.front = "100 tokens are cached; how many new rows of K for the 101st?";
    recall.back = "1 row\nOnly the newcomer's key is computed.";
    store.answered(recall, Rating::Again, kNow); // due 1 minute later
}

ui::ReviewState& review(headless::Ui& ui) { return ui.st().view.state<ui::ReviewState>(); }

} // namespace

TEST_CASE("ui review: the menu bar shows the due count and opens the panel — a card is answered and rated") {
    StateHome home;
    answered_deck(home.review_path());
    headless::Ui ui;
    review(ui).now_for_tests = kNow + 30; // nothing due yet
    ui.frames(2);
    CHECK_FALSE(ui.shows("Review·"));
    review(ui).now_for_tests = kNow + 11 * 60; // both due
    ui.frames(2);
    CHECK(ui.shows("Review·2due"));
    ui.click(ui.item("menu_review"));
    ui.frames(2);
    REQUIRE(ui.st().view.open["review"]);
    CHECK(ui.shows("2duenow·2lefttoday·2cards", "Review"));
    // The card due first is the one answered wrong: a recall card, no choices.
    CHECK(ui.shows("100tokensarecached", "Review"));
    CHECK_FALSE(ui.shows("Onlythenewcomer", "Review"));
    ui.click(ui.item("review_show"));
    ui.frames(1);
    CHECK(ui.shows("Onlythenewcomer'skeyiscomputed.", "Review"));
    // Each button shows the wait it would give, as the scheduler computes it.
    const ReviewCard before = *review(ui).store.deck().find("every-token/check-cache");
    const Seconds now = *review(ui).now_for_tests;
    for (Rating r : kRatings) CHECK(ui.shows(format_wait(review(ui).store.scheduler().review(before.fsrs, r, now).due - now), "Review"));
    ui.click(ui.item("review_good"));
    ui.frames(1);
    CHECK(review(ui).store.deck().find("every-token/check-cache")->fsrs == review(ui).store.scheduler().review(before.fsrs, Rating::Good, now));
    // Next: the choice card. A wrong pick proposes Again; the why is shown.
    CHECK(ui.shows("Whatdoonequery'sweightsaddupto?", "Review"));
    ui.click(ui.item("review_choice_0"));
    ui.click(ui.item("review_show"));
    ui.frames(1);
    CHECK(ui.shows("Notquite.", "Review"));
    CHECK(ui.shows("Softmaxdivideseachexponentialbytheirsum.", "Review"));
    CHECK(review(ui).queue.proposed() == Rating::Again);
    ui.click(ui.item("review_again"));
    ui.frames(1);
    CHECK(ui.shows("Nothingtoreviewnow.", "Review"));
    // Both reviews are on disk.
    const LoadedDeck saved = load_review_deck(home.review_path());
    CHECK(saved.deck.find("every-token/check-sum")->log.size() == 2);
    CHECK(saved.deck.find("every-token/check-cache")->log.back().rating == Rating::Good);
}

TEST_CASE("ui review: each rating button files the due date the scheduler gives") {
    for (int k = 0; k < 4; ++k) {
        StateHome home;
        answered_deck(home.review_path());
        headless::Ui ui;
        review(ui).now_for_tests = kNow + 11 * 60;
        ui.st().view.open["review"] = true;
        ui.frames(2);
        const ReviewCard before = *review(ui).store.deck().find("every-token/check-cache");
        ui.click(ui.item("review_show"));
        ui.frames(1);
        ui.click(ui.item(kButtons[k]));
        ui.frames(1);
        CAPTURE(kButtons[k]);
        const FsrsCard expected = review(ui).store.scheduler().review(before.fsrs, kRatings[k], kNow + 11 * 60);
        CHECK(load_review_deck(home.review_path()).deck.find("every-token/check-cache")->fsrs == expected);
    }
}

TEST_CASE("ui review: a damaged review file is reported in the window and the backup is used") {
    StateHome home;
    answered_deck(home.review_path());
    answered_deck(home.review_path()); // a second save: the first is now the backup
    { std::ofstream(home.review_path()) << "{ not json"; }
    headless::Ui ui;
    review(ui).now_for_tests = kNow + 11 * 60;
    ui.frames(2);
    CHECK(ui.st().view.status_is_error);
    CHECK(ui.st().view.status.find(home.review_path() + ": line 1") == 0);
    CHECK(ui.st().view.open["review"]);
    CHECK(ui.shows("loadedthebackup", "Review"));
    CHECK(review(ui).store.deck().cards().size() == 2);
}
