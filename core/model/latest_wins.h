// core/model/latest_wins.h — the bookkeeping of the Session's worker, on which the latest request
// wins (every other question runs on a core::Worker, core/worker.h, which keeps its own): a new
// request supersedes the one running, whose forward sees `stop` and gives up; cancel() drops the
// waiting one and stops the running one. The owner keeps it under its own mutex and wakes its
// worker after each call.
#pragma once

#include <atomic>

namespace core::model {

struct LatestWins {
    bool pending = false;          // a request waits for the worker
    bool running = false;          // the worker runs one
    bool cancelled = false;        // the last request was cancelled
    std::atomic<bool> stop{false}; // the running request's forward gives up when set

    void post() {
        pending = true;
        cancelled = false;
        if (running) stop.store(true); // superseded
    }
    void cancel() {
        if (pending || running) cancelled = true;
        pending = false;
        if (running) stop.store(true);
    }
    // The worker takes the waiting request.
    void take() {
        pending = false;
        running = true;
        stop.store(false);
    }
    bool busy() const { return pending || running; }
};

} // namespace core::model
