// core/model/session.h — an opened model and its tokenizer, with the forward run on a worker thread.
//
// The window's frame never waits for a forward: it asks (request()), and reads the last finished
// run as an immutable Snapshot (snapshot()), which it may keep as long as it likes. A new request
// supersedes the running one (which is cancelled); progress() says how far the running one is.
// Opening a model that fails leaves the open one in place and keeps the one-line error.
//
// Layers, heads and positions count from 0.
#pragma once

#include "core/heads/scores.h"
#include "core/model/format/checkpoint.h"
#include "core/model/forward.h"
#include "core/model/latest_wins.h"
#include "core/model/map_cache.h"
#include "core/model/tokenizer/tokenizer.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace core::model {

// One of the most likely next tokens (a causal LM) or fillers of a [MASK] (BERT).
struct Prediction {
    int id = 0;
    std::string token; // as a person reads it (token_display)
    float probability = 0.0f;
};

// What a run asks for. Ids win over text when given (a probe sequence, a generated continuation).
struct SessionRequest {
    SessionRequest() = default;
    SessionRequest(std::string prompt) : text(std::move(prompt)) {} // a prompt alone: s.request({text})
    std::string text;
    std::vector<int> ids;
    std::vector<HeadRef> ablate;
    Ablation ablation = Ablation::zero;
    std::vector<ExpertRef> ablate_experts; // ForwardOptions::ablate_experts
    bool capture_qkv = false;
    // The sequence the head scores are measured on (the probe); empty: the run's own.
    std::vector<int> score_ids;
    bool fast_products = false;         // ForwardOptions::fast_products, where the CPU has them

    bool knocks_out() const { return !ablate.empty() || !ablate_experts.empty(); }
    // The knock-outs of heads and experts into `fo`.
    void knock_out(ForwardOptions& fo) const {
        fo.ablate = ablate;
        fo.ablation = ablation;
        fo.ablate_experts = ablate_experts;
    }
};

// How far a fast run (SessionRequest::fast_products) lies from the exact run of the same request:
// the largest differences of any attention weight and of the top predictions' probabilities, rank
// by rank, and at how many positions the top prediction differs. Computed on the worker after the
// fast run is shown.
struct FastDifference {
    long long serial = 0; // the request it answers (0: none)
    float attention = 0.0f, probability = 0.0f;
    int top_changed = 0;
};

// A finished run, never changed once published.
struct Snapshot {
    long long serial = 0;        // the request it answers (0: none yet)
    std::string model;           // the model's name
    SessionRequest request;
    std::vector<int> ids;        // (t)
    std::vector<std::string> tokens;  // (t) the vocabulary's strings ("Ġcat")
    std::vector<std::string> labels;  // (t) as a person reads them ("␣cat")
    std::vector<bool> special;        // (t) added by the template or a special token
    ForwardResult result;             // attention maps (L, H, t, t) on demand, hidden (t, D), captures; no logits (see top)
    MatrixF rollout;                  // (t, t) attention rollout of the attention (core/heads/rollout.h), taken from the forward
    // Top predictions by position: for a causal LM those after each position, for BERT with an MLM
    // head those at each [MASK]; empty elsewhere. (t) lists of at most top_count.
    std::vector<std::vector<Prediction>> top;
    double loss = 0.0;           // a causal LM's mean next-token cross-entropy over the prompt (nats); 0 when t < 2
    bool has_loss = false;
    // Every head's scores (layers · heads, layer-major) on `scored_ids`: the request's score_ids,
    // run through a second forward with the same knock-outs, or the run's own ids.
    std::vector<core::heads::HeadScores> scores;
    std::vector<int> scored_ids;
    std::string score_error;     // the probe could not run (past the context): no scores then
    // With knock-outs (request.ablate), the intact model's top predictions and loss on the same ids,
    // to show beside them; has_intact false without knock-outs.
    std::vector<std::vector<Prediction>> intact_top;
    double intact_loss = 0.0;
    bool has_intact = false;
    bool fast = false;           // the products ran fast (request.fast_products where the CPU has them)
    std::string error;           // the run failed (text too long, invalid UTF-8): nothing above but request and model
    double seconds = 0.0;        // how long the run took: the forward, the predictions and the scores

    int t() const { return static_cast<int>(ids.size()); }
    int layers() const { return result.layers; }
    int heads() const { return result.heads; }
    // Head (l, h)'s weights (t, t), rebuilt on first use and kept a while (shared by the copies of a snapshot).
    std::shared_ptr<const MatrixF> head_map(int l, int h) const { return maps->head(result.maps, l, h); }
    std::shared_ptr<MapCache> maps = std::make_shared<MapCache>();
};

