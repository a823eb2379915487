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
#include "ui/panels/model_compare.h"
#include "ui/panels/model_grid.h"
#include "ui/panels/model_head_view.h"
#include "ui/panels/model_importance.h"
#include "ui/panels/model_map.h"
#include "ui/panels/model_predictions.h"
#include "ui/panels/model_steps.h"
#include "ui/panels/model_prompt.h"
#include "ui/panels/model_qk.h"
#include "ui/panels/model_rollout.h"
#include "ui/panels/model_scores.h"
#include "ui/panels/model_tokens.h"
#include "ui/panels/order.h"
#include "ui/panels/query_arrow.h"
#include "ui/panels/review.h"
#include "ui/panels/scaling.h"
#include "ui/panels/tokens.h"
#include "ui/panels/train.h"
#include "ui/panels/weights.h"

namespace ui {

namespace {

// The draw (or publish) of a panel that reads View alone.
template <void (*F)(View&)>
void on_view(PanelContext& c) {
    F(c.view);
}

} // namespace

// Rows in menu order. Within each kind (editing, then display) panels are drawn in this order too.
const std::vector<PanelSpec>& panel_table() {
    using C = PanelContext;
    static const std::vector<PanelSpec> table = {
        {"controls", "Controls", Menu::view, true, nullptr,
         [](C& c) { draw_controls_panel(c.scenario, c.view); }},
        {"tokens", "Tokens & embeddings", Menu::view, true, nullptr,
         [](C& c) { draw_tokens_panel(c.scenario, c.view); }},
        {"weights", "Weights", Menu::view, true, nullptr,
         [](C& c) { draw_weights_panel(c.scenario, c.view); }},
        {"matrices", "Matrices", Menu::view, false, nullptr,
         [](C& c) { draw_matrices_panel(c.scenario, c.result, c.view); }},
        {"heatmap", "Attention heatmap", Menu::view, false, nullptr,
         [](C& c) { draw_heatmap_panel(c.scenario, c.result, c.view, c.textures); }},
        {"calculation", "Calculation", Menu::view, false, nullptr,
         [](C& c) { draw_calculation_panel(c.scenario, c.result, c.view); }},
        {"query_arrow", "Query arrow", Menu::view, true, nullptr,
         [](C& c) { draw_query_arrow_panel(c.scenario, c.result, c.view); }},
        {"heads", "Heads", Menu::view_topics, true,
         "Every head's weights side by side; add and remove heads; the concatenation, W_O and the output.",
         [](C& c) { draw_heads_panel(c.scenario, c.result, c.view); }},
        {"decode", "Decode with a KV cache", Menu::view_topics, false,
         "Generate one token at a time and watch the key and value caches grow.",
         [](C& c) { draw_decode_panel(c.scenario, c.result, c.view); }},
        {"scaling", "Why divide by √d_k", Menu::view_topics, false,
         "Random q and k: the variance of q·k with and without the division, and what it does to softmax.",
         on_view<draw_scaling_panel>},
        {"order", "Order and position", Menu::view_topics, true,
         "Shuffle the tokens: without positions the outputs shuffle the same way.",
         [](C& c) { draw_order_panel(c.scenario, c.result, c.view); }},
        {"train", "Train a tiny transformer", Menu::view_topics, true,
         "Train a 2-layer transformer here; watch a previous-token and an induction head form; open any head in the editor.",
         [](C& c) { draw_train_panel(c.scenario, c.view); }},
        {"review", "Review", Menu::view_topics, false,
         "Your answers to lesson questions, back when you are about to forget them (FSRS-6 spaced repetition).",
         on_view<draw_review_panel>},
        {"lesson", "Lesson", Menu::view_topics, true,
         "The open lesson: its step text, back and next, predictions, challenges and hints (Learn menu).",
         [](C& c) { draw_lesson_panel(c.scenario, c.result, c.view); },
         [](C& c) { publish_lesson_overlay(c.scenario, c.result, c.view); }},
        {"attention", "Attention weights of a model", Menu::view_topics, false,
         "A real model's attention from a .npy, .npz or .safetensors file: every layer and head, one head's map, a query's top keys.",
         [](C& c) { draw_attention_viewer(c.view.state<AttentionView>(), c.textures, &c.view); }},
        {"attention_map", "Attention map of one head", Menu::view_topics, false,
         "The head chosen in the grid of a model's attention: its map with the tokens on both axes, a colour bar, hover.",
         [](C& c) { draw_attention_map_panel(c.view.state<AttentionView>(), c.textures, c.view); }},
        {"attention_keys", "Top keys of a query", Menu::view_topics, false,
         "The keys the chosen query of the attention map attends to most, largest first.",
         [](C& c) { draw_attention_keys_panel(c.view.state<AttentionView>()); }},
        {"model", "Model", Menu::view_topics, false,
         "A real model (a Hugging Face checkpoint or the bundled one): type a prompt and see every head.",
         on_view<draw_model_prompt_panel>, on_view<publish_model_snapshot>},
        {"model_tokens", "Model tokens", Menu::view_topics, false,
         "The prompt's tokens as the model's tokenizer splits them; click one to select its position.",
         on_view<draw_model_tokens_panel>},
        {"model_predictions", "Next-token predictions", Menu::view_topics, false,
         "The ten most likely next tokens at the selected position, or the fillers of each [MASK].",
         on_view<draw_model_predictions_panel>},
        {"model_grid", "Layers × heads", Menu::view_topics, false,
         "Every layer and head of the model's attention on the prompt; click one to select it.",
         on_view<draw_model_grid_panel>},
        {"model_head_view", "Head view", Menu::view_topics, false,
         "Lines from each query to its keys, one colour per head, as BertViz draws them.",
         on_view<draw_model_head_view_panel>},
        {"model_map", "Head map", Menu::view_topics, false,
         "The selected head's weights with the tokens on both axes.",
         on_view<draw_model_map_panel>},
        {"model_steps", "Selected head: editor and KV cache", Menu::view_topics, true,
         "Open the selected head in Explore's editor with its own Q, K and V; generate step by step on the model's KV cache.",
         [](C& c) { draw_model_steps_panel(c.scenario, c.view); }},
        {"model_compare", "Compare two prompts", Menu::view_topics, false,
         "A second prompt: every head's difference of attention over the aligned tokens, and each row's Jensen–Shannon divergence.",
         on_view<draw_model_compare_panel>},
        {"model_scores", "Head scores", Menu::view_topics, false,
         "Every head by its previous-token, duplicate, induction and entropy scores, on the prompt or the probe; sort by a column.",
         on_view<draw_model_scores_panel>},
        {"model_importance", "Head importance", Menu::view_topics, false,
         "The loss on the prompt with each head alone knocked out, as a layer × head map; measured on a worker.",
         on_view<draw_model_importance_panel>},
        {"model_rollout", "Attention rollout", Menu::view_topics, false,
         "How much of each position after the last layer comes from each input token (heads averaged, layer by layer).",
         on_view<draw_model_rollout_panel>},
        {"model_qk", "Query–key view", Menu::view_topics, false,
         "The selected head's queries and keys in one plane (principal components, or the query and its top key); hover a query for its weights.",
         on_view<draw_model_qk_panel>},
        {"help", "Help", Menu::help, false, nullptr, [](C&) { draw_help_panel(); }},
    };
    return table;
}

const PanelSpec* find_panel(std::string_view id) {
    for (const PanelSpec& p : panel_table())
        if (id == p.id) return &p;
    return nullptr;
}

} // namespace ui
