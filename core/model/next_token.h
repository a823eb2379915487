// core/model/next_token.h — what a model predicts, read from a forward's hidden states without its
// (t, vocab) logits: the most likely next tokens at chosen positions (the [MASK]s' for BERT) and a
// causal LM's loss on the prompt.
//
// The LM head runs over the vocabulary one block of Model::head_block ids at a time, the blocks
// shared between the cores; each block keeps per row its largest logit, its Σ exp and its top
// candidates, and the blocks are merged per row. At most (t, head_block) logits per core exist at
// once, and every logit has the bits of ForwardResult::logits.
#pragma once

#include "core/model/forward.h"

#include <optional>
#include <vector>

namespace core::model {

struct TopToken {
    int id = 0;
    double probability = 0.0; // after the softmax over the whole vocabulary
};

struct NextTokens {
    // (rows) per row asked for, its `top` most likely ids, most likely first (the lower id on a
    // tie); empty for a row not asked for.
    std::vector<std::vector<TopToken>> top;
    // A causal LM's mean next-token cross-entropy over the sequence (nats): the mean over
    // i < t − 1 of −log softmax(logits_i)[ids[i + 1]]. Empty for t < 2 or a bidirectional model.
    std::optional<double> loss;
};

// One LM head block's best: the `top` largest of the n logits of ids v0 …, best first (the lower id
// on a tie), into out; returns how many (min(top, n)).
struct Candidate {
    float logit;
    int id;
};
int keep_top(const float* row, int v0, int n, int top, Candidate* out);

// hidden: (t, d_model), a forward's ForwardResult::hidden for `ids` (Logits::none suffices).
// `rows` (t) marks the rows whose top is wanted; empty means every row. Throws InputError for a
// model without an LM head or a shape that does not match the ids. `fast`: the head's products in
// the fast arithmetic (ForwardOptions::fast_products).
NextTokens next_tokens(const Model& model, const MatrixF& hidden, const std::vector<int>& ids, int top,
                       const std::vector<bool>& rows = {}, bool fast = false);

// hidden: (copies · t, d_model), `copies` runs of the same t ids stacked (say, each with other heads
// ablated): each copy's loss as next_tokens gives it. Empty for t < 2.
std::vector<double> prompt_losses(const Model& model, const MatrixF& hidden, const std::vector<int>& ids);

} // namespace core::model
