// core/train/trainer.h — one training run: the model, AdamW, the task's stream of batches and the
// held-out sequences the scores are measured on.
//
// Every batch is cut into the same two halves whether one thread or two run them, and their
// gradients are added in the same order, so a seed gives the same losses on any thread count.
#pragma once

#include "core/train/model.h"
#include "core/train/model_f32.h"
#include "core/train/optim.h"
#include "core/train/scores.h"

#include <vector>

namespace core::train {

struct StepResult {
    double loss = 0.0;      // mean cross-entropy over the batch's scored positions
    double accuracy = 0.0;  // of the argmax, on those positions
    double lr = 0.0;
    double grad_norm = 0.0; // before clipping
};

struct Evaluation {
    double loss = 0.0, accuracy = 0.0; // on the held-out sequences of the task
    std::vector<HeadScores> heads;
};

// The held-out sequences of a run, fixed by its seed: 64 of its task, and 64 repeat sequences the head
// scores and knock-outs are measured on (the same batch when the task is repeat).
struct HeldOut {
    Batch task, repeat;
};
HeldOut held_out_sequences(const TrainConfig& config);

class Trainer {
public:
    // Throws ConfigError when validate(config) finds a problem.
    explicit Trainer(const TrainConfig& config);

    StepResult step();
    Evaluation evaluate();
    // Continues from `params` (a model of this config) as if `step` steps were done; fresh AdamW.
    void restart_from(const std::vector<double>& params, int step);

    int steps_done() const { return steps_done_; }
    const TrainConfig& config() const { return config_; }
    const Model& model() const { return model_; }
    const Batch& held_out_repeat() const { return held_out_.repeat; }

private:
    TrainConfig config_;
    Model model_;
    AdamW optimiser_;
    Rng batches_;
    int steps_done_ = 0;
    Workspace halves_[2];
    ParamsF32 params_f32_;
    WorkspaceF32 halves_f32_[2];
    std::vector<double> grads_[2];
    HeldOut held_out_;
    Workspace eval_ws_, eval_repeat_ws_;
};

// Runs the forward pass of the whole batch in one workspace, with those heads knocked out if given.
LossSum forward_all(const Model& model, const Batch& batch, Workspace& ws, const Knockouts* knockouts = nullptr);

} // namespace core::train
