// core/background.h: tasks no one joins are counted, so that main can wait for them before exit.
#include "core/background.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <thread>

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
