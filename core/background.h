// core/background.h — work on a thread of its own that no one joins (a map rebuilt for a frame, a
// circuit computed for a panel), counted so that the program waits for it before it exits: a thread
// still in a product while exit() destroys the libraries' static objects crashes the process.
//
// Work whose result someone waits for (a model loading, a lesson's run, a file's thumbnails) runs
// through async: a thread of its own too, below the UI as every worker is, joined by its future.
#pragma once

#include "core/parallel.h"

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

// Runs `task` on a thread of its own, as std::async(std::launch::async) does, at the priority of
// every worker (core::parallel::work_in_background). Its future gives the result, or what `task`
// threw, and its destructor waits for the task as std::async's does.
template <class Task>
std::future<std::invoke_result_t<Task>> async(Task task) {
    return std::async(std::launch::async, [task = std::move(task)]() mutable {
        core::parallel::work_in_background();
        return task();
    });
}

} // namespace core::background
