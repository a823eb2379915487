// core/model/session.cpp
//
// [SECTION] The attention file
// [SECTION] Opening
// [SECTION] Requests and the worker
// [SECTION] One run
#include "core/model/session.h"

#include "core/io/files.h"
#include "core/io/tensor.h"
#include "core/background.h"
#include "core/error_text.h"
#include "core/model/fast_product.h"
#include "core/model/head_importance.h"
#include "core/model/input.h"
#include "core/model/next_token.h"
#include "core/wake.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace core::model {

namespace {

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

std::string safe_dump(const nlohmann::json& j) { return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace); }

// A causal LM's top tokens after every position and its loss on the prompt, or BERT's at each
// [MASK]; nothing for a model without an LM head.
void predict(Snapshot& s, const Model& model, const Tokenizer& tok) {
    const int t = s.t();
    s.top.assign(static_cast<std::size_t>(t), {});
    if (!model.unembedding().weight || s.result.hidden.rows() != t) return;
    std::vector<bool> rows(static_cast<std::size_t>(t), model.causal());
    if (!model.causal())
        for (int i = 0; i < t; ++i) rows[static_cast<std::size_t>(i)] = tok.mask_id() >= 0 && s.ids[static_cast<std::size_t>(i)] == tok.mask_id();
    if (std::find(rows.begin(), rows.end(), true) == rows.end()) return;
    const NextTokens next = next_tokens(model, s.result.hidden, s.ids, top_count, rows, s.fast);
    for (int i = 0; i < t; ++i)
        for (const TopToken& k : next.top[static_cast<std::size_t>(i)])
            s.top[static_cast<std::size_t>(i)].push_back({k.id, tok.vocab_size() ? tok.token_display(k.id) : std::to_string(k.id), static_cast<float>(k.probability)});
    if (model.causal() && next.loss) {
        s.loss = *next.loss;
        s.has_loss = true;
    }
}

// The same predictions without the knock-outs: a forward without attention.
void predict_intact(Snapshot& s, const Model& model, const Tokenizer& tok, const std::atomic<bool>& cancel) {
    Snapshot intact;
    intact.ids = s.ids;
    intact.fast = s.fast;
    ForwardOptions fo;
    fo.fast_products = s.fast;
    fo.attention = false;
    fo.cancel = &cancel;
    fo.logits = Logits::none;
    intact.result = model.forward(s.ids, fo);
    predict(intact, model, tok);
    s.intact_top = std::move(intact.top);
    s.intact_loss = intact.loss;
    s.has_intact = true;
}

// Every head's scores on the run's ids, or on the request's score_ids (a second forward, which
// reports its layers as a second pass of the progress).
void score(Snapshot& s, const Model& model, const SessionRequest& r, const std::atomic<bool>& cancel) {
    if (r.score_ids.empty()) { // the forward measured them on its maps
        s.scored_ids = s.ids;
        s.scores = std::move(s.result.scores);
        return;
    }
    ForwardOptions fo;
    r.knock_out(fo);
    fo.fast_products = s.fast;
    fo.cancel = &cancel;
    fo.logits = Logits::none;
    try {
        model.check_ids(r.score_ids, 0);
        const core::heads::ScoreIndex index = core::heads::score_index(r.score_ids);
        fo.scores = &index;
        ForwardResult probe = model.forward(r.score_ids, fo);
        s.scored_ids = r.score_ids;
        s.scores = std::move(probe.scores);
    } catch (const InputError& e) {
        s.score_error = std::string("The probe: ") + e.what();
    }
}

// The fast run's distance from the exact one (FastDifference).
FastDifference difference(const Snapshot& fast, const Snapshot& exact) {
    FastDifference d;
    d.serial = fast.serial;
    for (int l = 0; l < fast.layers(); ++l)
        for (int h = 0; h < fast.heads(); ++h) // one head's two maps at a time, rebuilt
            d.attention = std::max(d.attention, (fast.result.maps.head(l, h) - exact.result.maps.head(l, h)).cwiseAbs().maxCoeff());
    for (std::size_t i = 0; i < fast.top.size() && i < exact.top.size(); ++i) {
        const auto &a = fast.top[i], &b = exact.top[i];
        for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) d.probability = std::max(d.probability, std::abs(a[k].probability - b[k].probability));
        if (!a.empty() && !b.empty() && a[0].id != b[0].id) ++d.top_changed;
    }
    return d;
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] The attention file
//-----------------------------------------------------------------------------

