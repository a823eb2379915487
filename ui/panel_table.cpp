#include "ui/panel_table.h"

#include "ui/panels/model/attention.h"
#include "ui/panels/explore/calculation.h"
#include "ui/panels/explore/controls.h"
#include "ui/panels/explore/decode.h"
#include "ui/panels/explore/heads.h"
#include "ui/panels/explore/heatmap.h"
#include "ui/panels/learn/lesson.h"
#include "ui/panels/shared/help.h"
#include "ui/panels/explore/matrices.h"
#include "ui/panels/model/model_circuits.h"
#include "ui/panels/model/model_compare.h"
#include "ui/panels/model/model_experts.h"
#include "ui/panels/model/model_grid.h"
#include "ui/panels/model/model_head_view.h"
#include "ui/panels/model/model_importance.h"
#include "ui/panels/model/model_sinks.h"
#include "ui/panels/model/model_state.h"
#include "ui/panels/model/model_map.h"
#include "ui/panels/model/model_predictions.h"
#include "ui/panels/model/model_steps.h"
#include "ui/panels/model/model_prompt.h"
#include "ui/panels/model/model_qk.h"
#include "ui/panels/model/model_rollout.h"
#include "ui/panels/model/model_scores.h"
#include "ui/panels/model/model_tokens.h"
#include "ui/panels/model/model_why.h"
#include "ui/panels/explore/order.h"
#include "ui/panels/explore/query_arrow.h"
#include "ui/panels/learn/review.h"
#include "ui/panels/explore/scaling.h"
#include "ui/panels/explore/state.h"
#include "ui/panels/explore/tokens.h"
#include "ui/panels/train/train.h"
#include "ui/panels/explore/weights.h"

#include <type_traits>

