// core/learn/fsrs.h — the FSRS-6 spaced-repetition scheduler (the one Anki, py-fsrs and fsrs-rs use).
//
// A card's memory is two numbers: stability S (days until recall odds fall to 90 %) and difficulty
// D (1..10). Each review moves them by the rating; the next interval is the day count at which the
// recall odds reach the desired retention. New and forgotten cards first go through short
// learning steps (minutes), as in py-fsrs's defaults. Times are UTC seconds since 1970.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace core::learn {

using Seconds = std::int64_t; // UTC seconds since 1970-01-01

enum class Rating { Again = 1, Hard = 2, Good = 3, Easy = 4 };
enum class Phase { Learning, Review, Relearning };

const char* rating_name(Rating r);
const char* phase_name(Phase p);
std::optional<Rating> rating_from_name(const std::string& name);
std::optional<Phase> phase_from_name(const std::string& name);

struct Memory {
    double stability = 0; // days
    double difficulty = 0; // 1..10
};

// One card's scheduling state. A new card is in Learning at step 0, due at once, with no memory.
struct FsrsCard {
    Phase phase = Phase::Learning;
    int step = 0; // index into the (re)learning steps; unused in Review
    std::optional<Memory> memory;
    Seconds due = 0;
    std::optional<Seconds> last_review;
    bool operator==(const FsrsCard& o) const;
};

// The 21 default FSRS-6 weights (w[20] is the forgetting curve's decay).
extern const std::array<double, 21> kDefaultWeights;

struct SchedulerOptions {
    std::array<double, 21> w = kDefaultWeights;
    double desired_retention = 0.9;
    std::vector<Seconds> learning_steps{60, 600}; // 1 min, 10 min
    std::vector<Seconds> relearning_steps{600};   // 10 min
    int max_interval_days = 36500;
    bool fuzz = false; // spread long intervals a little so cards learnt together part
    std::uint64_t fuzz_seed = 0;
};

class Scheduler {
public:
    explicit Scheduler(SchedulerOptions o = {});

    // The card after a review with `rating` at time `now`.
    FsrsCard review(const FsrsCard& card, Rating rating, Seconds now) const;
    // The odds of recalling the card at `now` (0 for a card never reviewed).
    double retrievability(const FsrsCard& card, Seconds now) const;

    // The memory after one review `elapsed_days` after the previous one (none: first review).
    Memory next_memory(const std::optional<Memory>& m, long elapsed_days, Rating r) const;
    // Recall odds after `days` at stability `s`.
    double forgetting_curve(double days, double s) const;
    // Days until the odds fall to `retention`, unrounded.
    double interval_for(double s, double retention) const;
    // The interval in whole days used for scheduling: rounded, within [1, max_interval_days].
    int next_interval_days(double s) const;

    const SchedulerOptions& options() const { return o_; }

private:
    Seconds step_interval(FsrsCard& c, Rating r, const std::vector<Seconds>& steps, double s) const;
    int fuzzed(int days, Seconds now) const;
    SchedulerOptions o_;
};

// Whole days from `from` to `to`, rounded down (as Python's timedelta.days).
long whole_days(Seconds from, Seconds to);

// "2026-11-30T16:42:39Z" <-> seconds. parse_iso8601 accepts a date alone, 'T' or ' ', an optional
// fraction (dropped), and Z or ±HH:MM; it returns nothing for anything else.
std::optional<Seconds> parse_iso8601(const std::string& text);
std::string format_iso8601(Seconds t);

} // namespace core::learn
