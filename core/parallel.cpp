#include "core/parallel.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>

#ifdef __linux__
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace core::parallel {

namespace {

int cpus_available() {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
#endif
    const unsigned n = std::thread::hardware_concurrency();
    return n > 0 ? static_cast<int>(n) : 1;
}

int threads_wanted() {
    if (const char* text = std::getenv("ATTNVIZ_THREADS")) {
        const long n = std::strtol(text, nullptr, 10);
        if (n >= 1) return n > 256 ? 256 : static_cast<int>(n);
    }
    return cpus_available();
}

// One for_each call. A helper that wakes up after the caller has returned still finds the job
// alive (shared_ptr), takes no block (next ≥ count) and goes back to sleep.
struct Job {
    std::ptrdiff_t count = 0;
    Body body = nullptr;
    void* context = nullptr;
    std::atomic<std::ptrdiff_t> next{0};
    std::atomic<std::ptrdiff_t> finished{0};
    std::mutex mutex; // with all_done: the caller sleeps on it while a helper finishes its blocks
    std::condition_variable all_done;

    void work() {
        for (std::ptrdiff_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) {
            body(context, i);
            // Publishes block i's results; the last block wakes the caller if it sleeps.
            if (finished.fetch_add(1, std::memory_order_acq_rel) + 1 == count) {
                std::lock_guard<std::mutex> lock(mutex);
                all_done.notify_all();
            }
        }
    }

    bool done() const { return finished.load(std::memory_order_acquire) == count; }
};

thread_local bool background_thread = false;
thread_local bool inside_for_each = false; // this thread's for_each is sharing blocks with the pool's helpers

void lower_this_thread() {
#ifdef __linux__
    // PRIO_PROCESS with a thread id sets that thread's nice value alone.
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), background_nice);
#endif
}

class Pool {
public:
    Pool(int helpers, bool background) {
        for (int h = 0; h < helpers; ++h)
            std::thread([this, background] {
                if (background) lower_this_thread();
                inside_for_each = true; // a body's own for_each runs on this helper alone
                serve();
            }).detach();
    }

    // False when another thread is using the pool: the caller then works alone.
    bool try_run(std::ptrdiff_t count, Body body, void* context) {
        std::unique_lock<std::mutex> turn(run_mutex_, std::try_to_lock);
        if (!turn) return false;
        auto job = std::make_shared<Job>();
        job->count = count;
        job->body = body;
        job->context = context;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = job;
            generation_.fetch_add(1, std::memory_order_release);
        }
        wake_.notify_all();
        job->work();
        // Only blocks a helper has already taken are left. Spin a little, then sleep: a helper that
        // the machine's other work has preempted then gets this core.
        for (int spins = 0; !job->done() && spins < 2000; ++spins) std::this_thread::yield();
        if (!job->done()) {
            std::unique_lock<std::mutex> lock(job->mutex);
            job->all_done.wait(lock, [&] { return job->done(); });
        }
        std::lock_guard<std::mutex> lock(mutex_);
        job_.reset();
        return true;
    }

private:
    void serve() {
        std::uint64_t seen = 0;
        for (;;) {
            // compute_into runs several for_each back to back: stay awake briefly to catch the next
            // one without a wake-up, then sleep.
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(200);
            while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until)
                std::this_thread::yield();
            std::shared_ptr<Job> job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
                seen = generation_.load(std::memory_order_relaxed);
                job = job_;
            }
            if (job) job->work();
        }
    }

    std::mutex run_mutex_; // one for_each at a time uses the helpers
    std::mutex mutex_;     // guards job_
    std::condition_variable wake_;
    std::shared_ptr<Job> job_;
    std::atomic<std::uint64_t> generation_{0};
};

// One for the window's thread and one for background work, each created on first use and never
// destroyed: their helpers sleep in them until the process exits.
Pool& pool() {
    if (background_thread) {
        static Pool* background = new Pool(threads() - 1, true);
        return *background;
    }
    static Pool* foreground = new Pool(threads() - 1, false);
    return *foreground;
}

} // namespace

void work_in_background() {
    if (background_thread) return;
    lower_this_thread();
    background_thread = true;
}

int threads() {
    static const int n = threads_wanted();
    return n;
}

void for_each(std::ptrdiff_t count, Body body, void* context) {
    if (threads() > 1 && count > 1 && !inside_for_each) {
        inside_for_each = true; // the pool's run lock is not taken twice by one thread
        const bool shared = pool().try_run(count, body, context);
        inside_for_each = false;
        if (shared) return;
    }
    for (std::ptrdiff_t i = 0; i < count; ++i) body(context, i);
}

void both(const std::function<void()>& first, const std::function<void()>& second) {
    struct Halves {
        const std::function<void()>* run[2];
        std::exception_ptr failed[2];
    } h{{&first, &second}, {}};
    for_each(
        2,
        [](void* context, std::ptrdiff_t i) {
            auto& halves = *static_cast<Halves*>(context);
            try {
                (*halves.run[i])();
            } catch (...) { // a helper thread must not throw: the caller rethrows it
                halves.failed[i] = std::current_exception();
            }
        },
        &h);
    for (const std::exception_ptr& e : h.failed)
        if (e) std::rethrow_exception(e);
}

} // namespace core::parallel
