#include "core/model/importance_run.h"

#include "core/parallel.h"
#include "core/wake.h"

#include <chrono>

namespace core::model {

ImportanceRun::~ImportanceRun() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        jobs_.stop.store(true);
    }
    changed_.notify_all();
    if (worker_.joinable()) worker_.join();
}

long long ImportanceRun::start(std::shared_ptr<const OpenedModel> model, std::vector<int> ids) {
    std::lock_guard<std::mutex> lock(mutex_);
    model_ = std::move(model);
    ids_ = std::move(ids);
    jobs_.post();
    error_.clear();
    done_.store(0);
    total_.store(model_ && of_ == Of::heads ? model_->model->config().layers * model_->model->config().heads : 0); // experts: from the run
    if (!worker_.joinable()) worker_ = std::thread([this] { run(); });
    changed_.notify_all();
    return ++serial_;
}

void ImportanceRun::cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.cancel();
    changed_.notify_all();
}

void ImportanceRun::reset() {
    cancel();
    std::lock_guard<std::mutex> lock(mutex_);
    result_.reset();
    model_.reset(); // a run still finishing belongs to the model before
    error_.clear();
    jobs_.cancelled = false;
}

ImportanceRun::State ImportanceRun::state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return State{jobs_.busy(), done_.load(), total_.load(), jobs_.cancelled, error_, result_};
}

bool ImportanceRun::wait_idle(double seconds) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return !jobs_.busy(); });
}

void ImportanceRun::measure(const Model& model, ImportanceResult& made) {
    const auto progress = [this](int done, int total) {
        done_.store(done);
        total_.store(total);
    };
    if (of_ == Of::heads) made.importance = head_importance(model, made.ids, &jobs_.stop, progress);
    else made.experts = expert_importance(model, made.ids, &jobs_.stop, progress);
}

void ImportanceRun::run() {
    core::parallel::work_in_background();
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [this] { return jobs_.pending || stopping_; });
        if (stopping_) return;
        const std::shared_ptr<const OpenedModel> model = model_;
        const std::vector<int> ids = ids_;
        const long long serial = serial_;
        jobs_.take();
        lock.unlock();
        auto made = std::make_shared<ImportanceResult>();
        std::string error;
        try {
            made->serial = serial;
            made->model = model->name;
            made->ids = ids;
            measure(*model->model, *made);
        } catch (const Cancelled&) {
            made.reset();
        } catch (const std::exception& e) {
            made.reset();
            error = e.what();
        }
        lock.lock();
        jobs_.running = false;
        if (!jobs_.pending && model_ == model) {
            if (made) result_ = std::move(made);
            error_ = error;
        }
        changed_.notify_all();
        wake();
    }
}

} // namespace core::model
