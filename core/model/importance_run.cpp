#include "core/model/importance_run.h"

#include <chrono>

namespace core::model {

ImportanceRun::~ImportanceRun() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        cancel_.store(true);
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
}

long long ImportanceRun::start(std::shared_ptr<const OpenedModel> model, std::vector<int> ids) {
    std::lock_guard<std::mutex> lock(mutex_);
    model_ = std::move(model);
    ids_ = std::move(ids);
    pending_ = true;
    cancelled_ = false;
    error_.clear();
    done_.store(0);
    total_.store(model_ ? model_->model->config().layers * model_->model->config().heads : 0);
    if (running_) cancel_.store(true); // superseded
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    changed_.notify_all();
    return ++serial_;
}

void ImportanceRun::cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (pending_ || running_) cancelled_ = true;
    pending_ = false;
    if (running_) cancel_.store(true);
    changed_.notify_all();
}

void ImportanceRun::reset() {
    cancel();
    std::lock_guard<std::mutex> lock(mutex_);
    result_.reset();
    model_.reset(); // a run still finishing belongs to the model before
    error_.clear();
    cancelled_ = false;
}

ImportanceRun::State ImportanceRun::state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    State s;
    s.running = pending_ || running_;
    s.done = done_.load();
    s.total = total_.load();
    s.cancelled = cancelled_;
    s.error = error_;
    s.result = result_;
    return s;
}

bool ImportanceRun::wait_idle(double seconds) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return !pending_ && !running_; });
}

void ImportanceRun::run() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return pending_ || stopping_; });
        if (stopping_) return;
        const std::shared_ptr<const OpenedModel> model = model_;
        const std::vector<int> ids = ids_;
        const long long serial = serial_;
        pending_ = false;
        running_ = true;
        cancel_.store(false);
        lock.unlock();
        auto made = std::make_shared<ImportanceResult>();
        std::string error;
        try {
            made->serial = serial;
            made->model = model->name;
            made->ids = ids;
            made->importance = head_importance(*model->model, ids, &cancel_, [this](int done, int) { done_.store(done); });
        } catch (const Cancelled&) {
            made.reset();
        } catch (const std::exception& e) {
            made.reset();
            error = e.what();
        }
        lock.lock();
        running_ = false;
        if (!pending_ && model_ == model) {
            if (made) result_ = std::move(made);
            error_ = error;
        }
        changed_.notify_all();
    }
}

} // namespace core::model
