// ui/panels/lesson_circuit.h — a lesson step's circuit maps of a real model (actions = { model = …,
// model_text = CLEAN, patch = { corrupt, answer, vs } }): each head's recovery when patched from the
// clean prompt into the corrupted one, each head's direct attribution to the answer's logit
// difference on the clean prompt, and the logit lens at its last token. Worked out on a worker with
// progress; a click on a head of either map picks it.
#pragma once

#include "core/learn/expr.h"
#include "core/learn/lesson.h"
#include "ui/view.h"

#include <atomic>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ui {

struct CircuitMaps {
    struct Run {
        std::string name; // the model's, for the title
        int layers = 0, heads = 0;
        std::string answer, vs;               // as the tokenizer shows them
        double clean_metric = 0.0, corrupt_metric = 0.0; // logit(answer) − logit(vs) at the last token
        core::Matrix recovery;                // (layers, heads)
        core::Matrix attribution;             // (layers, heads) on the clean prompt
        std::vector<int> lens_rank;           // (layers) the answer's rank at the last token after each layer
        std::vector<std::string> lens_top;    // (layers) the most likely token there
        std::string error;                    // why the model did not open or run
    };
    struct Progress {
        std::atomic<int> done{0}, total{0};
        std::atomic<bool> cancel{false};
    };
    std::string key; // what `run` (or the job) is of
    std::shared_ptr<Progress> progress;
    std::future<Run> job;
    std::optional<Run> run;
    int picked = -1; // layer · heads + head; -1: none yet
    ~CircuitMaps();
};

// The patching, the attribution and the lens of `model` on the prompts; any failure is in Run::error.
CircuitMaps::Run run_circuit(const std::string& model, const std::string& clean, const core::learn::Actions::Patch& patch,
                             const std::shared_ptr<CircuitMaps::Progress>& progress);

// Starts the worker when the step's inputs are new, shows its progress, then the maps: a click on a
// head picks it (named "lesson.circuit_head.L.H" from 0). What an open prediction reads stays grey.
void draw_circuit_maps(CircuitMaps& m, const std::string& model, const std::string& clean, const core::learn::Actions::Patch& patch, View& v);

// best_recovery, recovery_layer, attribution_layer, lens_layer once the maps are done, and
// picked_recovery, picked_attribution once a head is picked (core::learn::fact_names).
void add_circuit_facts(const CircuitMaps& m, core::learn::Facts& f);

} // namespace ui
