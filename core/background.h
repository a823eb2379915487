// core/background.h — work on a thread of its own that no one joins (a map rebuilt for a frame, a
// circuit computed for a panel), counted so that the program waits for it before it exits: a thread
// still in a product while exit() destroys the libraries' static objects crashes the process.
#pragma once

#include <functional>

namespace core::background {

// Runs `task` on a new thread. An exception that escapes it is dropped: the task reports its own.
void start(std::function<void()> task);
// Blocks until every started task has returned. main calls it before it returns.
void wait_all();
// How many tasks are running now.
int running();

} // namespace core::background
