// tests/train_fixtures.h — what the tests of the tiny transformer share: a run small enough to
// train in a fraction of a second, and the largest difference of two matrices.
#pragma once

#include "core/train/config.h"
#include "core/scenario.h"

#include <doctest/doctest.h>

namespace train_fixtures {

// A 2-layer, 2-head, D = 16 model on the repeat task with 12 tokens: a step takes well under 1 ms.
inline core::train::TrainConfig tiny_repeat_run(int steps) {
    core::train::TrainConfig c;
    c.model.vocab = 20;
    c.model.T = 12;
    c.model.D = 16;
    c.model.H = 2;
    c.model.L = 2;
    c.task = core::train::Task::repeat;
    c.steps = steps;
    c.warmup = 5;
    c.batch = 8;
    c.lr = 1e-2;
    c.threads = 1;
    return c;
}

inline double largest_difference(const core::Matrix& a, const core::Matrix& b) {
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    return (a - b).cwiseAbs().maxCoeff();
}

} // namespace train_fixtures
