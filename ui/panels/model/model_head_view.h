// ui/panels/model/model_head_view.h — a head view as BertViz draws it: the tokens in two columns (queries
// left, keys right), a line from each query to each key with an opacity that follows the weight,
// one colour per head, a layer chooser, and hovering a token shows only its lines. Or the attention
// rollout's lines, from each position after the last layer to the input tokens it draws on.
#pragma once

#include "ui/canvas.h"
#include "ui/view.h"

#include <vector>

namespace ui {

struct ModelHeadView {
    bool all_heads = false; // every head of the layer, else the selected head only
    bool rollout = false;   // the rollout's lines instead: from the last layer's positions to the input tokens
    // For the tests: the layer and heads drawn this frame, and every line drawn: those of weight ≥
    // min_weight that cross the panel's visible part (found again when the fan changes).
    struct Line {
        int head, query, key; // head −1: a rollout line
        float weight;
    };
    int layer = -1;
    std::vector<int> heads;
    std::vector<Line> lines;
    int first_seen = 0, last_seen = -1; // the rows from the first whose middle is below the top to the last above the bottom
    static constexpr float min_weight = 0.01f; // fainter lines are not drawn

    // The lines as one texture (ui/canvas.h), a texel a pixel, drawn again only when what
    // they show changes: the run, the heads and their maps, the hovered token, the scroll, the size.
    struct Fan {
        long long serial = -1;
        int layer = -1, maps = 0, hover_query = -1, hover_key = -1;
        std::vector<int> heads;
        float x0 = 0, x1 = 0, y0 = 0, row = 0, top = 0, bottom = 0, scale = 0, thickness = 0;
        ImU32 text = 0;
        bool operator==(const Fan& o) const;
    } drawn;
    CanvasTexture image;
    ImVec2 image_min{0, 0}; // where the texture is drawn, in screen pixels
};

// Head h of `heads`' colour in the head view (and wherever heads are told apart by colour).
ImU32 head_colour(int h, int heads, float alpha);

void draw_model_head_view_panel(View& v, TextureUploader& textures);

} // namespace ui
