// The Train panel's worker: pausing, checkpoints, loading, and a head opened as a scenario.
#include "core/attention.h"
#include "core/train/session.h"
#include "train_fixtures.h"

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

using namespace core::train;

using train_fixtures::largest_difference;
const auto small_session = train_fixtures::tiny_repeat_run;

TEST_CASE("train session: a head opened as a scenario gives the grid's pattern to 1e-12") {
    TrainSession session(small_session(30));
    session.start();
    session.wait_idle();
    const SavedModel saved = session.saved();
    const std::vector<core::Matrix> grid = example_patterns(saved.model, session.example());
    for (int l = 0; l < 2; ++l) {
        for (int h = 0; h < 2; ++h) {
            const core::Scenario s = head_scenario(saved.model, session.example(), l, h);
            CHECK(core::validate(s).empty());
            CHECK(s.causal);
            CHECK(s.tokens.size() == 12u);
            CHECK(s.tokens[3] == std::to_string(session.example().tokens[3]));
            const core::Result r = core::compute(s);
            CAPTURE(l);
            CAPTURE(h);
            CHECK(largest_difference(r.heads[0].weights, grid[static_cast<size_t>(l * 2 + h)]) <= 1e-12);
        }
    }
}

TEST_CASE("train session: pause stops the worker after at most the step it is in") {
    TrainSession session(small_session(100000));
    session.start();
    SessionView v;
    for (int i = 0; i < 2000 && v.step < 3; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        session.view(v);
    }
    session.pause();
    session.view(v);
    const int at_pause = v.step;
    session.wait_idle();
    session.view(v);
    CHECK(v.step >= at_pause);
    CHECK(v.step <= at_pause + 1);
    CHECK_FALSE(v.running);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    SessionView later;
    session.view(later);
    CHECK(later.step == v.step);
    CHECK(static_cast<int>(later.curve.size()) == later.step);
    session.step_once();
    session.wait_idle();
    session.view(later);
    CHECK(later.step == v.step + 1);
}

TEST_CASE("train session: checkpoints every 25 steps replay the patterns of their step") {
    TrainSession session(small_session(50));
    session.start();
    session.wait_idle();
    SessionView v;
    session.view(v);
    CHECK(v.step == 50);
    CHECK(v.checkpoint_steps == std::vector<int>{0, 25, 50});
    CHECK(v.heads_step == 50);
    const SavedModel now = session.saved();
    // The last checkpoint is the model now; the patterns published at the end are its patterns.
    CHECK(session.checkpoint(2).params == now.model.params);
    const auto grid = example_patterns(now.model, session.example());
    CHECK(largest_difference(v.patterns[3], grid[3]) == 0.0);
    // The first is the untrained model: its patterns differ.
    const auto first = example_patterns(session.checkpoint(0), session.example());
    CHECK(largest_difference(first[3], grid[3]) > 1e-3);
}

TEST_CASE("train session: a loaded model continues from its step with its patterns") {
    TrainSession a(small_session(30));
    a.start();
    a.wait_idle();
    const SavedModel saved = a.saved();
    TrainSession b(small_session(10));
    b.load(saved);
    SessionView v;
    b.view(v);
    CHECK(v.step == 30);
    CHECK(v.checkpoint_steps == std::vector<int>{30});
    CHECK(b.saved().model.params == saved.model.params);
    const auto grid = example_patterns(saved.model, b.example());
    CHECK(largest_difference(v.patterns[0], grid[0]) == 0.0);
    CHECK_THROWS_AS(b.reset([] { TrainConfig c = small_session(10); c.model.H = 3; return c; }()), ConfigError);
    b.view(v);
    CHECK(v.step == 30); // a bad config leaves the session as it was
}
