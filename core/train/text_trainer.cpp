// core/train/text_trainer.cpp — the text task (see core/train/text_trainer.h).
//
// [SECTION] configuration and corpus
// [SECTION] chunks of a batch on the cores
// [SECTION] a step: gradient, clipping, AdamW
// [SECTION] head scores
// [SECTION] evaluation
#include "core/train/text_trainer.h"

#include "core/parallel.h"
#include "core/train/config.h" // ConfigError
#include "core/train/optim.h"  // learning_rate

#include <algorithm>
#include <cmath>
#include <mutex>

namespace core::train {

// [SECTION] configuration and corpus -------------------------------------------------------------

std::string validate(const TextTrainConfig& c) {
    auto range = [](const char* name, double v, double lo, double hi) -> std::string {
        if (v >= lo && v <= hi) return {};
        return std::string(name) + " = " + std::to_string(v) + " is outside " + std::to_string(lo) + " … " + std::to_string(hi);
    };
    for (const std::string& e : {range("merges", c.merges, 0, 60000), range("steps", c.steps, 1, 10000000), range("batch", c.batch, 1, 4096),
                                 range("warmup", c.warmup, 0, c.steps), range("lr", c.lr, 1e-6, 1.0),
                                 range("weight decay", c.weight_decay, 0.0, 1.0), range("held-out share", c.held_out, 0.001, 0.5),
                                 range("repeated share", c.repeat_share, 0.0, 1.0), range("mirrored share", c.mirror_share, 0.0, 1.0),
                                 range("repeated and mirrored shares", c.repeat_share + c.mirror_share, 0.0, 1.0)})
        if (!e.empty()) return e;
    Gpt2Config m = c.model;
    m.vocab = 257 + c.merges; // the most the BPE can have
    return validate(m);
}

TextCorpus make_text_corpus(const std::string& text, int merges, double held_out) {
    check_utf8(text); // before the cut, so that an offset counts from the start of the file
    std::size_t cut = static_cast<std::size_t>(static_cast<double>(text.size()) * (1.0 - held_out));
    const std::size_t line = text.rfind('\n', cut);
    if (line != std::string::npos && line > 0) cut = line + 1;
    TextCorpus c{text.substr(0, cut), text.substr(cut), Bpe::learn(text.substr(0, cut), merges), {}, {}};
    c.train_ids = c.bpe.encode(c.train_text);
    c.held_out_ids = c.bpe.encode(c.held_out_text);
    return c;
}

// [SECTION] chunks of a batch on the cores -------------------------------------------------------

namespace {
constexpr int chunk_sequences = 4; // sequences per chunk: several chunks per core balance a busy machine
}

// One set of activations per thread that may run a chunk, taken and given back under a lock.
struct TextTrainer::Pool {
    std::mutex mutex;
    std::vector<std::unique_ptr<Gpt2Activations<float>>> free;
    std::vector<Buffer<float>> chunk_grads;

