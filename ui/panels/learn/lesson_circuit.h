// ui/panels/learn/lesson_circuit.h — a lesson step's circuit maps of a real model (actions = { model = …,
// model_text = CLEAN, patch = { corrupt, answer, vs } }): each head's recovery when patched from the
// clean prompt into the corrupted one, each head's direct attribution to the answer's logit
// difference on the clean prompt, and the logit lens at its last token. Worked out on a worker with
// progress; a click on a head of either map picks it.
#pragma once

#include "core/learn/patch_run.h"
#include "core/worker.h"
#include "ui/view.h"

#include <optional>
#include <string>

namespace ui {

struct CircuitMaps {
    struct Run {
        core::learn::PatchRun maps;
        std::string error; // why the model did not open or run
    };
    std::string key;                        // what `run` (or the job) is of
    core::Worker<core::learn::PatchRun> job; // core::learn::run_patch
    std::optional<Run> run;
    int picked = -1; // layer · heads + head; -1: none yet
};

// Starts the worker when the step's inputs are new, shows its progress, then the maps: a click on a
// head picks it (named "lesson.circuit_head.L.H" from 0). What an open prediction reads stays grey.
void draw_circuit_maps(CircuitMaps& m, const std::string& model, const std::string& clean, const core::learn::Actions::Patch& patch, View& v);

// core::learn::add_patch_facts once the maps are done, with the head picked.
void add_circuit_facts(const CircuitMaps& m, core::learn::Facts& f);

} // namespace ui