void write_attention_file(const std::string& path, const ForwardResult& r, const std::vector<std::string>& labels, const std::string& model) {
    // Written by hand rather than through core::io's TensorFile (doubles): (L, H, t, t) float32 as computed.
    const std::size_t map = static_cast<std::size_t>(r.t_new) * static_cast<std::size_t>(r.t_total) * sizeof(float);
    const std::size_t size = static_cast<std::size_t>(r.layers) * static_cast<std::size_t>(r.heads) * map;
    const nlohmann::json header = {
        {"attentions", {{"dtype", "F32"}, {"shape", {r.layers, r.heads, r.t_new, r.t_total}}, {"data_offsets", {0, size}}}},
        {"__metadata__", {{"tokens", safe_dump(nlohmann::json(labels))}, {"model", model}}}};
    std::string text = safe_dump(header);
    text.append((8 - text.size() % 8) % 8, ' ');
    std::string bytes(8, '\0');
    for (int k = 0; k < 8; ++k) bytes[static_cast<std::size_t>(k)] = static_cast<char>((static_cast<std::uint64_t>(text.size()) >> (8 * k)) & 0xff);
    bytes += text;
    int next = 0; // the head after those written: l · heads + h
    const auto piece = [&](std::string& out) {
        if (next == 0) out.swap(bytes);
        else {
            const MatrixF A = r.maps.head((next - 1) / r.heads, (next - 1) % r.heads); // (t_new, t_total)
            out.assign(reinterpret_cast<const char*>(A.data()), map);
        }
        return ++next <= r.layers * r.heads;
    };
    try {
        core::io::write_file_atomically(path, piece);
    } catch (const std::runtime_error& e) {
        throw core::io::FileError(e.what());
    }
}

//-----------------------------------------------------------------------------
// [SECTION] Opening
//-----------------------------------------------------------------------------

Session::~Session() {
    std::unique_lock<std::mutex> lock(mutex_);
    stopping_ = true;
    jobs_.stop.store(true);
    task_cancel_.store(true);
    changed_.notify_all();
    changed_.wait(lock, [this] { return !worker_started_ || worker_ended_; });
}

LoadedModel load_model(const std::string& path) {
    auto opened = std::make_shared<OpenedModel>(open_model(path));
    auto tokenizer = std::make_shared<Tokenizer>(tokenizer_of(*opened));
    return {std::move(opened), std::move(tokenizer)};
}

bool Session::open(const std::string& path, std::string& error) {
    try {
        adopt(load_model(path));
    } catch (const std::exception& e) {
        error = core::error_text(e);
        return false;
    }
    return true;
}

void Session::adopt(LoadedModel m) {
    std::lock_guard<std::mutex> lock(mutex_);
    model_ = std::move(m.model);
    tokenizer_ = std::move(m.tokenizer);
    if (jobs_.running) jobs_.stop.store(true); // its result belongs to the model before
    jobs_.pending = false;
    snapshot_.reset();
}

bool Session::has_model() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return model_ != nullptr;
}

std::string Session::model_name() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return model_ ? model_->name : std::string();
}

std::string Session::model_path() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return model_ ? model_->path : std::string();
}

bool Session::causal() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return model_ && model_->model->causal();
}

std::shared_ptr<const OpenedModel> Session::opened() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return model_;
}

std::shared_ptr<const Tokenizer> Session::tokenizer() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return tokenizer_;
}

//-----------------------------------------------------------------------------
// [SECTION] Requests and the worker
//-----------------------------------------------------------------------------

long long Session::request(SessionRequest r) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!model_) return 0;
    next_ = Job{++serial_, std::move(r), model_, tokenizer_};
    jobs_.post();
    start_worker();
    changed_.notify_all();
    return serial_;
}

void Session::cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.cancel();
    changed_.notify_all();
}

std::shared_ptr<const Snapshot> Session::snapshot() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return snapshot_;
}

FastDifference Session::fast_difference() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return fast_difference_;
}

// With mutex_ held: the exact run of the fast snapshot's request, as a task after it.
void Session::measure_fast(std::shared_ptr<const Snapshot> fast) {
    tasks_.push_back({[this, fast](const OpenedModel& m, const Tokenizer& tok, const std::atomic<bool>& cancel) {
                          Snapshot exact;
                          exact.ids = fast->ids;
                          ForwardOptions fo;
                          fast->request.knock_out(fo);
                          fo.cancel = &cancel;
                          fo.logits = Logits::none;
                          try {
                              exact.result = m.model->forward(exact.ids, fo);
                              predict(exact, *m.model, tok);
                          } catch (const std::exception&) {
                              return; // closed while it ran: no figure
                          }
                          const FastDifference d = difference(*fast, exact);
                          std::lock_guard<std::mutex> lock(mutex_);
                          fast_difference_ = d;
                      },
                      model_, tokenizer_});
}

Session::Progress Session::progress() const {
    std::lock_guard<std::mutex> lock(mutex_);
    Progress p;
    p.running = jobs_.busy();
    p.layers_done = layers_done_.load();
    p.layers = layers_.load();
    p.seconds = p.running ? now_seconds() - started_ : 0.0;
    p.serial = jobs_.pending ? next_.serial : running_serial_;
    p.cancelled = jobs_.cancelled;
    return p;
}

