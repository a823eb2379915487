// FSRS-6 against the test vectors published by the open-spaced-repetition projects.
#include "core/learn/fsrs.h"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace core::learn;

namespace {
const Seconds kStart = *parse_iso8601("2022-11-29T12:30:00Z");
constexpr Seconds kDay = 86400;
} // namespace

TEST_CASE("fsrs: interval sequence for Good x6, Again x2, Good x5 (py-fsrs tests/test_basic.py, test_review_card)") {
    const Scheduler sched; // fuzz off, desired retention 0.9, steps 1 min + 10 min, relearning 10 min
    const Rating G = Rating::Good, A = Rating::Again;
    const std::vector<Rating> ratings = {G, G, G, G, G, G, A, A, G, G, G, G, G};
    FsrsCard card;
    Seconds now = kStart;
    std::vector<long> ivl;
    for (Rating r : ratings) {
        card = sched.review(card, r, now);
        ivl.push_back(whole_days(*card.last_review, card.due));
        now = card.due;
    }
    CHECK(ivl == std::vector<long>{0, 2, 11, 46, 163, 498, 0, 0, 2, 4, 7, 12, 21});
}

TEST_CASE("fsrs: memory state after Again, Good x5 at day gaps [0,0,1,3,8,21] (py-fsrs tests/test_basic.py, test_memo_state)") {
    const Scheduler sched;
    const Rating G = Rating::Good;
    const std::vector<Rating> ratings = {Rating::Again, G, G, G, G, G};
    const std::vector<long> gaps = {0, 0, 1, 3, 8, 21};
    FsrsCard card;
    Seconds now = kStart;
    for (size_t i = 0; i < ratings.size(); ++i) {
        now += gaps[i] * kDay;
        card = sched.review(card, ratings[i], now);
    }
    CHECK(std::abs(card.memory->stability - 53.62691) <= 1e-4); // py-fsrs: pytest.approx(abs=1e-4)
    CHECK(std::abs(card.memory->difficulty - 6.3574867) <= 1e-4);
}

TEST_CASE("fsrs: the memory model alone, with and without the short-term weights (fsrs-rs src/inference.rs, test_memory_state)") {
    auto run = [](const Scheduler& s) {
        const std::vector<int> ratings = {1, 3, 3, 3, 3, 3};
        const std::vector<long> gaps = {0, 0, 1, 3, 8, 21};
        std::optional<Memory> m;
        for (size_t i = 0; i < ratings.size(); ++i) m = s.next_memory(m, gaps[i], static_cast<Rating>(ratings[i]));
        return *m;
    };
    const Memory m = run(Scheduler{});
    CHECK(std::abs(m.stability - 53.62691) < 1e-4); // fsrs-rs's tolerance
    CHECK(std::abs(m.difficulty - 6.3574867) < 1e-4);
    SchedulerOptions frozen; // the short-term weights set to 0
    frozen.w[17] = frozen.w[18] = frozen.w[19] = 0;
    const Memory f = run(Scheduler{frozen});
    CHECK(std::abs(f.stability - 53.335106) < 1e-4);
    CHECK(std::abs(f.difficulty - 6.3574867) < 1e-4);
}

TEST_CASE("fsrs: next interval at stability 1 for retention 0.1 .. 1.0 (fsrs-rs src/inference.rs, test_next_interval)") {
    const Scheduler sched;
    const long expected[] = {3116766, 34793, 2508, 387, 90, 27, 9, 3, 1, 1};
    for (int i = 1; i <= 10; ++i) {
        const double days = std::max(1.0, std::nearbyint(sched.interval_for(1.0, i / 10.0)));
        // fsrs-rs computes in f32: allow its rounding (6 significant digits) on the 3-million-day case.
        CAPTURE(i);
        CHECK(std::abs(days - static_cast<double>(expected[i - 1])) <= 1e-6 * static_cast<double>(expected[i - 1]) + 1e-9);
    }
    CHECK(sched.next_interval_days(1.0) == 1);
    CHECK(sched.next_interval_days(1e9) == 36500); // the maximum interval
}

