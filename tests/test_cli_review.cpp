// --review and --export-anki, run in-process through the program's entry point.
#include "state_home.h"
#include "app/cli/cli.h"
#include "core/learn/review_deck.h"

#include "cli_run.h"
#include "tests/review_now.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace core::learn;

namespace {



ReviewDeck two_cards() {
    ReviewDeck deck;
    const Scheduler sched;
    deck.upsert("every-token/kv-cache", "100 tokens are cached; how many new K rows for the 101st?", "1");
    deck.file("every-token/kv-cache", Rating::Good, kNow, sched); // due in 10 minutes
    deck.upsert("every-token/mask", "Why does a decoder mask later tokens?", "So it cannot peek at the answer");
    deck.file("every-token/mask", Rating::Easy, kNow, sched); // due in days
    return deck;
}

} // namespace

TEST_CASE("--review --now prints the due cards and their FSRS state as JSON") {
    StateHome home;
    const ReviewDeck deck = two_cards();
    save_review_deck(home.review_path(), deck);

    const Run early = run({"--review", "--now", "2026-11-30T09:05:00Z"});
    REQUIRE(early.code == 0);
    CHECK(early.err.empty());
    const auto e = nlohmann::json::parse(early.out);
    CHECK(e["cards"] == 2);
    CHECK(e["due_count"] == 0);
    CHECK(e["now"] == "2026-11-30T09:05:00Z");

    const Run later = run({"--review", "--now", "2026-11-30T09:10:00Z"});
    const auto l = nlohmann::json::parse(later.out);
    REQUIRE(l["due_count"] == 1);
    const auto& c = l["due"][0];
    const ReviewCard& saved = *deck.find("every-token/kv-cache");
    CHECK(c["id"] == "every-token/kv-cache");
    CHECK(c["due"] == "2026-11-30T09:10:00Z");
    CHECK(c["phase"] == "learning");
    CHECK(c["step"] == 1);
    CHECK(c["stability"].get<double>() == saved.fsrs.memory->stability);
    CHECK(c["difficulty"].get<double>() == saved.fsrs.memory->difficulty);
    CHECK(c["reviews"] == 1);

    // The Easy card comes due on the day the scheduler set.
    const Seconds easy_due = deck.find("every-token/mask")->fsrs.due;
    const auto all = nlohmann::json::parse(run({"--review", "--now", format_iso8601(easy_due)}).out);
    CHECK(all["due_count"] == 2);
    CHECK(all["due"][1]["due"] == format_iso8601(easy_due));
}

TEST_CASE("--review reports a corrupt review.json and reads the backup") {
    StateHome home;
    save_review_deck(home.review_path(), two_cards());
    save_review_deck(home.review_path(), two_cards());
    std::ofstream(home.review_path()) << "{\"format\": \"attnviz-review\", \"version\": 1, \"cards\": [";
    const Run r = run({"--review", "--now", "2026-12-30T00:00:00Z"});
    CHECK(r.code == 0);
    CHECK(r.err.find("attnviz: " + home.review_path() + ": line 1, column ") == 0);
    CHECK(r.err.find("loaded the backup") != std::string::npos);
    CHECK(nlohmann::json::parse(r.out)["due_count"] == 2);
}

TEST_CASE("--review and --export-anki: bad arguments exit 2 with one line") {
    for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--review", "--now", "tomorrow"}, "attnviz: --now takes an ISO 8601 time such as 2026-12-01T09:00:00Z, not \"tomorrow\""},
             {{"--review", "--now", "2026-02-30"}, "attnviz: --now takes an ISO 8601 time"},
             {{"--now", "2026-11-30"}, "attnviz: --now goes with --review"},
             {{"--review", "x.json"}, "attnviz: --review reads the review deck; it takes no FILE (x.json)"},
             {{"--export-anki"}, "attnviz: --export-anki needs a value"},
             {{"--review", "--dump"}, "attnviz: only one of"}}) {
        const Run r = run(args);
        const std::string& first = args[0]; // CAPTURE cannot name a structured binding under clang
        CAPTURE(first);
        CHECK(r.code == 2);
        CHECK(r.out.empty());
        CHECK(r.err.find(message) == 0);
    }
}

TEST_CASE("--export-anki writes every card for Anki's import — an unwritable path exits 2") {
    StateHome home;
    save_review_deck(home.review_path(), two_cards());
    const std::string out = home.dir + "/cards.txt";
    const Run r = run({"--export-anki", out});
    REQUIRE(r.code == 0);
    CHECK(r.out == "wrote 2 review cards to " + out + "\n");
    std::ifstream in(out);
    std::string first, line;
    std::getline(in, first);
    CHECK(first == "#separator:Tab");
    int rows = 0;
    while (std::getline(in, line))
        if (line[0] != '#') {
            ++rows;
            CHECK(std::count(line.begin(), line.end(), '\t') == 2);
        }
    CHECK(rows == 2);
    const Run bad = run({"--export-anki", home.dir + "/no/such/folder/cards.txt"});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("attnviz: " + home.dir + "/no/such/folder/cards.txt: ") == 0);
}
