// core/train/session.h — a training run on a core::Worker (core/worker.h), for the Train panel.
//
// The panel thread calls start / pause / step_once / reset and copies a SessionView under a short
// lock each frame; the worker steps the Trainer and publishes after every step: the curves, and at
// most every 50 ms the attention patterns of the example sequence (so they move ≥ 10×/s), and every
// `checkpoint_every` steps the head scores and a checkpoint. pause() takes effect before
// the next step begins.
#pragma once

#include "core/scenario.h"
#include "core/train/model_file.h"
#include "core/train/trainer.h"
#include "core/worker.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <vector>

namespace core::train {

struct CurvePoint {
    int step = 0;
    double loss = 0.0, accuracy = 0.0; // of that step's batch
};

struct Checkpoint {
    int step = 0;
    std::vector<double> params;
    std::vector<HeadScores> heads;
};

struct SessionView {
    TrainConfig config;
    int step = 0;
    bool running = false;
    std::vector<CurvePoint> curve;
    std::vector<Matrix> patterns;      // L·H, (t, t) each: layer-major, on the example sequence
    std::vector<HeadScores> heads;     // at `heads_step`
    int heads_step = -1;
    std::vector<int> checkpoint_steps; // the steps the scrubber can go back to
};

// The example sequence the grid shows: one sequence of the task, fixed by the seed.
Batch example_sequence(const TrainConfig& c);
// The attention of every layer and head of `model` on `example` (B = 1), layer-major.
std::vector<Matrix> example_patterns(const Model& model, const Batch& example);
// One head as an attention scenario: X = that layer's LN₁ output on the example, W_Q, W_K, W_V that
// head's columns, causal, scaled by 1/√d_head, no W_O, tokens named by their ids. compute() of it
// gives the head's pattern.
core::Scenario head_scenario(const Model& model, const Batch& example, int layer, int head);

class TrainSession {
public:
    static constexpr int checkpoint_every = 25;

    explicit TrainSession(const TrainConfig& config);
    ~TrainSession();
    TrainSession(const TrainSession&) = delete;
    TrainSession& operator=(const TrainSession&) = delete;

    void start();     // runs until pause() or config.steps
    void pause();     // the worker stops before its next step
    void step_once(); // one step (when paused)
    void reset(const TrainConfig& config); // a fresh model; throws ConfigError
    void load(const SavedModel& saved);     // a saved model, paused, at its step (fresh optimiser)
    void wait_idle(); // returns when the worker has stopped (for tests and saving)

    void view(SessionView& out) const;  // a copy of what the worker published
    Model checkpoint(int index) const;  // the model at checkpoint_steps[index]
    SavedModel saved() const;           // the current model (call when paused)
    const Batch& example() const { return example_; }

private:
    void run(int max_steps);
    void publish(const StepResult& r, bool force_patterns);
    void join();
    void launch(int steps);

    std::unique_ptr<Trainer> trainer_;
    Batch example_;
    mutable std::mutex mutex_;
    SessionView published_;
    std::vector<Checkpoint> checkpoints_;
    std::atomic<bool> stop_{false};
    double last_patterns_s_ = -1.0;
    core::Worker<bool> worker_; // last: it stops before what run() reads goes away
};

} // namespace core::train
