// ui/panels/model/model_compare.h — a second prompt beside the first: for every head, the difference of
// its two attention maps over the aligned tokens and each row's Jensen–Shannon divergence.
//
// Aligned tokens (core/model/prompt_compare.h): those the two prompts share in order, and a run
// replaced by one of the same count, position by position. The second forward runs on the model
// session's worker; the panel shows the last comparison it published.
#pragma once

#include "core/model/requests/compare.h"
#include "ui/view.h"
#include "ui/panels/shared/wrapped_input.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace ui {

struct ComparePublished {
    long long first_serial = -1;       // the first prompt's snapshot
    int model = -1;                    // ModelService::models_opened when it was asked: another model drops it
    std::string second;                // the second prompt
    int t_first = 0, t_second = 0;
    std::vector<std::string> labels;   // (n) an aligned token: "cat" or "cat → dog"
    core::model::Comparison comparison;
    std::string error;
};

struct CompareShared {
    std::mutex mutex;
    int busy = 0;
    std::shared_ptr<const ComparePublished> published;
};

struct ModelCompareView {
    std::shared_ptr<CompareShared> shared = std::make_shared<CompareShared>();
    std::shared_ptr<const ComparePublished> shown;
    bool busy = false;
    std::string second = "Mr. Darcy looked at Jane, and Jane looked at Mr. Darcy.";
    WrappedInput box; // the second prompt's, soft-wrapped, one to four lines tall
    // Recorded each frame, for the tests: the heads' grid and the selected head's map.
    ImVec2 grid_origin{}, cell{};
    ImRect map{};
};

void draw_model_compare_panel(View& v);

} // namespace ui
