// ui/panels/model_why.h — why a head attends where it does, on the live model: the QK attribution of
// the head map's clicked cell (the score of query i against key j as a sum over pairs of the stream's
// components, core/model/circuits/qk.h) and the composition scores between every pair of heads
// (core/model/circuits/composition.h) as a map, with the selected head's strongest writers and
// readers. Both run on a thread of their own; a newer request drops the older one. On a linear head
// (Gated DeltaNet) the clicked entry of M is split instead into the direct write of the key's value,
// decayed to the query, and the correction from the later writes that erased part of it
// (core/model/delta_rule.h, delta_rule::split), worked out on a thread of its own too.
#pragma once

#include "core/background.h"
#include "core/model/circuits/composition.h"
#include "core/error_text.h"
#include "core/model/circuits/qk.h"
#include "core/model/delta_rule.h"
#include "core/wake.h"
#include "ui/view.h"

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ui {

// One computation on a thread of its own (core/background.h): start() drops the one before (its stop
// is set, its result never taken); take() gives the finished result or its error once, without
// waiting. Dropped with its view, it stops the computation, which the program waits for at exit.
template <class R>
struct WhyJob {
    WhyJob() = default;
    WhyJob(const WhyJob&) = delete;
    WhyJob& operator=(const WhyJob&) = delete;
    ~WhyJob() { cancel(); }

    struct Shared {
        std::mutex mutex;
        bool done = false;
        std::optional<R> result;
        std::string error;
        std::atomic<bool> stop{false};
    };
    std::shared_ptr<Shared> job;

    void start(std::function<R(const std::atomic<bool>* stop)> work);
    void cancel() {
        if (job) job->stop.store(true);
        job.reset();
    }
    bool busy() const { return job != nullptr; }
    // The result once finished (nothing while it runs, or when it failed: then `error` says why).
    std::optional<R> take(std::string& error);
};

struct QkCell {
    long long serial = -1; // the snapshot's
    int layer = -1, head = -1, query = -1, key = -1;
    bool operator==(const QkCell& o) const { return serial == o.serial && layer == o.layer && head == o.head && query == o.query && key == o.key; }
};

struct QkShown {
    QkCell cell;
    bool visible = true; // the head lets the query see the key
    core::model::QkAttribution attribution;
};

// A linear head's clicked entry split (nothing where the head has no value head of its own).
struct LinearSplitShown {
    QkCell cell;
    std::optional<core::model::delta_rule::Split> split;
};

struct ModelWhyView {
    QkCell asked;
    QkCell split_asked;
    WhyJob<LinearSplitShown> split_job;
    std::optional<LinearSplitShown> split; // the last finished split (the tests read its numbers)
    WhyJob<QkShown> qk;
    std::optional<QkShown> shown;
    std::vector<std::string> top; // the shown attribution's largest pairs in words (recorded for the tests)
    std::optional<float> sink_logit; // this frame: the head's learned sink logit, shown beside the score
    int kind = 1;                 // 0 Q-, 1 K-, 2 V-composition
    const void* composed_for = nullptr; // the opened model the scores are of
    int composed_kind = -1;
    WhyJob<core::model::CompositionScores> composition;
    std::optional<core::model::CompositionScores> scores;
    // The selected head's strongest writers (into it) and readers (of it): "head 1.2  0.31".
    std::vector<std::string> writers, readers;
    std::string error;
};

void draw_model_why_panel(View& v);

template <class R>
void WhyJob<R>::start(std::function<R(const std::atomic<bool>* stop)> work) {
    cancel();
    job = std::make_shared<Shared>();
    const auto finish = [](Shared& s, std::optional<R> made, const std::string& error) {
        {
            std::lock_guard<std::mutex> lock(s.mutex);
            s.result = std::move(made);
            s.error = error;
            s.done = true;
        }
        core::wake();
    };
    try {
        core::background::start([s = job, work = std::move(work), finish] {
            std::optional<R> made;
            std::string error;
            try {
                made = work(&s->stop);
            } catch (const core::model::Cancelled&) {
                error = "cancelled";
            } catch (const std::exception& e) {
                error = core::error_text(e);
            }
            finish(*s, std::move(made), error);
        });
    } catch (const std::exception& e) { // no thread to be had: the panel shows why
        finish(*job, std::nullopt, core::error_text(e));
    }
}

template <class R>
std::optional<R> WhyJob<R>::take(std::string& error) {
    const std::shared_ptr<Shared> s = job;
    if (!s) return std::nullopt;
    std::optional<R> out;
    {
        std::lock_guard<std::mutex> lock(s->mutex);
        if (!s->done) return std::nullopt;
        out = std::move(s->result);
        error = s->error;
    }
    job.reset();
    return out;
}

} // namespace ui