TEST_CASE("fsrs: retrievability at stability 1, decay 0.2, after 0..3 days (fsrs-rs src/inference.rs, test_current_retrievability)") {
    SchedulerOptions o;
    o.w[20] = 0.2;
    const Scheduler sched(o);
    const double expected[] = {1.0, 0.9, 0.84028935, 0.7985001};
    for (int t = 0; t < 4; ++t) CHECK(sched.forgetting_curve(t, 1.0) == doctest::Approx(expected[t]).epsilon(1e-6));
    // The default decay keeps R = 0.9 at t = S, whatever S.
    CHECK(Scheduler{}.forgetting_curve(7.0, 7.0) == doctest::Approx(0.9).epsilon(1e-12));
}

TEST_CASE("fsrs: learning steps like py-fsrs's defaults (py-fsrs tests/test_basic.py, *_learning_steps)") {
    const Scheduler sched;
    const FsrsCard fresh;
    CHECK(sched.review(fresh, Rating::Again, kStart).due - kStart == 60);
    CHECK(sched.review(fresh, Rating::Hard, kStart).due - kStart == 330);
    const FsrsCard good = sched.review(fresh, Rating::Good, kStart);
    CHECK(good.due - kStart == 600);
    CHECK(good.phase == Phase::Learning);
    CHECK(good.step == 1);
    const FsrsCard easy = sched.review(fresh, Rating::Easy, kStart);
    CHECK(easy.phase == Phase::Review);
    CHECK(easy.due - kStart >= kDay);
    // A review card rated Again goes to relearning for 10 minutes.
    const FsrsCard graduated = sched.review(good, Rating::Good, good.due);
    REQUIRE(graduated.phase == Phase::Review);
    const FsrsCard lapsed = sched.review(graduated, Rating::Again, graduated.due);
    CHECK(lapsed.phase == Phase::Relearning);
    CHECK(lapsed.due - graduated.due == 600);
    CHECK(sched.retrievability(fresh, kStart) == 0);
    CHECK(sched.retrievability(graduated, graduated.due) == doctest::Approx(0.9).epsilon(0.05));
}

TEST_CASE("fsrs: ten Easy answers drive the difficulty to 1 (py-fsrs tests/test_basic.py, test_repeated_correct_reviews)") {
    const Scheduler sched;
    FsrsCard card;
    for (int i = 0; i < 10; ++i) card = sched.review(card, Rating::Easy, kStart);
    CHECK(card.memory->difficulty == 1.0);
}

TEST_CASE("fsrs: fuzz is off by default and, when on, stays near the interval") {
    SchedulerOptions o;
    o.fuzz = true;
    o.fuzz_seed = 42;
    const Scheduler fuzzy(o), plain;
    FsrsCard a, b;
    Seconds now = kStart;
    for (int i = 0; i < 5; ++i) {
        a = plain.review(a, Rating::Good, now);
        b = fuzzy.review(b, Rating::Good, now);
        const long ia = whole_days(now, a.due), ib = whole_days(now, b.due);
        CHECK(std::abs(ib - ia) <= 1 + ia / 10);
        b = a; // same memory for the next step
        now = a.due;
    }
}

TEST_CASE("fsrs: ISO 8601 times") {
    CHECK(format_iso8601(kStart) == "2022-11-29T12:30:00Z");
    CHECK(*parse_iso8601("2022-11-29") == kStart - 12 * 3600 - 30 * 60);
    CHECK(*parse_iso8601("2022-11-29T14:30:00.123+02:00") == kStart);
    CHECK(*parse_iso8601("1970-01-01T00:00:00Z") == 0);
    CHECK(format_iso8601(*parse_iso8601("2024-02-29T23:59:59Z")) == "2024-02-29T23:59:59Z");
    CHECK_FALSE(parse_iso8601("2023-02-29"));
    CHECK_FALSE(parse_iso8601("tomorrow"));
    CHECK_FALSE(parse_iso8601("2022-11-29T12:30"));
    CHECK_FALSE(parse_iso8601("2022-11-29T12:30:00Zjunk"));
}
