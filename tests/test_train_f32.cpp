// The tiny transformer's float32 pass against its double pass (which the finite differences check):
// the loss, the logits and every tensor's gradient, with and without the MLP, in every float32 build
// this CPU runs; knock-outs in float32; and the trainer on either pass.
#include "core/train/model_f32.h"
#include "core/train/trainer.h"
#include "train_fixtures.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace core::train;
using train_fixtures::random_model;

namespace {

std::vector<const gpt2_ops::Set<float>*> float_builds() {
    std::vector<const gpt2_ops::Set<float>*> sets{gpt2_ops::generic_f32()};
    if (&gpt2_ops::best_f32() != sets[0]) sets.push_back(&gpt2_ops::best_f32());
    return sets;
}

double largest(const std::vector<double>& v, size_t from, size_t n) {
    double top = 0.0;
    for (size_t i = from; i < from + n; ++i) top = std::max(top, std::abs(v[i]));
    return top;
}

// The largest difference of the logits of the two passes, relative to the largest logit.
double logits_difference(const Workspace& ws, const WorkspaceF32& ws32) {
    double diff = 0.0;
    for (Eigen::Index i = 0; i < ws.logits.size(); ++i)
        diff = std::max(diff, std::abs(ws.logits.data()[i] - static_cast<double>(ws32.logits[static_cast<size_t>(i)])));
    return diff / ws.logits.cwiseAbs().maxCoeff();
}

void check_against_double(bool mlp, const gpt2_ops::Set<float>& ops) {
    const ModelConfig m{9, 10, 16, 4, 2, mlp};
    const Model model = random_model(m, 7);
    Rng rng(5);
    const Batch batch = make_batch(Task::repeat, m, 4, rng);
    const int first = 1, B = 3; // sequences 2 … 4, as the trainer's second half reads its part

    Workspace ws;
    ws.resize(m, B, batch.t);
    const LossSum s = forward(model, batch, first, ws);
    std::vector<double> grad(model.layout.total, 0.0);
    backward(model, batch, first, ws, 7.0, grad);

    ParamsF32 params;
    params.load(model);
    WorkspaceF32 ws32;
    ws32.resize(m, B, batch.t);
    std::vector<double> grad32(model.layout.total, -1.0); // overwritten
    const LossSum s32 = forward_backward_f32(model, params, batch, first, ws32, 7.0, grad32, ops);

    REQUIRE(s.scored > 0);
    CHECK(s32.scored == s.scored);
    CHECK(s32.correct == s.correct);
    CHECK(std::abs(s32.loss - s.loss) <= 1e-5 * s.loss);
    for (const TensorSpec& t : model.layout.tensors) {
        double diff = 0.0;
        for (size_t i = t.offset; i < t.offset + t.size(); ++i) diff = std::max(diff, std::abs(grad32[i] - grad[i]));
        CAPTURE(t.name);
        CHECK(largest(grad, t.offset, t.size()) > 1e-6); // the tensor matters to the loss
        CHECK(diff <= 1e-4 * largest(grad, t.offset, t.size()));
    }
    // forward_backward_f32 left the logits as their gradient; a forward alone keeps them
    forward_f32(model, params, batch, first, ws32, nullptr, ops);
    CHECK(logits_difference(ws, ws32) <= 1e-5);
}

} // namespace

TEST_CASE("train f32: the float32 pass gives the double pass's loss, hits and gradients, without and with the MLP") {
    for (const gpt2_ops::Set<float>* ops : float_builds()) {
        CAPTURE(std::string(ops->name));
        check_against_double(false, *ops);
        check_against_double(true, *ops);
    }
}

TEST_CASE("train f32: knock-outs in float32 give the double pass's logits, zero and mean — a missing head throws") {
    const ModelConfig m{9, 10, 16, 4, 2, false};
    const Model model = random_model(m, 3);
    Rng rng(8);
    const Batch batch = make_batch(Task::repeat, m, 3, rng);
    ParamsF32 params;
    params.load(model);
    WorkspaceF32 ws32, intact32;
    ws32.resize(m, batch.B, batch.t);
    intact32.resize(m, batch.B, batch.t);
    forward_f32(model, params, batch, 0, intact32);
    for (const core::heads::Ablation mode : {core::heads::Ablation::zero, core::heads::Ablation::mean}) {
        const Knockouts k{{{0, 1}, {1, 3}}, mode};
        Workspace ws;
        const LossSum s = forward_all(model, batch, ws, &k);
        const LossSum s32 = forward_f32(model, params, batch, 0, ws32, &k);
        CAPTURE(static_cast<int>(mode));
        CHECK(logits_difference(ws, ws32) <= 1e-5);
        CHECK(std::abs(s32.loss - s.loss) <= 1e-5 * s.loss);
        double moved = 0.0; // the knock-out changed the output
        for (size_t i = 0; i < ws32.logits.size(); ++i) moved = std::max(moved, static_cast<double>(std::abs(ws32.logits[i] - intact32.logits[i])));
        CHECK(moved > 1e-3);
    }
    const Knockouts bad{{{0, 4}}, core::heads::Ablation::zero};
    CHECK_THROWS_WITH_AS(forward_f32(model, params, batch, 0, ws32, &bad), doctest::Contains("no head 1.5"), std::invalid_argument);
}

TEST_CASE("train f32: a run in float32 follows the run in double, step for step") {
    TrainConfig c;
    c.model = ModelConfig{12, 10, 16, 2, 2, false};
    c.task = Task::repeat;
    c.steps = 30;
    c.warmup = 5;
    c.batch = 8;
    c.lr = 1e-2;
    TrainConfig d = c;
    d.float32 = false;
    Trainer single(c), reference(d);
    for (int i = 0; i < c.steps; ++i) {
        const StepResult a = single.step(), b = reference.step();
        CAPTURE(i);
        CHECK(std::abs(a.loss - b.loss) <= 1e-3 * b.loss);
    }
    CHECK(single.steps_done() == c.steps);
}