// Head (l, h)'s map of `s` for a frame: null while it is rebuilt apart (MapCache::soon).
inline std::shared_ptr<const MatrixF> head_map_soon(const std::shared_ptr<const Snapshot>& s, int l, int h) {
    return s->maps->soon(s, s->result.maps, l, h);
}

inline constexpr int top_count = 10;
// The longest prompt whose rollout a run computes: the rollout holds four (t, t) float matrices (R,
// the layer's mean, Â and their product), 268 MB each at 8192 tokens, more than the maps' whole store.
inline constexpr int rollout_most = 4096;
// The Heads grid's thumbnails: at most this many blocks across, made by the forward.
inline constexpr int thumbnail_most = 24;

// Writes (layers, heads, t, t) float32 weights with the tokens in the metadata, as --attention reads,
// one head's map at a time.
void write_attention_file(const std::string& path, const ForwardResult& r, const std::vector<std::string>& labels,
                          const std::string& model);

// A model's files checked and mapped, and its tokenizer read (empty without one): what
// Session::open reads, so that a caller can read it on another thread. Throws what open_model and
// load_tokenizer throw.
struct LoadedModel {
    std::shared_ptr<const OpenedModel> model;
    std::shared_ptr<const Tokenizer> tokenizer;
};
LoadedModel load_model(const std::string& path);

class Session {
public:
    Session() = default;
    ~Session(); // cancels and joins the worker
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Opens a model directory, cache entry or trained .safetensors, and its tokenizer. On failure
    // the open model stays and `error` is the one line naming the file; false then.
    bool open(const std::string& path, std::string& error);
    // Makes a loaded model the open one, as open() does once it has read it.
    void adopt(LoadedModel m);
    bool has_model() const;
    std::string model_name() const;
    std::string model_path() const;
    bool causal() const;
    // The open model's config and tokenizer (nullptr without a model), held alive by the pointer.
    std::shared_ptr<const OpenedModel> opened() const;
    std::shared_ptr<const Tokenizer> tokenizer() const;

    // Starts a run; a running one is cancelled. Returns its serial.
    long long request(SessionRequest r);
    // Cancels the running request; the last snapshot stays.
    void cancel();

    // Other work on the worker, in the order posted, each when no request is waiting (the prompt
    // comes first): opening a head in the editor, a decoding step, a second prompt's run. A task
    // gets the model and tokenizer open when it was posted and a flag set when the session closes;
    // it publishes its own result and catches its own errors. False (nothing posted) without a model.
    using Task = std::function<void(const OpenedModel& model, const Tokenizer& tokenizer, const std::atomic<bool>& cancel)>;
    bool post(Task task);

    // The last finished run (nullptr before the first), without waiting for a running one.
    std::shared_ptr<const Snapshot> snapshot() const;
    // The last fast run's difference from the exact one (serial 0 until the first is measured).
    FastDifference fast_difference() const;

    struct Progress {
        bool running = false;
        int layers_done = 0, layers = 0;
        double seconds = 0.0;    // since the running request started
        long long serial = 0;    // the running (or last) request
        bool cancelled = false;  // the last request was cancelled
    };
    Progress progress() const;

    // For tests and the command line: waits until no request or task is pending or running, at
    // most `seconds`; true when idle.
    bool wait_idle(double seconds) const;

private:
    struct Job {
        long long serial = 0;
        SessionRequest request;
        std::shared_ptr<const OpenedModel> model;
        std::shared_ptr<const Tokenizer> tokenizer;
    };
    void start_worker();
    void run(std::unique_lock<std::mutex>& lock);
    void run_task(std::unique_lock<std::mutex>& lock);
    std::shared_ptr<Snapshot> compute(const Job& job);
    void measure_fast(std::shared_ptr<const Snapshot> fast);

    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    std::shared_ptr<const OpenedModel> model_;
    std::shared_ptr<const Tokenizer> tokenizer_;
    std::shared_ptr<const Snapshot> snapshot_;
    FastDifference fast_difference_;
    LatestWins jobs_;
    bool stopping_ = false;
    Job next_;
    long long serial_ = 0, running_serial_ = 0;
    double started_ = 0.0;
    std::atomic<int> layers_done_{0}, layers_{0};
    struct Posted {
        Task task;
        std::shared_ptr<const OpenedModel> model;
        std::shared_ptr<const Tokenizer> tokenizer;
    };
    std::deque<Posted> tasks_;
    bool task_running_ = false;
    std::atomic<bool> task_cancel_{false};
    bool worker_started_ = false, worker_ended_ = false; // the worker runs from the first request until the session stops
};

} // namespace core::model
