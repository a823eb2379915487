// core/model/expert_importance.h — each expert's importance to the loss on a prompt: the model run
// again with that expert knocked out (ForwardOptions::ablate_experts), as head_importance.h does for heads.
#pragma once

#include "core/model/forward.h"
#include "core/scenario.h"

#include <atomic>
#include <functional>
#include <vector>

namespace core::model {

struct ExpertImportance {
    double loss = 0.0;       // the intact model's prompt_loss
    std::vector<int> layers; // the mixture-of-experts layers, from 0
    core::Matrix delta;      // (layers.size(), experts): the loss with that expert alone knocked out, minus `loss`
};

// Every expert of every mixture layer knocked out in turn. The stream entering each layer is kept
// from the intact run, so each rerun starts at the expert's layer; an expert that no position chose
// changes nothing and is not rerun (its delta is 0). Calls progress(done, total) after each expert, on
// the caller's thread; `cancel` stops it with Cancelled. Throws InputError for a model that does not
// predict the next token, has no mixture layer, or for fewer than 2 ids.
ExpertImportance expert_importance(const Model& model, const std::vector<int>& ids, const std::atomic<bool>* cancel = nullptr,
                                   const std::function<void(int done, int total)>& progress = {});

} // namespace core::model
