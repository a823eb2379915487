// core/background.h: tasks no one joins are counted, so that main can wait for them before exit;
// core/parallel.h: a worker's priority is lowered, so that it gives way to the window's frames; both()
// splits work in two through the same pool.
#include "core/background.h"
#include "core/parallel.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

TEST_CASE("background: wait_all returns once every task has ended, and what a task holds is freed first") {
    core::background::wait_all();
    auto held = std::make_shared<int>(7);
    const std::weak_ptr<int> watch = held;
    std::atomic<bool> go{false};
    std::atomic<int> ended{0};
    for (int i = 0; i < 3; ++i)
        core::background::start([held, &go, &ended] {
            while (!go.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            ended.fetch_add(*held == 7 ? 1 : 100);
        });
    held.reset();
    CHECK(core::background::running() == 3);
    go.store(true);
    core::background::wait_all();
    CHECK(ended.load() == 3);
    CHECK(core::background::running() == 0);
    CHECK(watch.expired());
}

TEST_CASE("background: a task that throws ends like any other and leaves nothing running") {
    core::background::wait_all();
    core::background::start([] { throw std::runtime_error("out of memory"); });
    core::background::start([] { throw 3; });
    core::background::wait_all();
    CHECK(core::background::running() == 0);
}

#ifdef __linux__
TEST_CASE("background: a worker gives way to the frames — its nice value is raised — and its for_each still does every block") {
    const auto nice_of_this_thread = [] { return getpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid))); };
    const int caller_nice = nice_of_this_thread();
    int nice_seen = 0;
    std::vector<int> done(1000, 0);
    std::thread worker([&] {
        core::parallel::work_in_background();
        nice_seen = nice_of_this_thread();
        core::parallel::for_each(static_cast<std::ptrdiff_t>(done.size()), [](void* c, std::ptrdiff_t i) { ++(*static_cast<std::vector<int>*>(c))[static_cast<size_t>(i)]; }, &done);
    });
    worker.join();
    CHECK(nice_seen >= core::parallel::background_nice);
    CHECK(std::all_of(done.begin(), done.end(), [](int n) { return n == 1; }));
    CHECK(nice_of_this_thread() == caller_nice); // the caller's own is untouched
}
#endif

TEST_CASE("parallel: both runs each half once, a for_each inside a half still does every block, and a half's exception reaches the caller") {
    std::vector<int> first(500, 0), second(500, 0);
    const auto count_all = [](std::vector<int>& v) {
        core::parallel::for_each(static_cast<std::ptrdiff_t>(v.size()), [](void* c, std::ptrdiff_t i) { ++(*static_cast<std::vector<int>*>(c))[static_cast<size_t>(i)]; }, &v);
    };
    core::parallel::both([&] { count_all(first); }, [&] { count_all(second); });
    CHECK(std::all_of(first.begin(), first.end(), [](int n) { return n == 1; }));
    CHECK(std::all_of(second.begin(), second.end(), [](int n) { return n == 1; }));

    int ran = 0;
    CHECK_THROWS_WITH_AS(core::parallel::both([] { throw std::runtime_error("first half"); }, [&] { ran = 1; }), "first half", std::runtime_error);
    CHECK(ran == 1); // the other half still ran to its end
    CHECK_THROWS_WITH_AS(core::parallel::both([] {}, [] { throw std::invalid_argument("second half"); }), "second half", std::invalid_argument);
}
