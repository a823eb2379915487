// core/learn/fsrs.cpp — FSRS-6, written from the published formulas (py-fsrs's ALGORITHM.md and
// fsrs-rs) and checked against their test vectors in tests/test_review.cpp.
#include "core/learn/fsrs.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>

namespace core::learn {

// [SECTION] names
namespace {
const char* const kRatingNames[] = {"again", "hard", "good", "easy"};
const char* const kPhaseNames[] = {"learning", "review", "relearning"};
constexpr double kMinStability = 0.001, kMaxStability = 36500; // days, as fsrs-rs and ts-fsrs
constexpr long kDay = 86400;
} // namespace

const char* rating_name(Rating r) { return kRatingNames[static_cast<int>(r) - 1]; }
const char* phase_name(Phase p) { return kPhaseNames[static_cast<int>(p)]; }

std::optional<Rating> rating_from_name(const std::string& name) {
    for (int i = 0; i < 4; ++i)
        if (name == kRatingNames[i]) return static_cast<Rating>(i + 1);
    return std::nullopt;
}

std::optional<Phase> phase_from_name(const std::string& name) {
    for (int i = 0; i < 3; ++i)
        if (name == kPhaseNames[i]) return static_cast<Phase>(i);
    return std::nullopt;
}

bool FsrsCard::operator==(const FsrsCard& o) const {
    const bool same_memory = memory.has_value() == o.memory.has_value() &&
        (!memory || (memory->stability == o.memory->stability && memory->difficulty == o.memory->difficulty));
    return phase == o.phase && step == o.step && same_memory && due == o.due && last_review == o.last_review;
}

const std::array<double, 21> kDefaultWeights = {
    0.212,  1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001,  1.8722, 0.1666, 0.796,
    1.4835, 0.0614, 0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542};

// [SECTION] memory model
Scheduler::Scheduler(SchedulerOptions o) : o_(std::move(o)) {}

double Scheduler::forgetting_curve(double days, double s) const {
    const double decay = -o_.w[20];
    const double factor = std::pow(0.9, 1.0 / decay) - 1.0; // makes R = 0.9 at days == s
    return std::pow(1.0 + factor * days / s, decay);
}

double Scheduler::interval_for(double s, double retention) const {
    const double decay = -o_.w[20];
    const double factor = std::pow(0.9, 1.0 / decay) - 1.0;
    return s / factor * (std::pow(retention, 1.0 / decay) - 1.0);
}

Memory Scheduler::next_memory(const std::optional<Memory>& m, long elapsed_days, Rating rating) const {
    const auto& w = o_.w;
    const double g = static_cast<double>(rating);
    auto initial_difficulty = [&](double grade) { return w[4] - std::exp(w[5] * (grade - 1)) + 1; };
    if (!m) return {std::max(w[static_cast<int>(rating) - 1], kMinStability),
                    std::clamp(initial_difficulty(g), 1.0, 10.0)};
    const double s = m->stability, d = m->difficulty;
    double next_s;
    if (elapsed_days < 1) { // same day: the short-term effect, which only Again may make below 1 (as fsrs-rs)
        double grow = std::exp(w[17] * (g - 3 + w[18])) * std::pow(s, -w[19]);
        if (rating >= Rating::Hard) grow = std::max(grow, 1.0);
        next_s = s * grow;
    } else {
        const double r = forgetting_curve(static_cast<double>(elapsed_days), s);
        if (rating == Rating::Again) {
            next_s = std::min(w[11] * std::pow(d, -w[12]) * (std::pow(s + 1, w[13]) - 1) * std::exp((1 - r) * w[14]),
                              s / std::exp(w[17] * w[18]));
        } else {
            const double hard = rating == Rating::Hard ? w[15] : 1.0, easy = rating == Rating::Easy ? w[16] : 1.0;
            next_s = s * (1 + std::exp(w[8]) * (11 - d) * std::pow(s, -w[9]) * (std::exp((1 - r) * w[10]) - 1) * hard * easy);
        }
    }
    // Difficulty: a step by rating, damped near 10, pulled slightly back toward an Easy first answer.
    const double moved = d + (10 - d) * (-w[6] * (g - 3)) / 9;
    const double next_d = w[7] * initial_difficulty(4) + (1 - w[7]) * moved;
    return {std::clamp(next_s, kMinStability, kMaxStability), std::clamp(next_d, 1.0, 10.0)};
}

int Scheduler::next_interval_days(double s) const {
    const double days = std::nearbyint(interval_for(s, o_.desired_retention)); // half to even, as Python
    return static_cast<int>(std::clamp(days, 1.0, static_cast<double>(o_.max_interval_days)));
}

double Scheduler::retrievability(const FsrsCard& card, Seconds now) const {
    if (!card.memory || !card.last_review) return 0;
    const long days = std::max(0L, whole_days(*card.last_review, now));
    return forgetting_curve(static_cast<double>(days), card.memory->stability);
}

// [SECTION] scheduling
// Within (re)learning steps: the wait in seconds, or a move to Review (then the wait in days).
Seconds Scheduler::step_interval(FsrsCard& c, Rating r, const std::vector<Seconds>& steps, double s) const {
    const int n = static_cast<int>(steps.size());
    const bool graduate = n == 0 || (c.step >= n && r != Rating::Again) || r == Rating::Easy ||
                          (r == Rating::Good && c.step + 1 == n);
    if (graduate) {
        c.phase = Phase::Review;
        c.step = 0;
        return Seconds{next_interval_days(s)} * kDay;
    }
    if (r == Rating::Again) c.step = 0;
    if (r == Rating::Hard) {
        if (c.step == 0) return n == 1 ? steps[0] * 3 / 2 : (steps[0] + steps[1]) / 2;
        return steps[static_cast<size_t>(c.step)];
    }
    if (r == Rating::Good) ++c.step;
    return steps[static_cast<size_t>(c.step)];
}

FsrsCard Scheduler::review(const FsrsCard& card, Rating rating, Seconds now) const {
    FsrsCard c = card;
    const long days = c.last_review ? whole_days(*c.last_review, now) : 0;
    c.memory = next_memory(c.memory, days, rating);
    const double s = c.memory->stability;
    Seconds wait;
    if (c.phase == Phase::Review) {
        if (rating == Rating::Again && !o_.relearning_steps.empty()) {
            c.phase = Phase::Relearning;
            c.step = 0;
            wait = o_.relearning_steps[0];
        } else {
            wait = Seconds{next_interval_days(s)} * kDay;
        }
    } else {
        wait = step_interval(c, rating, c.phase == Phase::Learning ? o_.learning_steps : o_.relearning_steps, s);
    }
    if (o_.fuzz && c.phase == Phase::Review) wait = Seconds{fuzzed(static_cast<int>(wait / kDay), now)} * kDay + wait % kDay;
    c.due = now + wait;
    c.last_review = now;
    return c;
}

// A random interval near `days` (wider for longer intervals); none below 2.5 days.
int Scheduler::fuzzed(int days, Seconds now) const {
    if (days < 3) return days;
    const double ranges[3][3] = {{2.5, 7.0, 0.15}, {7.0, 20.0, 0.1}, {20.0, 1e18, 0.05}};
    double delta = 1.0;
    for (const auto& rg : ranges) delta += rg[2] * std::max(std::min(double(days), rg[1]) - rg[0], 0.0);
    const int hi = std::min(static_cast<int>(std::lround(days + delta)), o_.max_interval_days);
    const int lo = std::min(std::max(2, static_cast<int>(std::lround(days - delta))), hi);
    std::mt19937_64 gen(o_.fuzz_seed ^ static_cast<std::uint64_t>(now));
    return std::uniform_int_distribution<int>(lo, hi)(gen);
}

// [SECTION] time
long whole_days(Seconds from, Seconds to) {
    const Seconds d = to - from;
    return static_cast<long>(d >= 0 ? d / kDay : -((-d + kDay - 1) / kDay));
}

namespace {
// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
long days_from_civil(long y, unsigned m, unsigned d) {
    y -= m <= 2;
    const long era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<long>(doe) - 719468;
}
bool leap(long y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }
} // namespace

std::optional<Seconds> parse_iso8601(const std::string& t) {
    int y, mo, d, h = 0, mi = 0, s = 0, n = 0;
    if (std::sscanf(t.c_str(), "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || n != 10) return std::nullopt;
    size_t i = 10;
    if (i < t.size() && (t[i] == 'T' || t[i] == ' ')) {
        int m = 0;
        if (std::sscanf(t.c_str() + i + 1, "%2d:%2d:%2d%n", &h, &mi, &s, &m) != 3 || m != 8) return std::nullopt;
        i += 9;
        if (i < t.size() && t[i] == '.') do ++i; while (i < t.size() && t[i] >= '0' && t[i] <= '9');
    }
    long offset = 0;
    if (i < t.size() && t[i] == 'Z') ++i;
    else if (i < t.size() && (t[i] == '+' || t[i] == '-')) {
        int oh, om, m = 0;
        if (std::sscanf(t.c_str() + i + 1, "%2d:%2d%n", &oh, &om, &m) != 2 || m != 5 || oh > 23 || om > 59) return std::nullopt;
        offset = (t[i] == '+' ? 1 : -1) * (oh * 3600L + om * 60L);
        i += 6;
    }
    const int month_days[] = {31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (i != t.size() || mo < 1 || mo > 12 || d < 1 || d > month_days[mo - 1] || h > 23 || mi > 59 || s > 59) return std::nullopt;
    return days_from_civil(y, static_cast<unsigned>(mo), static_cast<unsigned>(d)) * kDay + h * 3600L + mi * 60L + s - offset;
}

std::string format_iso8601(Seconds t) {
    const long days = whole_days(0, t);
    const long secs = static_cast<long>(t - Seconds{days} * kDay);
    // civil_from_days (Hinnant)
    const long z = days + 719468;
    const long era = (z >= 0 ? z : z - 146096) / 146097;
    const long doe = z - era * 146097;
    const long yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const long mp = (5 * doy + 2) / 153;
    const long d = doy - (153 * mp + 2) / 5 + 1;
    const long m = mp < 10 ? mp + 3 : mp - 9;
    const long y = yoe + era * 400 + (m <= 2);
    char buf[128];
    std::snprintf(buf, sizeof buf, "%04ld-%02ld-%02ldT%02ld:%02ld:%02ldZ", y, m, d, secs / 3600, secs / 60 % 60, secs % 60);
    return buf;
}

} // namespace core::learn
