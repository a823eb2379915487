// tests/review_now.h — the moment the review tests take as now (a Monday, 30 November 2026, 09:00
// UTC), and the four ratings in the order the scheduler numbers them.
#pragma once

#include "core/learn/fsrs.h"

inline const core::learn::Seconds kNow = *core::learn::parse_iso8601("2026-11-30T09:00:00Z");
inline const core::learn::Rating kRatings[] = {core::learn::Rating::Again, core::learn::Rating::Hard,
                                               core::learn::Rating::Good, core::learn::Rating::Easy};
