// core/worker.h: the latest task wins, cancel stops the running one, progress is reported, and an
// exception becomes one line. Each waits on a gate the test opens, never on a clock.
#include "core/worker.h"

#include <doctest/doctest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

// A flag one thread raises and another waits for.
struct Gate {
    std::atomic<bool> open{false};
    void raise() { open.store(true); }
    void wait() const {
        while (!open.load()) std::this_thread::yield();
    }
};

// Waits at the gate, then gives up if asked to stop, as core::model's forwards do at each layer.
int gated(const core::TaskControl& c, Gate& started, const Gate& go, int value) {
    started.raise();
    go.wait();
    if (c.stopped()) throw std::runtime_error("stopped");
    return value;
}

} // namespace

TEST_CASE("worker: a superseded task is stopped and its result never arrives; the latest's does") {
    core::Worker<int> w;
    Gate started, go, second_started, second_go;
    std::atomic<bool> first_saw_stop{false};
    const long long first = w.start([&](const core::TaskControl& c) {
        started.raise();
        go.wait();
        first_saw_stop.store(c.stopped());
        return 1;
    });
    started.wait();
    const long long second = w.start([&](const core::TaskControl& c) { return gated(c, second_started, second_go, 2); });
    CHECK(second > first);
    go.raise();
    second_started.wait(); // the first has returned: its result is dropped
    CHECK(first_saw_stop.load());
    CHECK_FALSE(w.take().has_value());
    CHECK(w.busy());
    second_go.raise();
    w.wait_idle();
    const auto out = w.take();
    REQUIRE(out.has_value());
    CHECK(out->serial == second);
    REQUIRE(out->result.has_value());
    CHECK(*out->result == 2);
    CHECK(out->error.empty());
    CHECK_FALSE(w.take().has_value()); // once
}

TEST_CASE("worker: cancel stops the running task and its outcome says cancelled; a waiting task is dropped") {
    core::Worker<int> w;
    Gate started, go;
    w.start([&](const core::TaskControl& c) { return gated(c, started, go, 5); });
    started.wait();
    w.cancel();
    go.raise();
    w.wait_idle();
    auto out = w.take();
    REQUIRE(out.has_value());
    CHECK(out->cancelled);
    CHECK_FALSE(out->result.has_value());
    CHECK(out->error.empty());

    // One running, one waiting behind it: cancel drops the waiting one, which never runs.
    Gate started2, go2;
    std::atomic<bool> ran{false};
    w.start([&](const core::TaskControl& c) { return gated(c, started2, go2, 6); });
    started2.wait();
    const long long waiting = w.start([&](const core::TaskControl&) {
        ran.store(true);
        return 7;
    });
    w.cancel();
    go2.raise();
    w.wait_idle();
    out = w.take();
    REQUIRE(out.has_value());
    CHECK(out->serial == waiting);
    CHECK(out->cancelled);
    CHECK_FALSE(ran.load());
}

TEST_CASE("worker: progress is what the task reported, and an exception becomes one line") {
    core::Worker<std::string> w;
    Gate reported, go;
    w.start([&](const core::TaskControl& c) -> std::string {
        c.reporter()(3, 10);
        reported.raise();
        go.wait();
        throw std::runtime_error("model.safetensors: the tensor h.0.attn is missing");
    });
    reported.wait();
    const auto p = w.progress();
    CHECK(p.busy);
    CHECK(p.done == 3);
    CHECK(p.total == 10);
    go.raise();
    w.wait_idle();
    CHECK_FALSE(w.progress().busy);
    const auto out = w.take();
    REQUIRE(out.has_value());
    CHECK_FALSE(out->result.has_value());
    CHECK_FALSE(out->cancelled);
    CHECK(out->error == "model.safetensors: the tensor h.0.attn is missing");
}

TEST_CASE("worker: dropped while it runs, it stops the task and waits for it") {
    std::atomic<int> ended{0};
    Gate started;
    {
        core::Worker<int> w;
        w.start([&](const core::TaskControl& c) {
            started.raise();
            while (!c.stopped()) std::this_thread::yield();
            ended.fetch_add(1);
            return 0;
        });
        started.wait();
    }
    CHECK(ended.load() == 1);
}
