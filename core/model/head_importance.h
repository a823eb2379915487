// core/model/head_importance.h — each head's importance to the loss on a prompt: the model run again
// with that head knocked out. The analysis that needs no model lives in core/heads/.
#pragma once

#include "core/heads/scores.h"
#include "core/model/forward.h"

#include <atomic>
#include <functional>
#include <string>
#include <vector>

namespace core::model {

struct HeadImportance {
    double loss = 0.0;  // the intact model's prompt_loss
    core::Matrix delta; // (layers, heads): the loss with that head alone zeroed, minus `loss`
};

// What the knock-out measures (head_importance, expert_importance) start from: the intact forward of
// a causal LM on `ids` with the stream entering each layer kept, and its loss on them. `options` is
// left ready for the reruns: no attention, no logits, `cancel`, resuming from a kept layer.
struct IntactRun {
    ForwardOptions options;
    std::vector<MatrixF> residuals; // (layers) × (t, d_model): the intact stream entering each layer
    ForwardResult result;
    double loss = 0.0;              // prompt_loss of the intact run
};
// Throws InputError naming `measure` ("expert importance") for a model that does not predict the
// next token, or for fewer than 2 ids.
IntactRun intact_run(const Model& model, const std::vector<int>& ids, const std::string& measure, const std::atomic<bool>* cancel);
// Reruns of `run` from layer l: options resume on its kept stream.
void resume_at(IntactRun& run, int l);

// Every head of a causal LM zeroed in turn (before its output projection). The stream entering each
// layer is kept from the intact run, so each rerun starts at the ablated head's layer, and a layer's
// heads rerun together as copies of the sequence (ForwardOptions::copies); the losses stream over the
// vocabulary (core/model/next_token.h). Equal to one full forward per head up to float32 rounding
// (the products group the batch's rows otherwise). Calls progress(done, layers · heads) after each
// head, on the caller's thread; `cancel` stops it with Cancelled. Throws InputError for a model that does not predict the next token, or fewer than 2 ids.
HeadImportance head_importance(const Model& model, const std::vector<int>& ids, const std::atomic<bool>* cancel = nullptr,
                               const std::function<void(int done, int total)>& progress = {});

// Every head's scores from a forward with its attention, each row's entropy taken from the softmax
// that made it (ForwardResult::entropy) instead of a pass of logarithms over the (layers, heads, t, t)
// maps: core::heads::all_head_scores on the forward's result.
std::vector<core::heads::HeadScores> all_head_scores(const ForwardResult& r, const core::heads::ScoreIndex& index);

} // namespace core::model
