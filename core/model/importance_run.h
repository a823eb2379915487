// core/model/importance_run.h — head importance (head_importance.h) or expert importance
// (expert_importance.h) on a worker thread of its own, so that the window's frame never waits for
// it and the prompt's runs go on beside it.
//
// start() runs every head's (or expert's) knock-out on the given ids; a second start() cancels the running one.
// state() says how far it is and holds the last finished result, which never changes once published.
#pragma once

#include "core/model/format/checkpoint.h"
#include "core/model/latest_wins.h"
#include "core/model/expert_importance.h"
#include "core/model/head_importance.h"

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
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
    ~ImportanceRun(); // cancels and joins
    ImportanceRun(const ImportanceRun&) = delete;
    ImportanceRun& operator=(const ImportanceRun&) = delete;

    // Measures every head (expert) of `model` on `ids`; returns the run's serial.
    long long start(std::shared_ptr<const OpenedModel> model, std::vector<int> ids);
    void cancel();
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
    bool wait_idle(double seconds) const;

private:
    void run();
    void measure(const Model& model, ImportanceResult& made);

    const Of of_;
    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    std::shared_ptr<const OpenedModel> model_;
    std::vector<int> ids_;
    LatestWins jobs_;
    bool stopping_ = false;
    long long serial_ = 0;
    std::string error_;
    std::shared_ptr<const ImportanceResult> result_;
    std::atomic<int> done_{0}, total_{0};
    std::thread worker_;
};

} // namespace core::model
