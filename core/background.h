// core/background.h — work on a thread of its own that no one joins (a map rebuilt for a frame, a
// circuit computed for a panel), counted so that the program waits for it before it exits: a thread
// still in a product while exit() destroys the libraries' static objects crashes the process.
//
// A question asked for the window (a model loading, a lesson's run, a file's thumbnails) runs on a
// core::Worker (core/worker.h), whose threads start here.
#pragma once

#include <functional>
#include <future>
#include <type_traits>
#include <utility>

namespace core::background {

// Runs `task` on a new thread. An exception that escapes it is dropped: the task reports its own.
void start(std::function<void()> task);
// Blocks until every started task has returned. main calls it before it returns.
void wait_all();
// How many tasks are running now.
int running();

// Runs `task` on a thread of its own at the caller's priority while the caller does something else
// it must finish first (the window's start: the fonts made while the window opens), and gives its
// future, which the caller waits for. Not for work a frame could wait on: that is core/worker.h's.
template <class Task>
std::future<std::invoke_result_t<Task>> meanwhile(Task task) {
    return std::async(std::launch::async, std::move(task));
}

} // namespace core::background
