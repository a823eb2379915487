#include "ui/workspace_table.h"

namespace ui {

namespace {

// Explore's three columns: editors, tables, pictures. The tables get the height of Q, K, V, the scores,
// A and Z of the three-token example whole at 1280 × 720.
constexpr float c1 = 0.25f, c2 = 0.67f, row = 0.45f, tables = 0.53f;
constexpr Place left_top{0, 0, c1, 0.28f}, left_middle{0, 0.28f, c1, 0.604f}, left_bottom{0, 0.604f, c1, 1};
constexpr Place middle_top{c1, 0, c2, tables}, middle_bottom{c1, tables, c2, 1};
constexpr Place right_top{c2, 0, 1, row}, right_bottom{c2, row, 1, 1};
constexpr Place centre{0.22f, 0.12f, 0.78f, 0.88f};

// Learn: the lesson's text on the left, never under the panels its steps open, which share the rest.
constexpr float text = 0.3f, pictures = 0.64f;
constexpr Place lesson_text{0, 0, text, 1};
constexpr Place learn_top{text, 0, pictures, 0.5f}, learn_bottom{text, 0.5f, pictures, 1};
constexpr Place learn_right_top{pictures, 0, 1, 0.5f}, learn_right_bottom{pictures, 0.5f, 1, 1};

// Model: the source (a live model's prompt, or the switch to a file) above the tokens, the
// predictions and head importance (a small layer x head map); the grid above the head view (or the
// second prompt's comparison, or the query-key view); the chosen head's map above the head scores and
// the head's tools (the editor, step-by-step generation), which need the width. A file of attention
// weights shows its grid, map and top keys in the same places instead.
constexpr float m1 = 0.28f, m2 = 0.62f;
constexpr Place model_source{0, 0, m1, 0.26f}, model_tokens{0, 0.26f, m1, 0.44f}, model_predictions{0, 0.44f, m1, 0.74f};
constexpr Place model_importance{0, 0.74f, m1, 1};
constexpr Place model_grid{m1, 0, m2, 0.5f}, model_head_view{m1, 0.5f, m2, 1}, model_map{m2, 0, 1, 0.4f};
constexpr Place model_scores{m2, 0.4f, 1, 0.68f}, model_steps{m2, 0.68f, 1, 1};
constexpr Place model_compare{m1, 0.5f, m2, 1};
constexpr Place model_file_grid{m1, 0, m2, 1}, model_file_map{m2, 0, 1, 1}, model_file_keys{0, 0.26f, m1, 1};

} // namespace

const std::vector<WorkspaceSpec>& workspace_table() {
    static const std::vector<WorkspaceSpec> table = {
        {"explore", "Explore", "Edit the scenario and watch every matrix, the weights and the calculation change", {},
         {{"controls", left_top, true}, {"tokens", left_middle, true}, {"weights", left_bottom, true},
          {"matrices", middle_top, true}, {"heatmap", right_top, true}, {"calculation", middle_bottom, true},
          {"query_arrow", right_bottom, true}, {"heads", right_bottom, false}, {"decode", middle_top, false},
          {"scaling", middle_bottom, false}, {"order", left_bottom, false}, {"review", middle_bottom, false}, {"state", right_bottom, false}}},
        {"learn", "Learn", "A lesson beside the panels its steps open", {"lesson"},
         {{"lesson", lesson_text, true}, {"heatmap", learn_right_top, true}, {"query_arrow", learn_right_bottom, false},
          {"matrices", learn_top, true}, {"calculation", learn_bottom, false}, {"decode", learn_top, false},
          {"scaling", learn_bottom, false}, {"heads", learn_bottom, false}, {"order", learn_bottom, false},
          {"controls", learn_top, false}, {"tokens", learn_top, false}, {"weights", learn_bottom, false},
          {"review", learn_bottom, false}, {"state", learn_right_bottom, false}, {"train", {text, 0, 1, 1}, false, true}}},
        {"train", "Train", "Train a tiny transformer on the whole screen and watch its heads form", {"train"},
         {{"train", {0, 0, 1, 1}, true}}},
        {"model", "Model", "A real model: type a prompt, see every layer and head, one head's map and the next-token predictions; or a file of a model's attention",
         {"model", "attention", "attention_map", "attention_keys"},
         {{"model", model_source, true}, {"model_tokens", model_tokens, true}, {"model_predictions", model_predictions, true},
          {"model_grid", model_grid, true}, {"model_head_view", model_head_view, true}, {"model_map", model_map, true},
          {"model_steps", model_steps, true}, {"model_compare", model_compare, false},
          {"model_scores", model_scores, true}, {"model_importance", model_importance, true},
          {"model_rollout", model_map, false}, {"model_sinks", model_map, false}, {"model_experts", model_head_view, false}, {"model_qk", model_head_view, false}, {"model_circuits", model_head_view, false},
          {"model_why", model_steps, false}, {"model_state", model_map, false},
          {"attention", model_file_grid, false}, {"attention_map", model_file_map, false}, {"attention_keys", model_file_keys, false}}},
    };
    return table;
}

int find_workspace(std::string_view id) {
    const std::vector<WorkspaceSpec>& table = workspace_table();
    for (std::size_t i = 0; i < table.size(); ++i)
        if (id == table[i].id) return static_cast<int>(i);
    return -1;
}

Place place_in(const WorkspaceSpec& w, std::string_view panel) {
    for (const PanelPlace& p : w.panels)
        if (panel == p.panel) return p.place;
    return centre;
}

int home_workspace_of(std::string_view panel) {
    const std::vector<WorkspaceSpec>& table = workspace_table();
    for (std::size_t i = 0; i < table.size(); ++i)
        for (const char* home : table[i].homes)
            if (panel == home) return static_cast<int>(i);
    return -1;
}

int workspace_opening(int current, std::string_view panel) {
    const int home = home_workspace_of(panel);
    if (home < 0 || home == current) return -1;
    for (const PanelPlace& p : workspace_table()[static_cast<std::size_t>(current)].panels)
        if (panel == p.panel) return -1;
    return home;
}

} // namespace ui
