// core/model/importance_run.h — head importance (head_importance.h) or expert importance
// (expert_importance.h) on a core::Worker of its own, so that the window's frame never waits for
// it and the prompt's runs go on beside it.
//
// start() runs every head's (or expert's) knock-out on the given ids; a second start() cancels the running one.
// state() says how far it is and holds the last finished result, which never changes once published.
#pragma once

#include "core/model/format/checkpoint.h"
#include "core/model/expert_importance.h"
#include "core/model/head_importance.h"
#include "core/worker.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace core::model {

struct ImportanceResult {
    long long serial = 0;
    std::string model;    // the model's name
    std::vector<int> ids; // (t) the sequence measured
    HeadImportance importance;  // a run of heads
    ExpertImportance experts;   // a run of experts
};

class ImportanceRun {
public:
    enum class Of { heads, experts };
    explicit ImportanceRun(Of of = Of::heads) : of_(of) {}

    // Measures every head (expert) of `model` on `ids`; returns the run's serial.
    long long start(std::shared_ptr<const OpenedModel> model, std::vector<int> ids);
    void cancel() { worker_.cancel(); }
    // Forgets the result (another model was opened) and cancels a running one.
    void reset();

    struct State {
        bool running = false;
        int done = 0, total = 0;     // heads (experts) measured so far, of how many
        bool cancelled = false;      // the last run was cancelled
        std::string error;           // the last run failed (a model without an LM head, t < 2)
        std::shared_ptr<const ImportanceResult> result; // the last finished run (nullptr before one)
    };
    State state() const;
    // For tests: waits until nothing runs, at most `seconds`; true when idle.
    bool wait_idle(double seconds) const { return worker_.wait_idle(seconds); }

private:
    // The worker's finished run into what state() gives.
    void absorb() const;

    const Of of_;
    mutable std::mutex mutex_;
    mutable core::Worker<std::shared_ptr<ImportanceResult>> worker_;
    long long serial_ = 0, forgotten_ = 0; // the last start's serial; runs up to forgotten_ were of a model before
    int total_ = 0;                        // heads to measure, before the worker says (experts: from the run)
    mutable std::string error_;
    mutable bool cancelled_ = false;
    mutable std::shared_ptr<const ImportanceResult> result_;
};

} // namespace core::model
