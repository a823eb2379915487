// ui/panels/model/model_state.h — the recurrent state of a linear head (Gated DeltaNet, Qwen3.5 and
// Qwen3-Next): the d_k × d_v matrix S the selected head holds after the selected position, as a
// diverging heat map centred at 0 with its legend, and a step control (◂ ▸, a slider, the left and
// right keys while the panel has focus) that moves the selected position through the prompt. The
// state is worked out on the model session's worker (core::model::AttentionMaps::linear_state, the
// recurrence from position 1 on the run's kept q, k, v, β and g: while the panel is open the runs keep
// the linear layers' values, as the query–key view's capture does); a softmax head says it keeps none.
// After the Steps panel generated on the prompt's cache (ModelService::continued), it steps through
// the generated run instead: the prompt's positions, which came from the cache, and each new token.
#pragma once

#include "core/heads/head.h"
#include "ui/view.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace ui {

struct StateAsked {
    long long serial = -1; // the snapshot's (a generation's: the snapshot it continues)
    int length = 0;        // the positions of the run shown: the snapshot's, or the generation's so far
    int layer = -1, head = -1, position = -1;
    bool operator==(const StateAsked& o) const {
        return serial == o.serial && length == o.length && layer == o.layer && head == o.head && position == o.position;
    }
};

// What the worker publishes: the state asked for, or nothing (a head past the layer's value heads).
struct StatePublished {
    StateAsked of;
    std::optional<core::heads::MatrixF> state; // (d_k, d_v)
    std::string error;
};

struct StateShared {
    std::mutex mutex;
    std::shared_ptr<const StatePublished> published;
};

struct ModelStateView {
    std::shared_ptr<StateShared> shared = std::make_shared<StateShared>();
    StateAsked asked;
    std::shared_ptr<const StatePublished> shown;
    // The position shown in a generation (ModelService::continued), whose positions run past the
    // prompt's selection; -1: the newest.
    int generated_position = -1;
    // Recorded each frame, for the tests: whether the selected head is linear, whether the generation
    // is shown, and the legend's range (the map runs from −range to +range).
    bool linear = false;
    bool generation = false;
    float range = 0.0f;
};

void draw_model_state_panel(View& v);

} // namespace ui
