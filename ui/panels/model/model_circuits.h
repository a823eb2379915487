// ui/panels/model/model_circuits.h — circuits on the live model, each measured on a worker with progress
// and Cancel: the logit lens (a layers × positions grid of each layer's top token, coloured by its
// probability), direct logit attribution of a token at the selected position and activation
// patching against a corrupted prompt (layer × head maps whose cells select a head).
#pragma once

#include "core/model/requests/circuits.h"
#include "core/worker.h"
#include "ui/view.h"

#include <memory>
#include <string>
#include <vector>

namespace ui {

struct ModelCircuitsView {
    int kind = 0;                 // what Run measures: 0 the lens, 1 attribution, 2 patching
    std::string target, vs;       // tokens (text or #ID): the attributed one and the other; patching's answer and other
    std::string corrupt;          // the corrupted prompt
    int patch_by = 0;             // patching: 0 each head's output, 1 the stream at each (layer, position)
    bool loss = false;            // patching's metric: the loss, or (false) the answer's logit minus the other's
    core::Worker<core::model::CircuitsResult> job;
    // A job's result with what it was measured on. Each kind keeps its own; another model drops them all.
    struct Measured {
        std::shared_ptr<const core::model::CircuitsResult> result;
        int model = -1;                  // ModelService::models_opened when it ran
        std::string model_name, prompt;  // named over a result of an earlier prompt
        std::vector<std::string> labels; // the prompt's tokens then: the lens's columns
    };
    Measured measured[3]; // by kind
    Measured running;     // the running job's, until it finishes
    int running_kind = 0;
    // The result the chosen kind shows (nullptr: none yet).
    const core::model::CircuitsResult* result() const { return measured[kind].result.get(); }
    int hovered = -1;             // the map's cell under the pointer (layer · columns + column), -1: none
    double hovered_value = 0.0;
};

void draw_model_circuits_panel(View& v);

} // namespace ui
