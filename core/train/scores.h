// core/train/scores.h — what each head does, measured on held-out sequences.
//
// previous:  mean attention from position i to i-1 (i ≥ 1).
// induction: on repeat sequences, mean attention from a position in the repeat to the position just
//            after the earlier occurrence of its token (i → i - r + 1).
// copy:      on repeat sequences, mean attention mass from a position in the repeat onto the first
//            occurrence of the segment [o, o + r).
// entropy:   mean over rows of −Σ_j A[i, j] ln A[i, j], nats.
// The record is the one the real models' heads fill (core/heads/scores.h); no duplicate score here.
#pragma once

#include "core/heads/scores.h"
#include "core/train/model.h"

#include <vector>

namespace core::train {

using core::heads::HeadScores;

// Layer-major (L · H). `task_ws` after a forward pass over sequences of `task_batch` (any task), `repeat_ws` after one over
// `repeat_batch` (made by the repeat task). Both workspaces cover their whole batch.
std::vector<HeadScores> head_scores(const ModelConfig& m, const Workspace& task_ws, const Workspace& repeat_ws, const Batch& repeat_batch);

} // namespace core::train
