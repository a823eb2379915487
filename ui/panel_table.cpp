#include "ui/panel_table.h"

#include "ui/panels/attention.h"
#include "ui/panels/calculation.h"
#include "ui/panels/controls.h"
#include "ui/panels/decode.h"
#include "ui/panels/heads.h"
#include "ui/panels/heatmap.h"
#include "ui/panels/lesson.h"
#include "ui/panels/help.h"
#include "ui/panels/matrices.h"
#include "ui/panels/order.h"
#include "ui/panels/query_arrow.h"
#include "ui/panels/review.h"
#include "ui/panels/scaling.h"
#include "ui/panels/tokens.h"
#include "ui/panels/train.h"
#include "ui/panels/weights.h"

namespace ui {

// Rows in menu order. Within each kind (editing, then display) panels are drawn in this order too.
const std::vector<PanelSpec>& panel_table() {
    using C = PanelContext;
    static const std::vector<PanelSpec> table = {
        {"controls", "Controls", Slot::left_top, Menu::view, true, true, nullptr,
         [](C& c) { draw_controls_panel(c.scenario, c.view); }},
        {"tokens", "Tokens & embeddings", Slot::left_middle, Menu::view, true, true, nullptr,
         [](C& c) { draw_tokens_panel(c.scenario, c.view); }},
        {"weights", "Weights", Slot::left_bottom, Menu::view, true, true, nullptr,
         [](C& c) { draw_weights_panel(c.scenario, c.view); }},
        {"matrices", "Matrices", Slot::middle_top, Menu::view, true, false, nullptr,
         [](C& c) { draw_matrices_panel(c.scenario, c.result, c.view); }},
        {"heatmap", "Attention heatmap", Slot::right_top, Menu::view, true, false, nullptr,
         [](C& c) { draw_heatmap_panel(c.scenario, c.result, c.view, c.textures); }},
        {"calculation", "Calculation", Slot::middle_bottom, Menu::view, true, false, nullptr,
         [](C& c) { draw_calculation_panel(c.scenario, c.result, c.view); }},
        {"query_arrow", "Query arrow", Slot::right_bottom, Menu::view, true, true, nullptr,
         [](C& c) { draw_query_arrow_panel(c.scenario, c.result, c.view); }},
        {"heads", "Heads", Slot::right_bottom, Menu::view_topics, false, true,
         "Every head's weights side by side; add and remove heads; the concatenation, W_O and the output.",
         [](C& c) { draw_heads_panel(c.scenario, c.result, c.view); }},
        {"decode", "Decode with a KV cache", Slot::middle_top, Menu::view_topics, false, false,
         "Generate one token at a time and watch the key and value caches grow.",
         [](C& c) { draw_decode_panel(c.scenario, c.result, c.view); }},
        {"scaling", "Why divide by √d_k", Slot::middle_bottom, Menu::view_topics, false, false,
         "Random q and k: the variance of q·k with and without the division, and what it does to softmax.",
         [](C& c) { draw_scaling_panel(c.view); }},
        {"order", "Order and position", Slot::left_bottom, Menu::view_topics, false, true,
         "Shuffle the tokens: without positions the outputs shuffle the same way.",
         [](C& c) { draw_order_panel(c.scenario, c.result, c.view); }},
        {"train", "Train a tiny transformer", Slot::middle_top, Menu::view_topics, false, true,
         "Train a 2-layer transformer here; watch a previous-token and an induction head form; open any head in the editor.",
         [](C& c) { draw_train_panel(c.scenario, c.view); }},
        {"review", "Review", Slot::middle_bottom, Menu::view_topics, false, false,
         "Your answers to lesson questions, back when you are about to forget them (FSRS-6 spaced repetition).",
         [](C& c) { draw_review_panel(c.view); }},
        {"lesson", "Lesson", Slot::left, Menu::view_topics, false, true,
         "The open lesson: its step text, back and next, predictions, challenges and hints (Learn menu).",
         [](C& c) { draw_lesson_panel(c.scenario, c.result, c.view); },
         [](C& c) { publish_lesson_overlay(c.scenario, c.result, c.view); }},
        {"attention", "Attention weights of a model", Slot::centre, Menu::view_topics, false, false,
         "A real model's attention from a .npy, .npz or .safetensors file: every layer and head, one head's map, a query's top keys.",
         [](C& c) { draw_attention_viewer(c.view.state<AttentionView>(), c.textures, &c.view); }},
        {"help", "Help", Slot::centre, Menu::help, false, false, nullptr, [](C&) { draw_help_panel(); }},
    };
    return table;
}

const PanelSpec* find_panel(std::string_view id) {
    for (const PanelSpec& p : panel_table())
        if (id == p.id) return &p;
    return nullptr;
}

} // namespace ui
