#include "core/model/importance_run.h"

namespace core::model {

long long ImportanceRun::start(std::shared_ptr<const OpenedModel> model, std::vector<int> ids) {
    std::lock_guard<std::mutex> lock(mutex_);
    error_.clear();
    cancelled_ = false;
    total_ = model && of_ == Of::heads ? model->model->config().layers * model->model->config().heads : 0;
    serial_ = worker_.start([of = of_, model = std::move(model), ids = std::move(ids)](const TaskControl& c) {
        auto made = std::make_shared<ImportanceResult>();
        made->model = model->name;
        made->ids = ids;
        if (of == Of::heads) made->importance = head_importance(*model->model, ids, c.stop_flag(), c.reporter());
        else made->experts = expert_importance(*model->model, ids, c.stop_flag(), c.reporter());
        return made;
    });
    return serial_;
}

void ImportanceRun::reset() {
    worker_.cancel();
    std::lock_guard<std::mutex> lock(mutex_);
    forgotten_ = serial_; // a run still finishing belongs to the model before
    result_.reset();
    error_.clear();
    cancelled_ = false;
}

void ImportanceRun::absorb() const {
    std::optional<core::Worker<std::shared_ptr<ImportanceResult>>::Outcome> out = worker_.take();
    if (!out || out->serial <= forgotten_) return;
    cancelled_ = out->cancelled;
    error_ = out->error;
    if (out->result) {
        (*out->result)->serial = out->serial;
        result_ = std::move(*out->result);
    }
}

ImportanceRun::State ImportanceRun::state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    absorb();
    const auto p = worker_.progress();
    return State{p.busy, p.done, p.busy && p.total == 0 ? total_ : p.total, cancelled_, error_, result_};
}

} // namespace core::model
