// core/train/tasks.h — the built-in, seeded training tasks.
//
// repeat:   random tokens with a segment of random length r at a random offset, repeated right after
//           itself; only the next tokens the repeat makes predictable are scored.
// previous: random tokens; the target at each position is the token before it.
// sort:     digits, a separator, the same digits sorted; only the sorted part is scored.
#pragma once

#include "core/train/config.h"
#include "core/train/rng.h"

#include <vector>

namespace core::train {

struct Batch {
    int B = 0, t = 0;                 // B sequences of t tokens
    std::vector<int> tokens;          // (B, t)
    std::vector<int> targets;         // (B, t): the wanted output at each position, -1 where not scored
    // repeat only (else -1): where the segment starts and its length, per sequence
    std::vector<int> offset, length;  // (B)
    int scored() const;               // positions with a target
};

// repeat_min_length, repeat_max_length and sort_length are in core/train/config.h, which checks them.

// B sequences of the model's context length for `task`, drawn from `rng`.
Batch make_batch(Task task, const ModelConfig& m, int B, Rng& rng);

} // namespace core::train
