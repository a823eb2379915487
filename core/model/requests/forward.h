// core/model/requests/forward.h — the plainest questions asked of a model on a sequence, for the
// command line (--forward, --export-attention, --generate, --heads, --rollout): a forward, a greedy
// continuation, every head's scores, the attention rollout. The window asks its forwards through
// core::model::Session, which keeps the last run.
#pragma once

#include "core/heads/scores.h"
#include "core/model/forward.h"

#include <vector>

namespace core::model {

// The forward of `ids` on an empty cache with `options` (knock-outs, fast products, what to keep).
ForwardResult run_forward(const Model& model, const std::vector<int>& ids, const ForwardOptions& options = {});

struct GenerateRequest {
    std::vector<int> prompt;
    int count = 0;          // new ids at most
    ForwardOptions options; // knock-outs and fast products; its attention and logits are the decoder's
};
// Greedy decoding (generate_greedy) with the request's knock-outs; where a head is knocked out by
// its mean, generate_recomputing: a head's mean is over the whole sequence so far, which one new
// row of the cache cannot give.
std::vector<int> generate(const Model& model, const GenerateRequest& request);
// Greedy decoding without the cache: each step runs the whole sequence (stops at the context's end
// and after an end-of-text id, as generate_greedy does).
std::vector<int> generate_recomputing(const Model& model, std::vector<int> ids, int count, ForwardOptions options);

// Every head's scores (layers · heads, layer-major) on `ids` (core::heads::score_index).
std::vector<core::heads::HeadScores> head_scores(const Model& model, const std::vector<int>& ids);

// The attention rollout (t, t) of `ids` (core/heads/rollout.h).
MatrixF rollout(const Model& model, const std::vector<int>& ids);

} // namespace core::model
