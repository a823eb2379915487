// ui/panels/model/model_steps.h — the selected head of the live model: open it in Explore's editor as a
// scenario with its own Q, K and V, and generate step by step on the model's KV cache (one click,
// one token), with the head's new query row over the cache and the cache's bytes.
//
// The forwards run on the model session's worker (Session::post); the panel reads what the worker
// published and never waits for it.
#pragma once

#include "core/model/decode_steps.h"
#include "core/scenario.h"
#include "ui/view.h"

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ui {

// What the worker publishes after each task, copied out by the panel under `mutex`.
struct StepsPublished {
    std::vector<int> ids;            // prompt + generated
    std::vector<std::string> labels; // (ids) as a person reads them
    std::string prompt_text, made_text; // the prompt and what was generated, as text
    int prompt_length = 0;
    int layers = 0, heads = 0, t = 0;
    std::vector<float> newest;       // (layers, heads, t): every head's row for the newest position
    core::model::CacheSize cache;
    bool can_step = false;
    bool ended = false;              // the last token is the model's end of text
    // The latest step's run, where the steps keep the linear layers' values (the State panel is open)
    std::shared_ptr<const core::model::ForwardResult> run;
    std::string error;
};

struct StepsShared {
    std::mutex mutex;
    int busy = 0;                    // tasks posted and not finished
    StepsPublished published;
    std::optional<core::Scenario> opened; // a head built for the editor, until the panel takes it
    std::string opened_title;
    core::model::Stepper stepper;    // the worker's alone
};

struct ModelStepsView {
    std::shared_ptr<StepsShared> shared = std::make_shared<StepsShared>();
    StepsPublished shown;            // this frame's copy
    bool busy = false;
    long long started_from = -1;     // the snapshot serial the decoding started from
};

void draw_model_steps_panel(core::Scenario& s, View& v);

} // namespace ui
