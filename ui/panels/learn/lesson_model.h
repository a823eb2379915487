// ui/panels/learn/lesson_model.h — a lesson step's grid of a real model's heads (actions = { model = …,
// model_text = … }): every head's attention on the step's text, worked out on a worker, and the
// head the learner picks by clicking its pattern, with its previous-token score.
#pragma once

#include "core/learn/expr.h"
#include "core/learn/heads_run.h"
#include "core/worker.h"
#include "ui/view.h"

#include <optional>
#include <string>

namespace ui {

// The grid draws a cell per query and visible key of every head: at most this many in all, so
// that the Lesson panel stays within ImGui's 16-bit draw list (4 vertices a cell).
inline constexpr int model_grid_cells = 9000;

struct ModelHeads {
    using Run = core::learn::HeadsRun;
    std::string model, text; // what `run` (or the job) is of
    core::Worker<Run> job;   // core::learn::run_heads
    std::optional<Run> run;
    int picked = -1; // layer · heads + head; -1: none yet
};

// Starts the worker when the step's model or text is new, then draws a line while it runs, and
// then the grid: a click on a head's pattern picks it (named "lesson.model_head.L.H" from 0).
void draw_model_heads(ModelHeads& m, const std::string& model, const std::string& text, View& v);

// picked_previous, model_best_previous, picked_induction and model_best_induction
// (core::learn::fact_names), once a head is picked.
void add_model_facts(const ModelHeads& m, core::learn::Facts& f);

} // namespace ui
