// ui/panels/train/train_knockouts.h — the Train panel's knock-outs: heads clicked out of the grid, the
// repeat accuracy with and without them, and the facts a lesson reads of them.
#pragma once

#include "core/train/knockouts.h"
#include "core/train/session.h"
#include "ui/view.h"

#include <imgui.h>

#include <vector>

namespace ui {

// The repeat accuracy intact, with the knock-outs and without each score's best head, and what it
// was measured on, so that it is measured again only when one of those changes.
struct KnockoutMeasure {
    int step = -1, checkpoint = -2; // checkpoint -1: the live model
    std::vector<core::heads::HeadRef> heads;
    core::heads::Ablation ablation = core::heads::Ablation::zero;
    core::train::TaskScore intact, without;
    core::train::TaskScore without_previous, without_induction;
};

// The run the grid shows: its session, what was copied of it this frame, and the checkpoint the
// grid shows when paused (-1: the live model). While training runs the latest checkpoint is read.
struct KnockoutSource {
    core::train::TrainSession& session;
    const core::train::SessionView& shown;
    int checkpoint;
};

bool knocked(const core::heads::Knockouts& k, int layer, int head);
void toggle_knockout(core::heads::Knockouts& k, int layer, int head);

// Whether an open prediction reads what the knock-outs measure: then the panel keeps its numbers back.
bool facts_hidden(const View& v);

// Above the grid: the repeat accuracy live, the knock-out mode and a button that restores every
// head; measures when needed and publishes the facts (core::learn::fact_names) in `v`.
void knockout_line(core::heads::Knockouts& k, KnockoutMeasure& m, const KnockoutSource& src, View& v);

// A knocked-out head's pattern, crossed out.
void cross_out(ImVec2 a, ImVec2 b);

} // namespace ui
