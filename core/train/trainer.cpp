#include "core/train/trainer.h"

#include "core/parallel.h"

#include <algorithm>

namespace core::train {

namespace {

constexpr int held_out_sequences_count = 64;
constexpr std::uint64_t held_out_stream = 0xA5A5A5A5DEADBEEFull;

TrainConfig checked(const TrainConfig& c) {
    if (std::string e = validate(c); !e.empty()) throw ConfigError(e);
    return c;
}

} // namespace

LossSum forward_all(const Model& model, const Batch& batch, Workspace& ws, const Knockouts* knockouts) {
    if (ws.B != batch.B || ws.t != batch.t) ws.resize(model.config(), batch.B, batch.t);
    return forward(model, batch, 0, ws, knockouts);
}

HeldOut held_out_sequences(const TrainConfig& config) {
    Rng rng(config.seed ^ held_out_stream);
    HeldOut h;
    h.task = make_batch(config.task, config.model, held_out_sequences_count, rng);
    h.repeat = config.task == Task::repeat ? h.task : make_batch(Task::repeat, config.model, held_out_sequences_count, rng);
    return h;
}

Trainer::Trainer(const TrainConfig& config)
    : config_(checked(config)), model_(config.model), optimiser_(model_.layout, config.weight_decay), batches_(config.seed) {
    Rng init_rng(config.seed ^ 0x5EEDull);
    initialise(model_, config.init, init_rng);
    held_out_ = held_out_sequences(config_);
    for (auto& g : grads_) g.assign(model_.layout.total, 0.0);
}

StepResult Trainer::step() {
    const Batch batch = make_batch(config_.task, config_.model, config_.batch, batches_);
    const double scored = std::max(1, batch.scored());
    const int half = batch.B / 2;
    LossSum sums[2];
    if (config_.float32) params_f32_.load(model_);
    auto run_half = [&](int k) {
        const int first = k == 0 ? 0 : half, count = k == 0 ? half : batch.B - half;
        if (config_.float32) {
            WorkspaceF32& ws = halves_f32_[k];
            if (ws.B != count || ws.t != batch.t) ws.resize(model_.config(), count, batch.t);
            sums[k] = forward_backward_f32(model_, params_f32_, batch, first, ws, scored, grads_[k]);
            return;
        }
        Workspace& ws = halves_[k];
        if (ws.B != count || ws.t != batch.t) ws.resize(model_.config(), count, batch.t);
        std::fill(grads_[k].begin(), grads_[k].end(), 0.0);
        sums[k] = forward(model_, batch, first, ws);
        backward(model_, batch, first, ws, scored, grads_[k]);
    };
    if (config_.threads > 1) {
        core::parallel::both([&] { run_half(0); }, [&] { run_half(1); });
    } else {
        run_half(0);
        run_half(1);
    }
    std::vector<double>& grad = grads_[0];
    for (size_t i = 0; i < grad.size(); ++i) grad[i] += grads_[1][i];

    StepResult r;
    r.loss = (sums[0].loss + sums[1].loss) / scored;
    r.accuracy = (sums[0].correct + sums[1].correct) / scored;
    r.grad_norm = clip_grad_norm(grad, 1.0);
    r.lr = learning_rate(config_.lr, steps_done_, config_.warmup, config_.steps);
    optimiser_.step(model_.params, grad, r.lr);
    ++steps_done_;
    return r;
}

void Trainer::restart_from(const std::vector<double>& params, int step) {
    model_.params = params;
    optimiser_ = AdamW(model_.layout, config_.weight_decay);
    steps_done_ = step;
}

Evaluation Trainer::evaluate() {
    Evaluation e;
    const LossSum s = forward_all(model_, held_out_.task, eval_ws_);
    e.loss = s.loss / std::max(1, s.scored);
    e.accuracy = static_cast<double>(s.correct) / std::max(1, s.scored);
    const Workspace* repeat_ws = &eval_ws_;
    if (config_.task != Task::repeat) {
        forward_all(model_, held_out_.repeat, eval_repeat_ws_);
        repeat_ws = &eval_repeat_ws_;
    }
    e.heads = head_scores(config_.model, eval_ws_, *repeat_ws, held_out_.repeat);
    return e;
}

} // namespace core::train
