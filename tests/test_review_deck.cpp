// The review deck: filing reviews, the review.json file, its backup, a kill -9, the Anki export.
#include "core/learn/review_deck.h"
#include "tests/review_now.h"

#include <doctest/doctest.h>

#include <csignal>
#include <cstdio>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace core::learn;

namespace {


std::string review_dir() {
    std::string dir = "/tmp/attnviz-review-XXXXXX";
    REQUIRE(::mkdtemp(dir.data()) != nullptr);
    return dir;
}
std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}
void write_text(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

ReviewDeck sample_deck() {
    ReviewDeck deck;
    deck.upsert("every-token/q-opposite", "A query and a key point opposite ways. Their score?", "Negative: the dot product is below 0.\tTab");
    deck.upsert("every-token/q-sum", "What do one query's weights add up to?", "1 <exactly> & always");
    const Scheduler sched;
    deck.file("every-token/q-opposite", Rating::Good, kNow, sched);
    deck.file("every-token/q-sum", Rating::Again, kNow, sched);
    return deck;
}

size_t total_reviews(const ReviewDeck& deck) {
    size_t n = 0;
    for (const ReviewCard& c : deck.cards()) n += c.log.size();
    return n;
}

} // namespace

TEST_CASE("review deck: each rating files the due date the scheduler gives, and logs it") {
    const Scheduler sched;
    for (Rating r : kRatings) {
        ReviewDeck deck = sample_deck();
        const ReviewCard before = *deck.find("every-token/q-opposite");
        const Seconds later = before.fsrs.due + 5;
        const ReviewCard& after = deck.file("every-token/q-opposite", r, later, sched);
        CAPTURE(rating_name(r));
        CHECK(after.fsrs == sched.review(before.fsrs, r, later));
        CHECK(after.fsrs.due > later);
        REQUIRE(after.log.size() == 2);
        CHECK(after.log.back().rating == r);
        CHECK(after.log.back().time == later);
        CHECK(after.log.back().due_after == after.fsrs.due);
    }
    CHECK(proposed_rating(true) == Rating::Good);
    CHECK(proposed_rating(false) == Rating::Again);
}

TEST_CASE("review deck: due cards, soonest first — refreshed text keeps the schedule") {
    ReviewDeck deck = sample_deck();
    // q-sum was wrong (Again: due in 1 minute), q-opposite right (Good: 10 minutes).
    CHECK(deck.due_count(kNow) == 0);
    CHECK(deck.due_count(kNow + 60) == 1);
    const auto due = deck.due(kNow + 3600);
    REQUIRE(due.size() == 2);
    CHECK(due[0]->id == "every-token/q-sum");
    const FsrsCard kept = deck.find("every-token/q-sum")->fsrs;
    deck.upsert("every-token/q-sum", "New wording?", "New answer");
    CHECK(deck.find("every-token/q-sum")->front == "New wording?");
    CHECK(deck.find("every-token/q-sum")->fsrs == kept);
    CHECK(deck.cards().size() == 2);
}

TEST_CASE("review deck: the cards survive a restart (save, then load in a fresh deck)") {
    const std::string dir = review_dir();
    const std::string path = dir + "/state/attnviz/review.json"; // folders are created
    const ReviewDeck deck = sample_deck();
    save_review_deck(path, deck);
    const LoadedDeck loaded = load_review_deck(path);
    CHECK(loaded.message.empty());
    CHECK(loaded.deck == deck);
    CHECK(loaded.deck.find("every-token/q-opposite")->fsrs == deck.find("every-token/q-opposite")->fsrs);
    CHECK_FALSE(std::filesystem::exists(path + ".bak")); // nothing to keep the first time
    // No file yet: an empty deck and no message.
    const LoadedDeck none = load_review_deck(dir + "/nothing/review.json");
    CHECK(none.message.empty());
    CHECK(none.deck.cards().empty());
    std::filesystem::remove_all(dir);
}

TEST_CASE("review deck: the path follows XDG_STATE_HOME, else ~/.local/state") {
    const char* old_state = std::getenv("XDG_STATE_HOME");
    const std::string saved = old_state ? old_state : "";
    ::setenv("XDG_STATE_HOME", "/x/state", 1);
    CHECK(default_review_path() == "/x/state/attnviz/review.json");
    ::unsetenv("XDG_STATE_HOME");
    CHECK(default_review_path() == std::string(std::getenv("HOME")) + "/.local/state/attnviz/review.json");
    if (old_state) ::setenv("XDG_STATE_HOME", saved.c_str(), 1);
}

