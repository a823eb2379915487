// core/model/requests/compare.h — a second prompt beside the one shown (the Compare panel): the
// second sequence run on the same model with the first run's knock-outs, and the two runs' maps
// compared head by head (prompt_compare.h).
#pragma once

#include "core/model/prompt_compare.h"
#include "core/model/session.h"

#include <atomic>
#include <vector>

namespace core::model {

// Gives up with Cancelled once `cancel` is set; throws InputError for ids the model cannot take.
Comparison compare_with_run(const Model& model, const Snapshot& first, const std::vector<int>& second_ids, const std::atomic<bool>* cancel);

} // namespace core::model
