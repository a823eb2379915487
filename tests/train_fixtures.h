// tests/train_fixtures.h — what the tests of the tiny transformer share: a run small enough to
// train in a fraction of a second, a short run of the text trainer, a model with random weights,
// and the largest difference of two matrices.
#pragma once

#include "core/train/config.h"
#include "core/train/model.h"
#include "core/train/text_trainer.h"
#include "core/scenario.h"

#include <doctest/doctest.h>

#include <tuple>

namespace train_fixtures {

// A model of L layers of H heads, width D and context T, over `vocab` tokens; the rest as ModelConfig has it.
inline core::train::ModelConfig model_of(int L, int H, int D, int T, int vocab) {
    core::train::ModelConfig m;
    std::tie(m.L, m.H, m.D, m.T, m.vocab) = std::tie(L, H, D, T, vocab);
    return m;
}

// A 2-layer, 2-head, D = 16 model on the repeat task with 12 tokens: a step takes well under 1 ms.
inline core::train::TrainConfig tiny_repeat_run(int steps) {
    core::train::TrainConfig c;
    c.model = model_of(2, 2, 16, 12, 20);
    c.task = core::train::Task::repeat;
    c.steps = steps;
    c.warmup = 5;
    c.batch = 8;
    c.lr = 1e-2;
    c.threads = 1;
    return c;
}

// A short run of the text trainer: GPT-2 `model` on `merges` BPE merges, `steps` steps of `batch`
// windows after `warmup` steps of warm-up; the rest as TextTrainConfig has it.
inline core::train::TextTrainConfig short_text_run(core::train::Gpt2Config model, int merges, int steps, int warmup, int batch) {
    core::train::TextTrainConfig c;
    c.model = model;
    c.merges = merges;
    c.steps = steps;
    c.warmup = warmup;
    c.batch = batch;
    return c;
}

// Weights of order one, gains and biases away from 1 and 0: every path of the gradient matters.
inline core::train::Model random_model(const core::train::ModelConfig& m, std::uint64_t seed) {
    core::train::Model model(m);
    core::train::Rng rng(seed);
    initialise(model, core::train::Init::large, rng);
    for (const core::train::TensorSpec& s : model.layout.tensors)
        for (size_t i = s.offset; i < s.offset + s.size(); ++i) model.params[i] = (s.decay ? 0.0 : model.params[i]) + 0.5 * rng.normal();
    return model;
}

inline double largest_difference(const core::Matrix& a, const core::Matrix& b) {
    REQUIRE(a.rows() == b.rows());
    REQUIRE(a.cols() == b.cols());
    return (a - b).cwiseAbs().maxCoeff();
}

} // namespace train_fixtures