namespace ui {

namespace {

// A panel's draw (or publish) function is called with the parts of the PanelContext its parameters
// name: one overload for each list of parameters that panels have.
void call(void (*f)(), PanelContext&) { f(); }
void call(void (*f)(View&), PanelContext& c) { f(c.view); }
void call(void (*f)(View&, TextureUploader&), PanelContext& c) { f(c.view, c.textures); }
void call(void (*f)(core::Scenario&, View&), PanelContext& c) { f(c.scenario, c.view); }
void call(void (*f)(core::Scenario&, const core::Result&, View&), PanelContext& c) { f(c.scenario, c.result, c.view); }
void call(void (*f)(core::Scenario&, const core::Result&, View&, TextureUploader&), PanelContext& c) {
    f(c.scenario, c.result, c.view, c.textures);
}
void call(void (*f)(const core::Scenario&, const core::Result&, View&), PanelContext& c) { f(c.scenario, c.result, c.view); }
void call(void (*f)(const core::Scenario&, const core::Result&, View&, TextureUploader&), PanelContext& c) {
    f(c.scenario, c.result, c.view, c.textures);
}

// A panel edits the scenario exactly when its draw takes the scenario to change (not const).
template <class... Args>
constexpr bool takes_scenario_to_change(void (*)(Args...)) {
    return (std::is_same_v<Args, core::Scenario&> || ...);
}

template <auto F>
void call_with_context(PanelContext& c) {
    call(F, c);
}

// One row: the panel's draw function as the template argument, then its id, title, menu and tooltip.
template <auto Draw>
PanelSpec row(const char* id, const char* title, Menu menu, const char* tip = nullptr) {
    return {id, title, menu, takes_scenario_to_change(Draw), tip, call_with_context<Draw>};
}

} // namespace

// Rows in menu order. Within each kind (editing, then display) panels are drawn in this order too.
const std::vector<PanelSpec>& panel_table() {
    static const std::vector<PanelSpec> table = {
        row<draw_controls_panel>("controls", "Controls", Menu::view),
        row<draw_tokens_panel>("tokens", "Tokens & embeddings", Menu::view),
        row<draw_weights_panel>("weights", "Weights", Menu::view),
        row<draw_matrices_panel>("matrices", "Matrices", Menu::view),
        row<draw_heatmap_panel>("heatmap", "Attention heatmap", Menu::view),
        row<draw_calculation_panel>("calculation", "Calculation", Menu::view),
        row<draw_query_arrow_panel>("query_arrow", "Query arrow", Menu::view),
        row<draw_state_panel>("state", "State of the linear and delta rules", Menu::view_topics,
            "The d_k × d_v matrix the linear and delta rules carry from token to token, at the selected query."),
        row<draw_heads_panel>("heads", "Heads", Menu::view_topics,
            "Every head's weights side by side; add and remove heads; the concatenation, W_O and the output."),
        row<draw_decode_panel>("decode", "Decode with a KV cache", Menu::view_topics,
            "Generate one token at a time and watch the key and value caches grow."),
        row<draw_scaling_panel>("scaling", "Why divide by √d_k", Menu::view_topics,
            "Random q and k: the variance of q·k with and without the division, and what it does to softmax."),
        row<draw_order_panel>("order", "Order and position", Menu::view_topics,
            "Shuffle the tokens: without positions the outputs shuffle the same way."),
        row<draw_train_panel>("train", "Train a tiny transformer", Menu::view_topics,
            "Train a 2-layer transformer here; watch a previous-token and an induction head form; open any head in the editor."),
        row<draw_review_panel>("review", "Review", Menu::view_topics,
            "Your answers to lesson questions, back when you are about to forget them (FSRS-6 spaced repetition)."),
        row<draw_lesson_panel>("lesson", "Lesson", Menu::view_topics,
            "The open lesson: its step text, back and next, predictions, challenges and hints (Learn menu)."),
        row<draw_attention_panel>("attention", "Attention weights of a model", Menu::view_topics,
            "A real model's attention from a .npy, .npz or .safetensors file: every layer and head, one head's map, a query's top keys."),
        row<draw_attention_map_panel>("attention_map", "Attention map of one head", Menu::view_topics,
            "The head chosen in the grid of a model's attention: its map with the tokens on both axes, a colour bar, hover."),
        row<draw_attention_keys_panel>("attention_keys", "Top keys of a query", Menu::view_topics,
            "The keys the chosen query of the attention map attends to most, largest first."),
        row<draw_model_prompt_panel>("model", "Model", Menu::view_model,
            "A real model (a Hugging Face checkpoint or the bundled one): type a prompt and see every head."),
        row<draw_model_tokens_panel>("model_tokens", "Model tokens", Menu::view_model,
            "The prompt's tokens as the model's tokenizer splits them; click one to select its position."),
        row<draw_model_predictions_panel>("model_predictions", "Next-token predictions", Menu::view_model,
            "The ten most likely next tokens at the selected position, or the fillers of each [MASK]."),
        row<draw_model_grid_panel>("model_grid", "Layers × heads", Menu::view_model,
            "Every layer and head of the model's attention on the prompt; click one to select it."),
        row<draw_model_head_view_panel>("model_head_view", "Head view", Menu::view_model,
            "Lines from each query to its keys, one colour per head, as BertViz draws them."),
        row<draw_model_map_panel>("model_map", "Head map", Menu::view_model,
            "The selected head's weights with the tokens on both axes."),
        row<draw_model_steps_panel>("model_steps", "Selected head: editor and KV cache", Menu::view_model,
            "Open the selected head in Explore's editor with its own Q, K and V; generate step by step on the model's KV cache."),
        row<draw_model_compare_panel>("model_compare", "Compare two prompts", Menu::view_model,
            "A second prompt: every head's difference of attention over the aligned tokens, and each row's Jensen–Shannon divergence."),
        row<draw_model_scores_panel>("model_scores", "Head scores", Menu::view_model,
            "Every head by its previous-token, duplicate, induction and entropy scores, on the prompt or the probe; sort by a column."),
        row<draw_model_importance_panel>("model_importance", "Head importance", Menu::view_model,
            "The loss on the prompt with each head alone knocked out, as a layer × head map; measured on a worker."),
        row<draw_model_sinks_panel>("model_sinks", "Attention sinks", Menu::view_model,
            "Each head's mean sink share (its learned sink's, else its weight on position 1) as a layer × head map, and the selected head's query by query."),
        row<draw_model_experts_panel>("model_experts", "Experts", Menu::view_model,
            "A mixture of experts' routing: each position's router probabilities and chosen experts by layer, each expert's load, knock-outs and importance."),
        row<draw_model_rollout_panel>("model_rollout", "Attention rollout", Menu::view_model,
            "How much of each position after the last layer comes from each input token (heads averaged, layer by layer)."),
        row<draw_model_qk_panel>("model_qk", "Query–key view", Menu::view_model,
            "The selected head's queries and keys in one plane (principal components, or the query and its top key); hover a query for its weights."),
        row<draw_model_circuits_panel>("model_circuits", "Circuits", Menu::view_model,
            "The logit lens, each head's direct share of a token's logit, and what patching each head from the prompt into a corrupted one recovers; on a worker."),
        row<draw_model_why_panel>("model_why", "Why this score", Menu::view_model,
            "The head map's clicked cell as a sum over pairs of the stream's components, and which heads write into and read from the selected head."),
        row<draw_model_state_panel>("model_state", "State", Menu::view_model,
            "A linear head's recurrent state (d_k × d_v) after the selected position, stepping through the prompt."),
        row<draw_help_panel>("help", "Help", Menu::help),
    };
    return table;
}

const std::vector<void (*)(PanelContext&)>& publishers() {
    static const std::vector<void (*)(PanelContext&)> list = {
        call_with_context<publish_lesson_overlay>, // View::lesson, by the Lesson panel
        call_with_context<publish_model_snapshot>, // View::model, by the Model panel
    };
    return list;
}

const PanelSpec* find_panel(std::string_view id) {
    for (const PanelSpec& p : panel_table())
        if (id == p.id) return &p;
    return nullptr;
}

} // namespace ui