    std::unique_ptr<Gpt2Activations<float>> take() {
        std::lock_guard<std::mutex> lock(mutex);
        if (free.empty()) return std::make_unique<Gpt2Activations<float>>();
        auto a = std::move(free.back());
        free.pop_back();
        return a;
    }
    void give(std::unique_ptr<Gpt2Activations<float>> a) {
        std::lock_guard<std::mutex> lock(mutex);
        free.push_back(std::move(a));
    }
};

TextTrainer::TextTrainer(const TextTrainConfig& config, TextCorpus corpus)
    : config_(config), corpus_(std::move(corpus)), layout_([&] {
          if (std::string e = validate(config); !e.empty()) throw ConfigError(e);
          Gpt2Config m = config.model;
          m.vocab = corpus_.bpe.vocab_size();
          return m;
      }()),
      pool_(std::make_unique<Pool>()), windows_(config.seed) {
    const std::size_t need = static_cast<std::size_t>(config.model.n_ctx) + 1;
    if (corpus_.train_ids.size() < need || corpus_.held_out_ids.size() < need)
        throw ConfigError("the corpus is too short: the training part has " + std::to_string(corpus_.train_ids.size()) +
                          " tokens and the held-out part " + std::to_string(corpus_.held_out_ids.size()) + "; each needs at least n_ctx + 1 = " +
                          std::to_string(need));
    const std::vector<float> initial = gpt2_initial_params<float>(layout_, config.seed ^ 0x5EEDull);
    params_.assign(initial.begin(), initial.end());
    grad_.assign(layout_.total, 0.0f);
    m_.assign(layout_.total, 0.0f);
    v_.assign(layout_.total, 0.0f);
}

TextTrainer::~TextTrainer() = default;

void TextTrainer::start_from(const std::vector<float>& params) {
    if (params.size() != layout_.total)
        throw ConfigError("the starting model has " + std::to_string(params.size()) + " parameters, this one " + std::to_string(layout_.total));
    params_.assign(params.begin(), params.end());
    std::fill(m_.begin(), m_.end(), 0.0f);
    std::fill(v_.begin(), v_.end(), 0.0f);
    steps_done_ = 0;
}

// Forward (and with `grad`, backward) over B sequences; the summed loss. grad gets d(mean loss)/dθ.
double TextTrainer::loss_sum(const std::vector<int>& inputs, const std::vector<int>& targets, int B, Buffer<float>* grad) {
    const int T = layout_.config.n_ctx;
    const int chunks = (B + chunk_sequences - 1) / chunk_sequences;
    std::vector<double> sums(static_cast<std::size_t>(chunks), 0.0);
    if (grad) pool_->chunk_grads.resize(static_cast<std::size_t>(chunks));
    const float scale = 1.0f / static_cast<float>(static_cast<long>(B) * T);
    struct Job {
        TextTrainer* self;
        const std::vector<int>* inputs;
        const std::vector<int>* targets;
        int B, T;
        bool backward;
        float scale;
        std::vector<double>* sums;
    } job{this, &inputs, &targets, B, T, grad != nullptr, scale, &sums};
    parallel::for_each(chunks, [](void* context, std::ptrdiff_t k) {
        Job& j = *static_cast<Job*>(context);
        TextTrainer& t = *j.self;
        const int first = static_cast<int>(k) * chunk_sequences, count = std::min(chunk_sequences, j.B - first);
        const std::size_t at = static_cast<std::size_t>(first) * static_cast<std::size_t>(j.T);
        auto acts = t.pool_->take();
        const gpt2_ops::Set<float>& ops = gpt2_ops::best_f32();
        (*j.sums)[static_cast<std::size_t>(k)] = gpt2_forward(t.layout_, t.params_.data(), j.inputs->data() + at, j.targets->data() + at, count, j.T, *acts, ops);
        if (j.backward) {
            Buffer<float>& g = t.pool_->chunk_grads[static_cast<std::size_t>(k)];
            g.assign(t.layout_.total, 0.0f);
            gpt2_backward(t.layout_, t.params_.data(), g.data(), j.inputs->data() + at, j.targets->data() + at, *acts, j.scale, ops);
        }
        t.pool_->give(std::move(acts));
    }, &job);
    if (grad) {
        std::fill(grad->begin(), grad->end(), 0.0f);
        for (const Buffer<float>& g : pool_->chunk_grads)
            for (std::size_t i = 0; i < g.size(); ++i) (*grad)[i] += g[i];
    }
    double total = 0.0;
    for (double s : sums) total += s;
    return total;
}

// [SECTION] a step: gradient, clipping, AdamW ----------------------------------------------------

void draw_window(Rng& rng, const std::vector<int>& ids, int T, WindowMix mix, int* window) {
    const double u = mix.repeat > 0 || mix.mirror > 0 ? rng.uniform() : 1.0;
    const bool repeat = u < mix.repeat, mirror = !repeat && u < mix.repeat + mix.mirror;
    const int r = repeat ? rng.between(std::max(1, T / 8), std::max(1, T / 2)) : T + 1;
    const int start = rng.between(0, static_cast<int>(ids.size()) - T - 1);
    const int half = T / 2; // a mirrored window turns back after token `half`
    for (int k = 0; k <= T; ++k) {
        const int at = mirror && k > half ? 2 * half - k : k % r;
        window[k] = ids[static_cast<std::size_t>(start + std::max(0, at))];
    }
}

TextStep TextTrainer::step() {
    const int B = config_.batch, T = layout_.config.n_ctx;
    std::vector<int> inputs(static_cast<std::size_t>(B) * T), targets(inputs.size()), window(static_cast<std::size_t>(T) + 1);
    for (int b = 0; b < B; ++b) {
        draw_window(windows_, corpus_.train_ids, T, {config_.repeat_share, config_.mirror_share}, window.data());
        for (int i = 0; i < T; ++i) {
            inputs[static_cast<std::size_t>(b * T + i)] = window[static_cast<std::size_t>(i)];
            targets[static_cast<std::size_t>(b * T + i)] = window[static_cast<std::size_t>(i) + 1];
        }
    }
    TextStep r;
    r.loss = loss_sum(inputs, targets, B, &grad_) / (static_cast<double>(B) * T);
    double norm2 = 0.0;
    for (float g : grad_) norm2 += static_cast<double>(g) * g;
    r.grad_norm = std::sqrt(norm2);
    const float clip = r.grad_norm > 1.0 ? static_cast<float>(1.0 / r.grad_norm) : 1.0f;
    r.lr = learning_rate(config_.lr, steps_done_, config_.warmup, config_.steps);
    // AdamW, β = (0.9, 0.95), ε = 1e-8; decoupled decay on the matrices only.
    ++steps_done_;
    const double b1 = 0.9, b2 = 0.95;
    const float c1 = static_cast<float>(1.0 - std::pow(b1, steps_done_)), c2 = static_cast<float>(1.0 - std::pow(b2, steps_done_));
    const float lr = static_cast<float>(r.lr);
    for (const Gpt2Tensor& t : layout_.tensors) {
        const float wd = t.decay ? static_cast<float>(config_.weight_decay) : 0.0f;
        for (std::size_t i = t.offset; i < t.offset + t.size; ++i) {
            const float g = grad_[i] * clip;
            m_[i] = static_cast<float>(b1) * m_[i] + static_cast<float>(1.0 - b1) * g;
            v_[i] = static_cast<float>(b2) * v_[i] + static_cast<float>(1.0 - b2) * g * g;
            params_[i] -= lr * ((m_[i] / c1) / (std::sqrt(v_[i] / c2) + 1e-8f) + wd * params_[i]);
        }
    }
    return r;
}

// [SECTION] head scores --------------------------------------------------------------------------

std::vector<core::heads::HeadScores> text_head_scores(const Gpt2Config& c, const Gpt2Activations<float>& acts, const int* tokens) {
    const int B = acts.B, T = acts.T_;
    std::vector<core::heads::HeadScores> out;
    for (int l = 0; l < c.n_layer; ++l)
        for (int h = 0; h < c.n_head; ++h) {
            double prev = 0, dup = 0, ind = 0, entropy = 0;
            long prev_n = 0, dup_n = 0, ind_n = 0;
            for (int b = 0; b < B; ++b) {
                const float* A = acts.attention(l, b, h); // (T, T)
                const int* tok = tokens + static_cast<std::size_t>(b) * T;
                entropy += core::heads::mean_entropy(Eigen::Map<const core::heads::MatrixF>(A, T, T));
                for (int i = 1; i < T; ++i) {
                    const float* row = A + static_cast<std::size_t>(i) * T;
                    prev += row[i - 1];
                    ++prev_n;
                    double d = 0, n = 0;
                    bool seen = false, seen_before = false;
                    for (int j = 0; j < i; ++j) {
                        if (tok[j] != tok[i]) continue;
                        seen = true;
                        d += row[j];
                        if (j + 1 < i) { seen_before = true; n += row[j + 1]; }
                    }
                    if (seen) { dup += d; ++dup_n; }
                    if (seen_before) { ind += n; ++ind_n; }
                }
            }
            core::heads::HeadScores s;
            if (prev_n) s.previous = prev / static_cast<double>(prev_n);
            if (dup_n) s.duplicate = dup / static_cast<double>(dup_n);
            if (ind_n) s.induction = ind / static_cast<double>(ind_n);
            s.entropy = B ? entropy / B : 0.0;
            out.push_back(s);
        }
    return out;
}

// [SECTION] evaluation ---------------------------------------------------------------------------

namespace {

constexpr int head_windows = 8;
constexpr std::uint64_t repeat_stream = 0xC0FFEE1234ull;

// Random tokens of the training text (each once at least), the first half repeated as the second.
std::vector<int> repeated_random(const TextCorpus& corpus, int B, int T, std::uint64_t seed) {
    std::vector<char> seen(static_cast<std::size_t>(corpus.bpe.vocab_size()), 0);
    for (int id : corpus.train_ids) seen[static_cast<std::size_t>(id)] = 1;
    std::vector<int> pool;
    for (std::size_t i = 0; i < seen.size(); ++i)
        if (seen[i]) pool.push_back(static_cast<int>(i));
    Rng rng(seed);
    std::vector<int> out(static_cast<std::size_t>(B) * T);
    const int r = T / 2;
    for (int b = 0; b < B; ++b)
        for (int i = 0; i < T; ++i)
            out[static_cast<std::size_t>(b * T + i)] = i < r ? pool[static_cast<std::size_t>(rng.between(0, static_cast<int>(pool.size()) - 1))]
                                                             : out[static_cast<std::size_t>(b * T + i - r)];
    return out;
}

} // namespace

TextEvaluation TextTrainer::evaluate(int max_windows) {
    const int T = layout_.config.n_ctx, V = layout_.config.vocab;
    const std::vector<int>& ids = corpus_.held_out_ids;
    int windows = static_cast<int>((ids.size() - 1) / static_cast<std::size_t>(T));
    if (max_windows > 0) windows = std::min(windows, max_windows);
    std::vector<int> inputs(static_cast<std::size_t>(windows) * T), targets(inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        inputs[i] = ids[i];
        targets[i] = ids[i + 1];
    }
    TextEvaluation e;
    e.tokens = static_cast<int>(targets.size());
    e.loss = loss_sum(inputs, targets, windows, nullptr) / e.tokens;
    // the unigram baseline and the bytes the targets stand for
    std::vector<double> count(static_cast<std::size_t>(V), 1.0);
    for (int id : corpus_.train_ids) count[static_cast<std::size_t>(id)] += 1.0;
    const double total = static_cast<double>(corpus_.train_ids.size()) + V;
    double unigram = 0.0, bytes = 0.0;
    for (int t : targets) {
        unigram -= std::log(count[static_cast<std::size_t>(t)] / total);
        bytes += static_cast<double>(corpus_.bpe.decode({t}).size());
    }
    e.unigram_loss = unigram / e.tokens;
    e.bits_per_byte = e.loss * e.tokens / (std::log(2.0) * bytes);
    e.unigram_bits_per_byte = unigram / (std::log(2.0) * bytes);
    // heads on a few held-out windows, and on repeated random tokens
    const gpt2_ops::Set<float>& ops = gpt2_ops::best_f32();
    Gpt2Activations<float> acts;
    const int hw = std::min(head_windows, windows);
    gpt2_forward(layout_, params_.data(), inputs.data(), targets.data(), hw, T, acts, ops);
    e.text_heads = text_head_scores(layout_.config, acts, inputs.data());
    const std::vector<int> rep = repeated_random(corpus_, head_windows, T, config_.seed ^ repeat_stream);
    std::vector<int> rep_targets(rep.size(), -1);
    for (int b = 0; b < head_windows; ++b)
        for (int i = 0; i + 1 < T; ++i) rep_targets[static_cast<std::size_t>(b * T + i)] = rep[static_cast<std::size_t>(b * T + i + 1)];
    gpt2_forward(layout_, params_.data(), rep.data(), rep_targets.data(), head_windows, T, acts, ops);
    e.repeat_heads = text_head_scores(layout_.config, acts, rep.data());
    double first = 0, second = 0;
    const int r = T / 2;
    for (int b = 0; b < head_windows; ++b)
        for (int i = 0; i + 1 < T; ++i) {
            const double loss = acts.losses[static_cast<std::size_t>(b * T + i)];
            if (i < r - 1) first += loss; // predicts a random token of the first copy
            if (i >= r) second += loss;   // predicts a token the first copy shows
        }
    e.repeat_first_loss = first / (head_windows * (r - 1));
    e.repeat_second_loss = second / (head_windows * (T - 1 - r));
    return e;
}

} // namespace core::train
