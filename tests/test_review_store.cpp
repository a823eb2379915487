// The review store and queue: what the Review panel and the Lesson panel do, without the window.
#include "core/learn/review_store.h"
#include "tests/review_now.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <unistd.h>

using namespace core::learn;

namespace {


struct TempDir {
    std::string dir = "/tmp/attnviz-store-XXXXXX";
    TempDir() { REQUIRE(::mkdtemp(dir.data()) != nullptr); }
    ~TempDir() { CHECK(std::system(("rm -rf '" + dir + "'").c_str()) == 0); }
};

ReviewCard choice_card(const std::string& id) {
    ReviewCard c;
    c.id = id;
    c.front = "What do the weights of one query add up to?";
    c.back = "1 — softmax divides by the sum.";
    c.choices = {{"0", false}, {"1", true}, {"n", false}};
    return c;
}

} // namespace

TEST_CASE("review queue: a wrong pick proposes Again, the filed due date is the scheduler's, and it survives a restart") {
    TempDir tmp;
    const std::string path = tmp.dir + "/review.json";
    const Rating ratings[] = {Rating::Again, Rating::Hard, Rating::Good, Rating::Easy};
    for (Rating chosen : ratings) {
        ReviewStore store(path);
        REQUIRE(store.message().empty());
        const std::string id = std::string("every-token/sum-") + rating_name(chosen);
        store.answered(choice_card(id), Rating::Good, kNow); // answered right in the lesson
        const FsrsCard before = store.deck().find(id)->fsrs;
        const Seconds at = before.due; // 10 minutes later it is due
        ReviewQueue queue;
        queue.refresh(store.deck(), at);
        REQUIRE(queue.current(store.deck()) != nullptr);
        CHECK(queue.current(store.deck())->id == id);
        queue.pick(store.deck(), 0); // wrong
        queue.reveal(store.deck());
        CHECK(queue.correct() == false);
        CHECK(queue.proposed() == Rating::Again);
        queue.file(store, chosen, at); // the learner may change the proposal
        CHECK(store.save_error().empty());
        CHECK(queue.current(store.deck()) == nullptr);
        const FsrsCard expected = store.scheduler().review(before, chosen, at);
        CAPTURE(rating_name(chosen));
        CHECK(store.deck().find(id)->fsrs == expected);
        const ReviewStore restarted(path);
        CHECK(restarted.deck().find(id)->fsrs == expected);
        CHECK(restarted.deck().find(id)->log.size() == 2);
    }
}

TEST_CASE("review queue: a right pick proposes Good — several correct choices need all of them") {
    TempDir tmp;
    ReviewStore store(tmp.dir + "/review.json");
    ReviewCard multi = choice_card("l/multi");
    multi.choices = {{"query", true}, {"key", true}, {"mask", false}};
    store.answered(choice_card("l/one"), Rating::Again, kNow);
    store.answered(multi, Rating::Again, kNow);
    ReviewQueue q;
    q.refresh(store.deck(), kNow + 60);
    REQUIRE(q.left() == 2);
    q.pick(store.deck(), 1);
    q.reveal(store.deck());
    CHECK(q.correct() == true);
    CHECK(q.proposed() == Rating::Good);
    q.file(store, q.proposed(), kNow + 60);
    REQUIRE(q.current(store.deck())->id == "l/multi");
    q.pick(store.deck(), 0);
    q.pick(store.deck(), 2);
    q.pick(store.deck(), 2); // toggled off again
    q.reveal(store.deck());
    CHECK(q.correct() == false); // "key" is missing
    q.file(store, Rating::Hard, kNow + 60);
    CHECK(q.left() == 0);
}

TEST_CASE("review store: explanations are kept with their date — an unwritable file is reported, not lost") {
    TempDir tmp;
    {
        ReviewStore store(tmp.dir + "/review.json");
        store.explained({"every-token/explain", kNow, "The query is compared with every key.", {true, false, false, false}});
        store.explained({"every-token/explain", kNow + 86400, "Weights add up to 1 and blend the values.", {true, true, true, false}});
    }
    const ReviewStore again(tmp.dir + "/review.json");
    const auto past = again.deck().explanations_of("every-token/explain");
    REQUIRE(past.size() == 2);
    CHECK(past[1]->text == "Weights add up to 1 and blend the values.");
    CHECK(past[1]->time == kNow + 86400);
    CHECK(past[1]->ideas == std::vector<bool>{true, true, true, false});

    ReviewStore blocked(tmp.dir + "/review.json/inside"); // a path under a file cannot be written
    blocked.answered(choice_card("l/x"), Rating::Good, kNow);
    CHECK(blocked.save_error().find(tmp.dir + "/review.json") != std::string::npos);
    CHECK(blocked.deck().find("l/x") != nullptr); // kept in memory
}

TEST_CASE("review: waits read like Anki's") {
    CHECK(format_wait(60) == "1 min");
    CHECK(format_wait(330) == "6 min");
    CHECK(format_wait(600) == "10 min");
    CHECK(format_wait(5 * 3600) == "5 h");
    CHECK(format_wait(3 * 86400) == "3 d");
    CHECK(format_wait(75 * 86400) == "2.5 mo");
    CHECK(format_wait(438 * 86400) == "1.2 y");
}