TEST_CASE("review deck: a corrupt review.json is reported with its place and the backup is loaded") {
    const std::string dir = review_dir();
    const std::string path = dir + "/review.json";
    const ReviewDeck first = sample_deck();
    save_review_deck(path, first);
    ReviewDeck second = first;
    second.file("every-token/q-sum", Rating::Good, kNow + 120, Scheduler{});
    save_review_deck(path, second);
    CHECK(deck_from_json(read_text(path + ".bak"), "bak") == first); // the previous version is kept

    SUBCASE("cut short") {
        const std::string text = read_text(path);
        write_text(path, text.substr(0, text.size() / 2));
        const LoadedDeck loaded = load_review_deck(path);
        CHECK(loaded.message.find(path + ": line ") == 0);
        CHECK(loaded.message.find("loaded the backup " + path + ".bak") != std::string::npos);
        CHECK(loaded.deck == first);
        CHECK(read_text(path + ".bad") == text.substr(0, text.size() / 2)); // kept for the learner
        // The next save does not overwrite the good backup with the bad file.
        save_review_deck(path, loaded.deck);
        CHECK(deck_from_json(read_text(path + ".bak"), "bak") == first);
    }
    SUBCASE("a field that is wrong") {
        std::string text = read_text(path);
        const size_t at = text.find("\"due\": \"");
        text.replace(at + 8, 4, "soon");
        write_text(path, text);
        const LoadedDeck loaded = load_review_deck(path);
        CHECK(loaded.message.find(path + ": cards[0].due: expected an ISO 8601 time") == 0);
        CHECK(loaded.deck == first);
    }
    SUBCASE("the backup is bad too: reported, not silent") {
        write_text(path, "{");
        write_text(path + ".bak", "[]");
        const LoadedDeck loaded = load_review_deck(path);
        CHECK(loaded.deck.cards().empty());
        CHECK(loaded.message.find("does not read either") != std::string::npos);
        CHECK(std::filesystem::exists(path + ".bad"));
    }
    SUBCASE("review.json missing, backup present") {
        ::unlink(path.c_str());
        const LoadedDeck loaded = load_review_deck(path);
        CHECK(loaded.message.find("is missing") != std::string::npos);
        CHECK(loaded.deck == first);
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("review deck: bad files name the place") {
    CHECK_THROWS_WITH(deck_from_json("{\"format\": \"attnviz-review\",\n \"version\": 1, \"cards\": [}", "r.json"),
                      doctest::Contains("r.json: line 2, column 26"));
    CHECK_THROWS_WITH(deck_from_json("{\"format\": \"x\"}", "r.json"), doctest::Contains("r.json: format: not an attnviz review file"));
    CHECK_THROWS_WITH(deck_from_json("{\"version\": 1e400}", "r.json"), doctest::Contains("r.json: number overflow parsing '1e400'"));
    std::string ok = deck_to_json(sample_deck());
    std::string dup = ok;
    const size_t first_card = dup.find("\"id\": \"every-token/q-sum\"");
    dup.replace(first_card, 25, "\"id\": \"every-token/q-opposite\"");
    CHECK_THROWS_WITH(deck_from_json(dup, "r.json"), doctest::Contains("cards[1].id: \"every-token/q-opposite\" appears twice"));
    std::string bad_rating = ok;
    bad_rating.replace(bad_rating.find("\"rating\": \"good\""), 16, "\"rating\": \"meh\"");
    CHECK_THROWS_WITH(deck_from_json(bad_rating, "r.json"), doctest::Contains("cards[0].log[0].rating: expected again, hard, good or easy"));
    std::string bad_s = ok;
    bad_s.replace(bad_s.find("\"stability\": "), 13, "\"stability\": -");
    CHECK_THROWS_WITH(deck_from_json(bad_s, "r.json"), doctest::Contains("cards[0].stability: expected a number"));
}

TEST_CASE("review deck: a kill -9 while reviewing loses at most the review being filed") {
    const std::string dir = review_dir();
    const std::string path = dir + "/review.json";
    save_review_deck(path, sample_deck());
    size_t saved_in_all = 0;
    for (int trial = 0; trial < 8; ++trial) {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        const size_t before = total_reviews(load_review_deck(path).deck);
        const pid_t child = ::fork();
        REQUIRE(child >= 0);
        if (child == 0) {
            // Review as fast as possible; report each review once its save has returned.
            ::close(fds[0]);
            ReviewDeck deck = load_review_deck(path).deck;
            const Scheduler sched;
            for (std::uint32_t i = 0;; ++i) {
                deck.file(i % 2 ? "every-token/q-sum" : "every-token/q-opposite", kRatings[i % 4], kNow + i, sched);
                save_review_deck(path, deck);
                if (::write(fds[1], &i, sizeof i) != sizeof i) ::_exit(3);
            }
        }
        ::close(fds[1]);
        ::usleep(static_cast<useconds_t>(10000 + trial * 30000)); // a save (two fsyncs) takes a few ms to tens of ms
        ::kill(child, SIGKILL);
        int status = 0;
        ::waitpid(child, &status, 0);
        CHECK(WIFSIGNALED(status));
        size_t saved = 0; // reviews whose save had returned
        std::uint32_t i;
        while (::read(fds[0], &i, sizeof i) == sizeof i) saved = i + 1;
        ::close(fds[0]);
        const LoadedDeck loaded = load_review_deck(path);
        CAPTURE(trial);
        CHECK(loaded.message.empty());
        const size_t now_total = total_reviews(loaded.deck);
        CHECK(now_total >= before + saved);
        CHECK(now_total <= before + saved + 1);
        saved_in_all += saved;
    }
    CHECK(saved_in_all > 8); // the children did review and save before being killed
    std::filesystem::remove_all(dir);
}

TEST_CASE("review deck: Anki export is tab-separated with a #separator:Tab header") {
    const std::string anki = deck_to_anki(sample_deck());
    std::istringstream lines(anki);
    std::string line;
    std::getline(lines, line);
    CHECK(line == "#separator:Tab");
    std::vector<std::string> rows;
    while (std::getline(lines, line))
        if (line[0] != '#') rows.push_back(line);
    REQUIRE(rows.size() == 2);
    CHECK(rows[0] == "A query and a key point opposite ways. Their score?\tNegative: the dot product is below 0. Tab\tattnviz attnviz::every-token");
    CHECK(rows[1] == "What do one query's weights add up to?\t1 &lt;exactly&gt; &amp; always\tattnviz attnviz::every-token");
}
