// core/train/session.cpp — the Train panel's run on its worker and what it publishes.
#include "core/train/session.h"

#include "core/wake.h"

#include <chrono>
#include <stdexcept>

namespace core::train {

namespace {

constexpr double patterns_interval_s = 0.05;   // ≥ 10 pattern updates a second while training
constexpr std::uint64_t example_stream = 0xE7A3B1C5D9F20461ull;

double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

} // namespace

Batch example_sequence(const TrainConfig& c) {
    Rng rng(c.seed ^ example_stream);
    return make_batch(c.task, c.model, 1, rng);
}

std::vector<Matrix> example_patterns(const Model& model, const Batch& example) {
    Workspace ws;
    forward_all(model, example, ws);
    std::vector<Matrix> out;
    for (int l = 0; l < model.config().L; ++l)
        for (int h = 0; h < model.config().H; ++h) out.emplace_back(ws.attention(l, 0, h)); // (t, t)
    return out;
}

core::Scenario head_scenario(const Model& model, const Batch& example, int layer, int head) {
    Workspace ws;
    forward_all(model, example, ws);
    const LayerIds& id = model.layout.layers[static_cast<size_t>(layer)];
    const int dk = model.config().d_head();
    core::Scenario s;
    for (int i = 0; i < example.t; ++i) s.tokens.push_back(std::to_string(example.tokens[static_cast<size_t>(i)]));
    s.X = ws.layers[static_cast<size_t>(layer)].a1;                         // (t, D) LN₁ output
    core::Head h;
    h.W_Q = model.tensor(id.W_Q).middleCols(head * dk, dk);                 // (D, d_head)
    h.W_K = model.tensor(id.W_K).middleCols(head * dk, dk);
    h.W_V = model.tensor(id.W_V).middleCols(head * dk, dk);
    s.heads = {h};
    s.causal = true;
    s.scale = core::ScoreScale::inv_sqrt_d_k;
    return s;
}

TrainSession::TrainSession(const TrainConfig& config) { reset(config); }

TrainSession::~TrainSession() { join(); }

void TrainSession::join() {
    stop_ = true;
    worker_.wait_idle();
}

void TrainSession::wait_idle() { worker_.wait_idle(); }

void TrainSession::reset(const TrainConfig& config) {
    join();
    auto trainer = std::make_unique<Trainer>(config); // throws before anything changes
    trainer_ = std::move(trainer);
    example_ = example_sequence(config);
    std::lock_guard<std::mutex> lock(mutex_);
    published_ = SessionView{};
    published_.config = config;
    checkpoints_.clear();
    last_patterns_s_ = -1.0;
    published_.patterns = example_patterns(trainer_->model(), example_);
    published_.heads = trainer_->evaluate().heads;
    published_.heads_step = 0;
    checkpoints_.push_back({0, trainer_->model().params, published_.heads});
    published_.checkpoint_steps = {0};
}

void TrainSession::load(const SavedModel& saved) {
    TrainConfig c = trainer_->config();
    c.model = saved.model.config();
    c.task = saved.task;
    c.init = saved.init;
    c.seed = saved.seed;
    c.steps = std::max(c.steps, saved.step);
    reset(c);
    trainer_->restart_from(saved.model.params, saved.step);
    std::lock_guard<std::mutex> lock(mutex_);
    published_.step = saved.step;
    published_.patterns = example_patterns(trainer_->model(), example_);
    published_.heads = trainer_->evaluate().heads;
    published_.heads_step = saved.step;
    checkpoints_ = {{saved.step, saved.model.params, published_.heads}};
    published_.checkpoint_steps = {saved.step};
}

void TrainSession::start() {
    join();
    const int left = trainer_->config().steps - trainer_->steps_done();
    if (left > 0) launch(left);
}

void TrainSession::step_once() {
    join();
    launch(1);
}

// `steps` steps on the worker (core/worker.h, whose thread core::background starts).
void TrainSession::launch(int steps) {
    stop_ = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        published_.running = true;
    }
    worker_.start([this, steps](const core::TaskControl&) {
        run(steps);
        return true;
    });
    if (auto failed = worker_.take(); failed && !failed->error.empty()) { // no thread to be had
        std::lock_guard<std::mutex> lock(mutex_);
        published_.running = false;
        throw std::runtime_error(failed->error);
    }
}

void TrainSession::pause() { stop_ = true; }

void TrainSession::run(int max_steps) {
    for (int i = 0; i < max_steps && !stop_; ++i) publish(trainer_->step(), i + 1 == max_steps);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        published_.running = false;
    }
    wake(); // the window draws the run at rest
}

void TrainSession::publish(const StepResult& r, bool force_patterns) {
    const int step = trainer_->steps_done();
    const double t = now_s();
    const bool patterns = force_patterns || stop_ || t - last_patterns_s_ >= patterns_interval_s;
    std::vector<Matrix> fresh;
    if (patterns) {
        fresh = example_patterns(trainer_->model(), example_);
        last_patterns_s_ = t;
    }
    const bool scores = step % TrainSession::checkpoint_every == 0 || force_patterns || stop_;
    std::vector<HeadScores> heads;
    if (scores) heads = trainer_->evaluate().heads;
    std::lock_guard<std::mutex> lock(mutex_);
    published_.step = step;
    published_.curve.push_back({step, r.loss, r.accuracy});
    if (patterns) published_.patterns = std::move(fresh);
    if (scores) {
        published_.heads = heads;
        published_.heads_step = step;
    }
    if (step % checkpoint_every == 0) {
        checkpoints_.push_back({step, trainer_->model().params, heads});
        published_.checkpoint_steps.push_back(step);
    }
}

void TrainSession::view(SessionView& out) const {
    std::lock_guard<std::mutex> lock(mutex_);
    out = published_;
}

Model TrainSession::checkpoint(int index) const {
    std::lock_guard<std::mutex> lock(mutex_);
    Model m(published_.config.model);
    m.params = checkpoints_.at(static_cast<size_t>(index)).params;
    return m;
}

SavedModel TrainSession::saved() const {
    const TrainConfig& c = trainer_->config();
    return SavedModel{trainer_->model(), c.task, c.init, c.seed, trainer_->steps_done()};
}

} // namespace core::train
