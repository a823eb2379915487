// core/parallel.h — sharing compute_into's row blocks between the cores.
//
// for_each(count, body) calls body(context, i) for every i in [0, count): the calling thread takes
// blocks one at a time from a shared counter, and so does each helper thread that is awake. The
// caller never waits for a helper to show up, only for the blocks a helper has already taken, so
// on a machine busy with other work it costs about what one thread costs, and on an idle one it
// divides the work. (OpenMP's fork/join waits for every thread of the team: with a compiler
// running on the other core, that made a 4 ms recompute take 47 ms.)
#pragma once

#include <cstddef>
#include <functional>

namespace core::parallel {

using Body = void (*)(void* context, std::ptrdiff_t i);

// Threads that for_each uses: the CPUs this process may run on, or ATTNVIZ_THREADS when set (≥ 1).
int threads();

// Makes the calling thread background work, for good: on Linux its nice value becomes
// background_nice, so that it gives way to the window's frames when both want the cores (a forward
// on both cores made the frames between its layers 21-36 ms instead of 11). Its for_each calls share
// blocks with helpers of the same priority only, since a thread cannot raise its priority again.
// Every worker calls it first; threads it starts inherit the priority.
constexpr int background_nice = 10;
void work_in_background();

// Runs body(context, 0 … count-1), each exactly once, and returns when all have returned. With
// threads() == 1 or count < 2 it simply loops on the calling thread, and so does a for_each that a
// body calls (the helpers are taken). Safe to call from several threads (they take turns). A body
// must not throw: a helper thread has no one to throw to (both() catches for its callers).
void for_each(std::ptrdiff_t count, Body body, void* context);

// Runs first() and second() through for_each, on two cores where a helper is free, else one after the
// other, and returns when both have: the one way a piece of work is split in two (a tokenizer's
// vocabulary and merges, a training step's halves of the batch). An exception either throws is
// thrown here, the first's before the second's.
void both(const std::function<void()>& first, const std::function<void()>& second);

} // namespace core::parallel
