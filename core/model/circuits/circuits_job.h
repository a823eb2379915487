// core/model/circuits/circuits_job.h — one circuits computation (the lens, an attribution, a
// patching map) on a thread of its own, so that the window's frame never waits for it: start()
// runs one, cancelling the one before; take() gives its result once it has finished.
#pragma once

#include "core/model/circuits/attribution.h"
#include "core/model/circuits/lens.h"
#include "core/model/circuits/patching.h"

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core::model {

struct CircuitsResult {
    enum class Kind { lens, attribution, patching };
    Kind kind = Kind::lens;
    std::vector<int> ids;     // (t) the prompt (patching: the clean one)
    std::vector<int> corrupt; // patching: the corrupted prompt, whose positions a position map's columns are
    LogitLens lens;
    Attribution attribution;
    Patching patching;
    std::string error; // the job failed or was cancelled: one line
};

class CircuitsJob {
public:
    // The work: it reports progress(done, total) and gives up with Cancelled when `stop` is set.
    using Work = std::function<CircuitsResult(const std::atomic<bool>* stop, const std::function<void(int, int)>& progress)>;
    CircuitsJob() = default;
    ~CircuitsJob(); // cancels and waits
    CircuitsJob(const CircuitsJob&) = delete;
    CircuitsJob& operator=(const CircuitsJob&) = delete;

    void start(Work work);
    void cancel();
    bool running() const;
    int done() const { return done_.load(); }
    int total() const { return total_.load(); }
    // The finished job's result, once; nothing while one runs or after it was taken.
    std::optional<CircuitsResult> take();
    // For tests: waits at most `seconds` for the running job; true when none runs.
    bool wait(double seconds) const;

private:
    std::future<CircuitsResult> future_;
    std::shared_ptr<std::atomic<bool>> stop_;
    std::atomic<int> done_{0}, total_{0};
};

} // namespace core::model
