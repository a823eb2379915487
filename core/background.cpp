#include "core/background.h"

#include "core/parallel.h"

#include <condition_variable>
#include <mutex>
#include <thread>

namespace core::background {

namespace {
std::mutex& mutex() {
    static std::mutex* m = new std::mutex; // never destroyed: a task may end during exit's destructors
    return *m;
}
std::condition_variable& ended() {
    static std::condition_variable* c = new std::condition_variable;
    return *c;
}
int count = 0; // guarded by mutex()

void finished() {
    std::lock_guard<std::mutex> lock(mutex());
    --count;
    ended().notify_all();
}
} // namespace

void start(std::function<void()> task) {
    {
        std::lock_guard<std::mutex> lock(mutex());
        ++count;
    }
    try {
        std::thread([task = std::move(task)]() mutable {
            core::parallel::work_in_background();
            try {
                task();
            } catch (...) {
            }
            task = nullptr; // what it holds (a forward's snapshot) is freed before the count says done
            finished();
        }).detach();
    } catch (...) { // no thread: nothing runs, nothing to wait for
        finished();
        throw;
    }
}

void wait_all() {
    std::unique_lock<std::mutex> lock(mutex());
    ended().wait(lock, [] { return count == 0; });
}

int running() {
    std::lock_guard<std::mutex> lock(mutex());
    return count;
}

} // namespace core::background
