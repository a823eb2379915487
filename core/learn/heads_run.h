// core/learn/heads_run.h — what a step's grid of a real model's heads measures (actions = { model =
// …, model_text = … }, docs/lessons.md): every head's attention on the step's text and its scores
// (previous token, induction). The Lesson panel runs it on a core::Worker and draws the grid.
#pragma once

#include "core/heads/scores.h"

#include <string>
#include <vector>

namespace core::learn {

struct HeadsRun {
    std::string name; // the model's, for the title
    int layers = 0, heads = 0;
    bool causal = true;
    bool cut = false;                            // the text had more tokens than the grid holds
    std::vector<std::string> tokens;             // as the tokenizer shows them
    std::vector<core::Matrix> patterns;          // (layers · heads) × (t, t)
    std::vector<core::heads::HeadScores> scores; // (layers · heads)
    std::string error;                           // why the model did not open or run
};

// Opens `model`, runs it on `text` cut to the longest prefix whose patterns fit `most_cells` cells
// (every head's queries × visible keys), and scores every head; any failure is in HeadsRun::error.
HeadsRun run_heads(const std::string& model, const std::string& text, int most_cells);

} // namespace core::learn
