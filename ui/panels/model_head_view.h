// ui/panels/model_head_view.h — a head view as BertViz draws it: the tokens in two columns (queries
// left, keys right), a line from each query to each key with an opacity that follows the weight,
// one colour per head, a layer chooser, and hovering a token shows only its lines. Or the attention
// rollout's lines, from each position after the last layer to the input tokens it draws on.
#pragma once

#include "ui/view.h"

#include <vector>

namespace ui {

struct ModelHeadView {
    bool all_heads = false; // every head of the layer, else the selected head only
    bool rollout = false;   // the rollout's lines instead: from the last layer's positions to the input tokens
    // Recorded each frame, for the tests: the layer and heads drawn and every line drawn: those of
    // weight ≥ min_weight that cross the panel's visible part.
    struct Line {
        int head, query, key; // head −1: a rollout line
        float weight;
    };
    int layer = -1;
    std::vector<int> heads;
    std::vector<Line> lines;
    int first_seen = 0, last_seen = -1; // the rows from the first whose middle is below the top to the last above the bottom
    static constexpr float min_weight = 0.01f; // fainter lines are not drawn
    static constexpr int max_smooth_lines = 64; // more are drawn without anti-aliasing
};

// Head h of `heads`' colour in the head view (and wherever heads are told apart by colour).
ImU32 head_colour(int h, int heads, float alpha);

void draw_model_head_view_panel(View& v);

} // namespace ui
