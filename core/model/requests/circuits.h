// core/model/requests/circuits.h — the circuits questions asked of a model (the logit lens, direct
// logit attribution, activation patching) as one request: the Circuits panel and --logit-lens,
// --attribute and --patch each build a CircuitsRequest and read the CircuitsResult.
#pragma once

#include "core/model/circuits/attribution.h"
#include "core/model/circuits/lens.h"
#include "core/model/circuits/patching.h"
#include "core/worker.h"

#include <string>
#include <vector>

namespace core::model {

struct CircuitsRequest {
    enum class Kind { lens, attribution, patching };
    Kind kind = Kind::lens;
    std::vector<int> ids;     // (t) the prompt (patching: the clean one)
    std::vector<int> corrupt; // patching: the corrupted prompt
    int top = 3;              // the lens: tokens kept at each (layer, position)
    int target = 0, vs = -1;  // attribution: the token attributed and the one subtracted (-1: none)
    int position = 0;         // attribution: the position, from 0
    PatchMetric metric;       // patching
    PatchBy by = PatchBy::head;
};

struct CircuitsResult {
    using Kind = CircuitsRequest::Kind;
    Kind kind = Kind::lens;
    std::vector<int> ids;     // (t) the prompt (patching: the clean one)
    std::vector<int> corrupt; // patching: the corrupted prompt, whose positions a position map's columns are
    LogitLens lens;
    Attribution attribution;
    Patching patching;
    std::string error; // the job failed or was cancelled: one line
};

// Runs the request on `model`; patching reports progress(done, total) and gives up with Cancelled
// once stopped (control may be null: the command line).
CircuitsResult run_circuits(const Model& model, const CircuitsRequest& request, const TaskControl* control = nullptr);

} // namespace core::model
