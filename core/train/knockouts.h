// core/train/knockouts.h — what the tiny model does without some of its heads, and what each head
// does on the probe sequence.
//
// Every call is one float32 forward pass of the tiny model over at most 64 × T tokens, cheap enough
// for the panel thread on a click.
#pragma once

#include "core/heads/probe.h"
#include "core/heads/scores.h"
#include "core/train/trainer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core::train {

struct TaskScore {
    double loss = 0.0, accuracy = 0.0; // mean cross-entropy and argmax accuracy on the scored positions
};

// The model on `batch` with `knockouts` applied (an empty list: the intact model), in float32
// (core/train/model_f32.h) as it is trained.
TaskScore evaluate(const Model& model, const Batch& batch, const Knockouts& knockouts = {});

// One row of a knock-out table: "intact", "L1 H4", "all of layer 2", with what remains.
struct KnockoutRow {
    std::string label;
    Knockouts knockouts;
    TaskScore score;
};
// The intact model, each head alone, then each whole layer (layers and heads from 1 in the labels).
std::vector<KnockoutRow> knockout_table(const Model& model, const Batch& batch, core::heads::Ablation mode = core::heads::Ablation::zero);

// The probe of m tokens (core::heads::probe_sequence: no BOS, ids from the whole vocabulary) run
// through the model; its scores per head, layer-major (L·H). 2m must fit the context: 1 ≤ m ≤ T / 2,
// else std::invalid_argument.
std::vector<core::heads::HeadScores> probe_scores(const Model& model, int m, std::uint64_t seed);

} // namespace core::train
