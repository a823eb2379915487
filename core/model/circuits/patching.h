// core/model/circuits/patching.h — activation patching: which heads, and which positions of the
// stream, carry a behaviour from a clean prompt into a corrupted one.
#pragma once

#include "core/model/forward.h"
#include "core/scenario.h"

#include <atomic>
#include <functional>
#include <vector>

namespace core::model {

// What a run is scored by: the logit of `answer` minus that of `vs` at the last position, or (loss)
// the mean next-token loss on the clean prompt's ids (then the prompts have one length).
struct PatchMetric {
    int answer = 0, vs = 0;
    bool loss = false;
};

enum class PatchBy { head, position };

// The clean and corrupted prompts' tokens stand for each other as core/model/prompt_compare.h
// aligns them. A head's patch: its output before the output projection, at every aligned position,
// from the clean run; a position's: the stream entering layer ℓ at that position. recovery =
// (m_patched − m_corrupt) / (m_clean − m_corrupt).
struct Patching {
    PatchBy by = PatchBy::head;
    PatchMetric metric;    // what it was scored by
    double clean_metric = 0.0, corrupt_metric = 0.0;
    core::Matrix recovery; // (layers, heads) or (layers, corrupt positions); NaN at a position with no clean one
};

// Each patch reruns the corrupted prompt from its layer on, from the stream the corrupted run kept,
// the patches of a layer as copies of the sequence. Calls progress(done, total) after each batch;
// `cancel` stops it with Cancelled. Throws InputError for a model without an LM head, a loss with
// prompts of two lengths or a model that does not predict the next token, or ids it cannot take.
Patching activation_patching(const Model& model, const std::vector<int>& clean, const std::vector<int>& corrupt, const PatchMetric& metric,
                             PatchBy by, const std::atomic<bool>* cancel = nullptr,
                             const std::function<void(int done, int total)>& progress = {});

// The metric of one full forward of the corrupted prompt with the heads `heads` patched.
double patched_metric(const Model& model, const std::vector<int>& clean, const std::vector<int>& corrupt, const PatchMetric& metric,
                      const std::vector<HeadRef>& heads);

} // namespace core::model
