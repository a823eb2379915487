// core/model/circuits/circuits_job.cpp — a circuits computation on its own thread.
#include "core/model/circuits/circuits_job.h"

#include "core/parallel.h"
#include "core/wake.h"

#include <chrono>

namespace core::model {

CircuitsJob::~CircuitsJob() {
    cancel();
    if (future_.valid()) future_.wait();
}

void CircuitsJob::start(Work work) {
    cancel();
    if (future_.valid()) future_.wait(); // the superseded job stops at its next layer
    stop_ = std::make_shared<std::atomic<bool>>(false);
    done_.store(0);
    total_.store(0);
    future_ = std::async(std::launch::async, [this, work = std::move(work), stop = stop_] {
        core::parallel::work_in_background();
        CircuitsResult r;
        try {
            r = work(stop.get(), [this](int done, int total) {
                done_.store(done);
                total_.store(total);
            });
        } catch (const Cancelled&) {
            r.error = "Cancelled.";
        } catch (const std::exception& e) {
            r.error = e.what();
        }
        wake();
        return r;
    });
}

void CircuitsJob::cancel() {
    if (stop_) stop_->store(true);
}

bool CircuitsJob::running() const { return future_.valid() && future_.wait_for(std::chrono::seconds(0)) != std::future_status::ready; }

std::optional<CircuitsResult> CircuitsJob::take() {
    if (!future_.valid() || running()) return std::nullopt;
    return future_.get();
}

bool CircuitsJob::wait(double seconds) const {
    return !future_.valid() || future_.wait_for(std::chrono::duration<double>(seconds)) == std::future_status::ready;
}

} // namespace core::model
