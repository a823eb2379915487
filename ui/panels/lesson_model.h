// ui/panels/lesson_model.h — a lesson step's grid of a real model's heads (actions = { model = …,
// model_text = … }): every head's attention on the step's text, worked out on a worker, and the
// head the learner picks by clicking its pattern, with its previous-token score.
#pragma once

#include "core/learn/expr.h"
#include "core/heads/scores.h"
#include "ui/view.h"

#include <future>
#include <optional>
#include <string>
#include <vector>

namespace ui {

struct ModelHeads {
    struct Run {
        std::string name; // the model's, for the title
        int layers = 0, heads = 0;
        bool causal = true;
        bool cut = false;                            // the text had more tokens than the grid draws
        std::vector<std::string> tokens;             // as the tokenizer shows them
        std::vector<core::Matrix> patterns;          // (layers · heads) × (t, t)
        std::vector<core::heads::HeadScores> scores; // (layers · heads)
        std::string error;                           // why the model did not open or run
    };
    std::string model, text; // what `run` (or the job) is of
    std::future<Run> job;
    std::optional<Run> run;
    int picked = -1; // layer · heads + head; -1: none yet
};

// The model's forward on `text` and every head's scores; any failure is in Run::error.
ModelHeads::Run run_model_heads(const std::string& model, const std::string& text);

// Starts the worker when the step's model or text is new, then draws a line while it runs, and
// then the grid: a click on a head's pattern picks it (named "lesson.model_head.L.H" from 0).
void draw_model_heads(ModelHeads& m, const std::string& model, const std::string& text, View& v);

// picked_previous, model_best_previous, picked_induction and model_best_induction
// (core::learn::fact_names), once a head is picked.
void add_model_facts(const ModelHeads& m, core::learn::Facts& f);

} // namespace ui
