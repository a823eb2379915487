// core/train/text_trainer.h — next-token prediction on a corpus file with a GPT-2 (core/train/gpt2.h)
// over a byte-level BPE learned from the same corpus (core/train/bpe.h).
//
// The corpus is cut once: the last part (at a line break) is held out, the BPE and the model see
// only the rest. Each step draws B windows of T + 1 tokens at seeded random places; a share of them
// (repeat_share) is a passage of T/8 … T/2 tokens repeated to fill the window, so that copying an
// earlier word is worth learning; another share (mirror_share) is a passage followed by itself
// backwards, so that finding the earlier copy of the current word itself (and reading the word before
// it) is worth learning. The batch is cut
// into chunks that core::parallel shares between the cores, each chunk's gradient in its own buffer,
// summed in chunk order, so a seed gives the same run on any number of threads.
#pragma once

#include "core/heads/scores.h"
#include "core/train/bpe.h"
#include "core/train/gpt2.h"
#include "core/train/gpt2_file.h"
#include "core/train/rng.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace core::train {

struct TextTrainConfig {
    Gpt2Config model;   // vocab comes from the BPE
    int merges = 1000;
    int steps = 1000;   // the cosine ends here
    int warmup = 100;
    int batch = 32;     // windows per step
    double lr = 3e-3;
    double weight_decay = 0.1; // on the matrices
    double held_out = 0.05;    // the share of the corpus held out, from its end
    double repeat_share = 0;   // the share of windows that are a short passage repeated
    double mirror_share = 0;   // the share that are a passage followed by itself backwards
    std::uint64_t seed = 1;
};

// Empty when the run can start, else the first problem.
std::string validate(const TextTrainConfig& c);

struct TextCorpus {
    std::string train_text, held_out_text;
    Bpe bpe;
    std::vector<int> train_ids, held_out_ids;
};

// The kinds of training window and their shares (the rest is plain text).
struct WindowMix {
    double repeat = 0, mirror = 0; // repeat + mirror <= 1
};

// One training window of T + 1 tokens of `ids` (at least T + 1 of them) into `window`: T + 1 tokens from
// a random place; or with probability `mix.repeat` a passage of r = T/8 … T/2 tokens from a random
// place repeated to fill the window (token k is the passage's k mod r); or with probability
// `mix.mirror` a passage of T/2 + 1 tokens from a random place followed by itself backwards, its last
// token not doubled (from k = T/2 + 1 on, token k is the passage's 2·(T/2) − k, at least 0).
// With no repeat or mirror share it draws one number from `rng`.
void draw_window(Rng& rng, const std::vector<int>& ids, int T, WindowMix mix, int* window);

// Cuts `text` at the last line break before (1 - held_out) of its bytes (or exactly there when it
// has none), learns `merges` merges from the first part and encodes both. Throws BpeError naming
// the byte offset of invalid UTF-8 in `text`.
TextCorpus make_text_corpus(const std::string& text, int merges, double held_out);

// What each head does on windows of text, in the record the real models' heads fill
// (core/heads/scores.h), layer-major (n_layer · n_head), pooled over the windows' rows:
//   previous:  mean weight of position i on i - 1;
//   duplicate: over the rows whose token occurred before, the mean weight on those earlier copies;
//   induction: over the rows whose token occurred before (not just before), the mean weight on the
//              tokens right after those earlier copies;
//   entropy:   mean over rows of −Σ_j A[i, j] ln A[i, j], nats.
// After a forward pass over `tokens` (acts.B × acts.T_).
std::vector<core::heads::HeadScores> text_head_scores(const Gpt2Config& c, const Gpt2Activations<float>& acts, const int* tokens);

struct TextEvaluation {
    int tokens = 0;            // held-out targets scored
    double loss = 0;           // nats per token on them
    double unigram_loss = 0;   // the same targets under the training text's token frequencies (add-one)
    double bits_per_byte = 0, unigram_bits_per_byte = 0;
    std::vector<core::heads::HeadScores> text_heads;    // on held-out windows
    std::vector<core::heads::HeadScores> repeat_heads;  // on random tokens, repeated once
    double repeat_first_loss = 0, repeat_second_loss = 0; // nats per token on the first copy, the second
};

struct TextStep {
    double loss = 0, lr = 0, grad_norm = 0;
};

class TextTrainer {
public:
    // Throws ConfigError when validate(config) finds a problem or the corpus is too short.
    TextTrainer(const TextTrainConfig& config, TextCorpus corpus);
    ~TextTrainer();

    // Starts from `params` (layout().total values, a saved model of the same config) instead of the
    // seeded initial ones; AdamW's moments, the step count and so the schedule start afresh.
    void start_from(const std::vector<float>& params);
    TextStep step();
    // Held-out loss over at most max_windows windows (0: all); heads on a few of them.
    TextEvaluation evaluate(int max_windows = 0);

    int steps_done() const { return steps_done_; }
    const TextTrainConfig& config() const { return config_; }
    const Gpt2Layout& layout() const { return layout_; }
    const Buffer<float>& params() const { return params_; }
    const TextCorpus& corpus() const { return corpus_; }
    Gpt2Saved saved() const { return {layout_.config, {params_.begin(), params_.end()}, corpus_.bpe.eos_id()}; }

private:
    struct Pool;
    TextTrainConfig config_;
    TextCorpus corpus_;
    Gpt2Layout layout_;
    Buffer<float> params_, grad_, m_, v_;
    std::unique_ptr<Pool> pool_;
    Rng windows_;
    int steps_done_ = 0;
    double loss_sum(const std::vector<int>& inputs, const std::vector<int>& targets, int B, Buffer<float>* grad);
};

} // namespace core::train
