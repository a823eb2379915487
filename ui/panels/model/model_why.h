// ui/panels/model/model_why.h — why a head attends where it does, on the live model: the QK attribution of
// the head map's clicked cell (the score of query i against key j as a sum over pairs of the stream's
// components, core/model/circuits/qk.h) and the composition scores between every pair of heads
// (core/model/circuits/composition.h) as a map, with the selected head's strongest writers and
// readers. Both run on a core::Worker; a newer request drops the older one. On a linear head
// (Gated DeltaNet) the clicked entry of M is split instead into the direct write of the key's value,
// decayed to the query, and the correction from the later writes that erased part of it
// (core/model/delta_rule.h, delta_rule::split), worked out on a core::Worker too.
#pragma once

#include "core/model/circuits/composition.h"
#include "core/model/delta_rule.h"
#include "core/model/requests/qk.h"
#include "core/worker.h"
#include "ui/view.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ui {

// The finished job's result (nothing while it runs, or when it failed: then `error` says why; a
// cancelled job says nothing).
template <class R>
std::optional<R> take_finished(core::Worker<R>& job, std::string& error) {
    std::optional<typename core::Worker<R>::Outcome> out = job.take();
    if (!out) return std::nullopt;
    error = out->error;
    return std::move(out->result);
}

struct QkCell {
    long long serial = -1; // the snapshot's
    int layer = -1, head = -1, query = -1, key = -1;
    bool operator==(const QkCell& o) const { return serial == o.serial && layer == o.layer && head == o.head && query == o.query && key == o.key; }
};

struct QkShown {
    QkCell cell;
    bool visible = true; // the head lets the query see the key
    core::model::QkAttribution attribution;
};

// A linear head's clicked entry split (nothing where the head has no value head of its own).
struct LinearSplitShown {
    QkCell cell;
    std::optional<core::model::delta_rule::Split> split;
};

struct ModelWhyView {
    QkCell asked;
    core::Worker<QkShown> qk;
    QkCell split_asked;
    core::Worker<LinearSplitShown> split_job;
    std::optional<LinearSplitShown> split; // the last finished split (the tests read its numbers)
    std::optional<QkShown> shown;
    std::vector<std::string> top; // the shown attribution's largest pairs in words (recorded for the tests)
    std::optional<float> sink_logit; // this frame: the head's learned sink logit, shown beside the score
    int kind = 1;                 // 0 Q-, 1 K-, 2 V-composition
    const void* composed_for = nullptr; // the opened model the scores are of
    int composed_kind = -1;
    core::Worker<core::model::CompositionScores> composition;
    std::optional<core::model::CompositionScores> scores;
    // The selected head's strongest writers (into it) and readers (of it): "head 1.2  0.31".
    std::vector<std::string> writers, readers;
    std::string error;
};

void draw_model_why_panel(View& v);

} // namespace ui
