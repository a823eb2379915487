// core/worker.h — the one worker that runs a question off the window's frame (a model's forward for
// the lesson, a circuit, a listing of models, a file's thumbnails): the owner starts a task and
// picks up its outcome later without waiting.
//
// - The latest wins: start() supersedes the task that waits or runs; a superseded task is asked to
//   stop and its outcome never arrives. One task runs at a time.
// - cancel() asks the running task to stop; its outcome arrives as cancelled (or as its result when
//   it finished first).
// - A task reports progress(done, total) through the TaskControl it is given, and gives up when
//   stopped() (core::model's functions take TaskControl::stop_flag()).
// - An exception that escapes the task becomes one line in Outcome::error (core::error_text).
//
// Its thread comes from core::background::start, so the program waits for it at exit; the
// destructor cancels and waits for the running task, which may hold references to the owner.
#pragma once

#include "core/background.h"
#include "core/error_text.h"
#include "core/wake.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace core {

// What a running task sees: its stop flag and where it reports how far it is.
class TaskControl {
public:
    TaskControl(const std::atomic<bool>& stop, std::atomic<int>& done, std::atomic<int>& total) : stop_(stop), done_(done), total_(total) {}
    bool stopped() const { return stop_.load(); }
    const std::atomic<bool>* stop_flag() const { return &stop_; }
    void progress(int done, int total) const {
        total_.store(total);
        done_.store(done);
    }
    // progress() as the callback core::model's long runs take.
    std::function<void(int, int)> reporter() const {
        return [this](int done, int total) { progress(done, total); };
    }

private:
    const std::atomic<bool>& stop_;
    std::atomic<int>& done_;
    std::atomic<int>& total_;
};

template <class R>
class Worker {
public:
    using Task = std::function<R(const TaskControl&)>;
    struct Outcome {
        long long serial = 0;     // what start() returned for it
        std::optional<R> result;  // none when it failed or was cancelled
        std::string error;        // why it failed, one line
        bool cancelled = false;
    };
    struct Progress {
        bool busy = false; // a task waits or runs
        int done = 0, total = 0;
    };

    Worker() = default;
    Worker(const Worker&) = delete;
    Worker& operator=(const Worker&) = delete;
    ~Worker() {
        cancel();
        wait_idle();
    }

    // Runs `task` once the running one (now superseded) has stopped; returns its serial.
    long long start(Task task);
    void cancel();
    bool busy() const;
    Progress progress() const;
    // The latest task's outcome, once; nothing while it waits or runs.
    std::optional<Outcome> take();
    // Waits until no task waits or runs (the tests, the command line): without a limit, or at most
    // `seconds` (true when idle).
    void wait_idle() const;
    bool wait_idle(double seconds) const;

private:
    struct State {
        mutable std::mutex mutex;
        mutable std::condition_variable changed;
        Task waiting;             // the next task to run (empty: none)
        bool running = false;     // a thread runs tasks
        long long serial = 0;     // the latest start()'s
        std::optional<Outcome> outcome;
        std::atomic<bool> stop{false};
        std::atomic<int> done{0}, total{0};
    };
    static void run_tasks(const std::shared_ptr<State>& s);
    static Outcome run_one(State& s, const Task& task, long long serial);
    std::shared_ptr<State> s_ = std::make_shared<State>();
};

template <class R>
long long Worker<R>::start(Task task) {
    std::lock_guard<std::mutex> lock(s_->mutex);
    s_->waiting = std::move(task);
    s_->outcome.reset();
    const long long serial = ++s_->serial;
    if (s_->running) {
        s_->stop.store(true); // superseded
        return serial;
    }
    s_->running = true;
    try {
        core::background::start([s = s_] { run_tasks(s); });
    } catch (const std::exception& e) { // no thread to be had: the owner reads why
        s_->running = false;
        s_->waiting = nullptr;
        s_->outcome = Outcome{serial, std::nullopt, error_text(e), false};
    }
    return serial;
}

template <class R>
void Worker<R>::cancel() {
    std::lock_guard<std::mutex> lock(s_->mutex);
    if (s_->waiting) {
        s_->waiting = nullptr;
        s_->outcome = Outcome{s_->serial, std::nullopt, "", true};
    }
    if (s_->running) s_->stop.store(true);
}

template <class R>
bool Worker<R>::busy() const {
    std::lock_guard<std::mutex> lock(s_->mutex);
    return s_->running || s_->waiting;
}

template <class R>
typename Worker<R>::Progress Worker<R>::progress() const {
    std::lock_guard<std::mutex> lock(s_->mutex);
    return {s_->running || s_->waiting, s_->done.load(), s_->total.load()};
}

template <class R>
std::optional<typename Worker<R>::Outcome> Worker<R>::take() {
    std::lock_guard<std::mutex> lock(s_->mutex);
    std::optional<Outcome> out = std::move(s_->outcome);
    s_->outcome.reset();
    return out;
}

template <class R>
void Worker<R>::wait_idle() const {
    std::unique_lock<std::mutex> lock(s_->mutex);
    s_->changed.wait(lock, [this] { return !s_->running && !s_->waiting; });
}

template <class R>
bool Worker<R>::wait_idle(double seconds) const {
    std::unique_lock<std::mutex> lock(s_->mutex);
    return s_->changed.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return !s_->running && !s_->waiting; });
}

// The thread's loop: the waiting task, until none waits. Only the latest serial's outcome is kept.
template <class R>
void Worker<R>::run_tasks(const std::shared_ptr<State>& s) {
    std::unique_lock<std::mutex> lock(s->mutex);
    while (s->waiting) {
        Task task = std::move(s->waiting);
        s->waiting = nullptr;
        const long long serial = s->serial;
        s->stop.store(false);
        s->done.store(0);
        s->total.store(0);
        lock.unlock();
        Outcome made = run_one(*s, task, serial);
        task = nullptr; // what it holds is freed before the owner hears that it is done
        lock.lock();
        if (serial == s->serial && !s->waiting) s->outcome = std::move(made);
    }
    s->running = false;
    s->changed.notify_all();
    lock.unlock();
    core::wake();
}

template <class R>
typename Worker<R>::Outcome Worker<R>::run_one(State& s, const Task& task, long long serial) {
    Outcome made;
    made.serial = serial;
    const TaskControl control(s.stop, s.done, s.total);
    try {
        made.result = task(control);
    } catch (const std::exception& e) {
        if (s.stop.load()) made.cancelled = true; // it gave up when asked (core::model::Cancelled)
        else made.error = error_text(e);
    } catch (...) {
        made.error = "The work failed.";
    }
    return made;
}

} // namespace core