bool Session::wait_idle(double seconds) const {
    std::unique_lock<std::mutex> lock(mutex_);
    return changed_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return !jobs_.busy() && tasks_.empty() && !task_running_; });
}

bool Session::post(Task task) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!model_) return false;
    tasks_.push_back({std::move(task), model_, tokenizer_});
    start_worker();
    changed_.notify_all();
    return true;
}

void Session::run_task(std::unique_lock<std::mutex>& lock) {
    Posted p = std::move(tasks_.front());
    tasks_.pop_front();
    task_running_ = true;
    task_cancel_.store(false);
    lock.unlock();
    p.task(*p.model, *p.tokenizer, task_cancel_); // a task catches its own errors
    p = Posted();                                 // the model and tokenizer go with it, outside the lock
    lock.lock();
    task_running_ = false;
    changed_.notify_all();
    wake(); // the task published its result: the window draws it
}

// Under mutex_. The worker's thread comes from core::background, as every worker's does; the
// destructor waits for it to end. An exception escaping it ends the program, as it would a
// std::thread's.
void Session::start_worker() {
    if (worker_started_) return;
    core::background::start([this]() noexcept {
        std::unique_lock<std::mutex> lock(mutex_);
        run(lock);
        worker_ended_ = true;
        changed_.notify_all();
    });
    worker_started_ = true;
}

void Session::run(std::unique_lock<std::mutex>& lock) {
    for (;;) {
        changed_.wait(lock, [this] { return jobs_.pending || !tasks_.empty() || stopping_; });
        if (stopping_) return;
        if (!jobs_.pending) {
            run_task(lock);
            continue;
        }
        Job job = std::move(next_);
        jobs_.take();
        running_serial_ = job.serial;
        started_ = now_seconds();
        layers_done_.store(0);
        layers_.store(job.model->model->config().layers);
        lock.unlock();
        std::shared_ptr<Snapshot> made;
        try {
            made = compute(job);
        } catch (const Cancelled&) {
        }
        lock.lock();
        jobs_.running = false;
        // Published unless cancelled, or superseded by a newer request or another model.
        if (made && !jobs_.pending && !jobs_.cancelled && model_ == job.model) {
            if (made->fast && made->t() > 0) measure_fast(made);
            snapshot_ = std::move(made);
        }
        changed_.notify_all();
        wake();
    }
}

//-----------------------------------------------------------------------------
// [SECTION] One run
//-----------------------------------------------------------------------------

std::shared_ptr<Snapshot> Session::compute(const Job& job) {
    auto s = std::make_shared<Snapshot>();
    s->serial = job.serial;
    s->model = job.model->name;
    s->request = job.request;
    const Model& model = *job.model->model;
    const Tokenizer& tok = *job.tokenizer;
    const double t0 = now_seconds();
    try {
        if (!job.request.ids.empty()) {
            s->ids = job.request.ids;
        } else {
            const Encoding e = encode_prompt(job.request.text, tok, model.config());
            s->ids = e.ids;
            s->special = e.special;
        }
        if (s->ids.empty()) return s; // nothing to run: an empty prompt
        model.check_ids(s->ids, 0);
        ForwardOptions fo;
        job.request.knock_out(fo);
        fo.capture_qkv = job.request.capture_qkv;
        fo.fast_products = s->fast = job.request.fast_products && fast::available();
        const int t = static_cast<int>(s->ids.size());
        fo.rollout = t <= rollout_most; // kept layer by layer as the forward runs
        const core::heads::ScoreIndex index = core::heads::score_index(s->ids);
        if (job.request.score_ids.empty()) fo.scores = &index;
        fo.thumbnail_side = std::min(t, thumbnail_most);
        fo.cancel = &jobs_.stop;
        fo.logits = Logits::none; // the predictions stream the LM head (core/model/next_token.h)
        fo.progress = [this](int done, int) {
            layers_done_.store(done);
            wake(); // the progress bar moves a layer on
        };
        s->result = model.forward(s->ids, fo);
    } catch (const Cancelled&) {
        throw;
    } catch (const std::exception& e) {
        s->error = core::error_text(e);
        s->ids.clear();
        s->special.clear();
        return s;
    }
    const int t = s->t();
    s->special.resize(static_cast<std::size_t>(t), false);
    for (int i = 0; i < t; ++i) {
        const int id = s->ids[static_cast<std::size_t>(i)];
        s->tokens.push_back(tok.vocab_size() ? tok.token_string(id) : std::to_string(id));
        s->labels.push_back(tok.vocab_size() ? tok.token_display(id) : std::to_string(id));
        if (tok.vocab_size() && tok.is_special(id)) s->special[static_cast<std::size_t>(i)] = true;
    }
    predict(*s, model, tok);
    if (job.request.knocks_out()) predict_intact(*s, model, tok, jobs_.stop);
    score(*s, model, job.request, jobs_.stop);
    s->rollout = std::move(s->result.rollout);
    s->seconds = now_seconds() - t0;
    return s;
}

} // namespace core::model
