// ui/panels/explore/weights.cpp — W_Q, W_K, W_V of the selected head, edited in place; d_k and d_v. When
// the scenario gives Q, K and V directly, they are the inputs and are edited here instead.
#include "ui/panels/explore/weights.h"

#include "core/edits.h"
#include "ui/grid.h"
#include "ui/widgets.h"

#include <algorithm>

namespace ui {

namespace {

GridSpec weight_spec(const char* name, core::Scenario& s, core::edits::Which which, float max_h, View& v) {
    GridSpec g = number_grid(name, s, which, v.selected_head, ImVec2(ImGui::GetContentRegionAvail().x, max_h), v);
    g.row_header_w = ImGui::CalcTextSize("512").x + em();
    g.col_label = [](int c) { return std::to_string(c + 1); };
    g.row_label = [](int r) { return std::to_string(r + 1); };
    g.cell_tooltip = [name](int r, int c) {
        ImGui::SetTooltip("%s[%d][%d]: how much embedding dimension %d adds to output dimension %d.\n"
                          "Drag (Shift: faster, Alt: slower), or double-click and type.",
                          name, r + 1, c + 1, r + 1, c + 1);
    };
    return g;
}

// Q, K or V given directly: one row per token, edited like the weights.
GridSpec given_spec(const char* name, const char* grid_id, core::Scenario& s, core::edits::Which which, float max_h, View& v) {
    GridSpec g = number_grid(grid_id, s, which, v.selected_head, ImVec2(ImGui::GetContentRegionAvail().x, max_h), v);
    g.row_header_w = std::min(token_label_width(s), 7.0f * em()) + 0.8f * em();
    g.highlight_row = v.selected_row;
    g.col_label = [](int c) { return std::to_string(c + 1); };
    g.row_label = [&s](int r) { return s.tokens[r]; };
    g.cell_tooltip = [name, &s](int r, int c) {
        ImGui::SetTooltip("%s[%s][%d], given by the scenario.\nDrag (Shift: faster, Alt: slower), or double-click and type.",
                          name, s.tokens[r].c_str(), c + 1);
    };
    return g;
}

} // namespace

void draw_weights_panel(core::Scenario& s, View& v) {
    int d_k = s.d_k(), d_v = s.d_v();
    if (dimension_input("d_k", d_k, 1, core::Limits::max_dim,
                        s.direct ? "Length of queries and keys: the columns of Q and K, in every head. New entries are 0."
                                 : "Length of queries and keys: the columns of W_Q and W_K, in every head. New entries are 0.",
                        v))
        core::edits::set_d_k(s, d_k);
    ImGui::SameLine(0, 1.5f * em());
    if (dimension_input("d_v", d_v, 1, core::Limits::max_dim,
                        s.direct ? "Length of values and outputs: the columns of V, in every head. New entries are 0."
                                 : "Length of values and outputs: the columns of W_V, in every head. New entries are 0.",
                        v))
        core::edits::set_d_v(s, d_v);

    const int heads = static_cast<int>(s.heads.size());
    if (heads > 1) {
        ImGui::SameLine(0, 1.5f * em());
        ImGui::SetNextItemWidth(6.0f * em());
        const std::string current = "Head " + std::to_string(v.selected_head + 1);
        if (ImGui::BeginCombo("##head", current.c_str())) {
            for (int h = 0; h < heads; ++h)
                if (ImGui::Selectable(("Head " + std::to_string(h + 1)).c_str(), h == v.selected_head)) v.selected_head = h;
            ImGui::EndCombo();
        }
        remember(v, "head");
        tip(s.direct ? "Which head's Q, K and V to edit; the matrices, heatmap and query arrow show the same head."
                     : "Which head's weights to edit; the matrices, heatmap and query arrow show the same head.");
    }

    if (s.direct)
        ImGui::TextWrapped("This scenario gives Q, K and V directly: there are no W_Q, W_K and W_V. Q, K and V are the "
                           "inputs; edit them here.");
    // Side by side when they fit, otherwise one under the other; each scrolls past a third of the panel.
    const float max_h = std::max(6.0f * ImGui::GetFrameHeight(), ImGui::GetContentRegionAvail().y / 3.0f - ImGui::GetFrameHeightWithSpacing());
    using core::edits::Which;
    struct Item { const char* name; const char* grid; const char* role; Which which; };
    const Item weights[] = {
        {"W_Q", "W_Q", "Queries: Q = X · W_Q. One row per embedding dimension, one column per query dimension.", Which::W_Q},
        {"W_K", "W_K", "Keys: K = X · W_K. One row per embedding dimension, one column per key dimension.", Which::W_K},
        {"W_V", "W_V", "Values: V = X · W_V. One row per embedding dimension, one column per value dimension.", Which::W_V},
    };
    // Grid names of their own: the Matrices panel records "Q", "K" and "V" (its results).
    const Item given[] = {
        {"Q", "Q given", "The queries, given by the scenario: one row per token. Editing one changes its scores at once.", Which::Q},
        {"K", "K given", "The keys, given by the scenario: one row per token.", Which::K},
        {"V", "V given", "The values, given by the scenario: one row per token; the outputs mix them.", Which::V},
    };
    for (size_t i = 0; i < 3; ++i) {
        const Item& it = s.direct ? given[i] : weights[i];
        const GridSpec g = s.direct ? given_spec(it.name, it.grid, s, it.which, max_h, v) : weight_spec(it.name, s, it.which, max_h, v);
        const std::string title = std::string(it.name) + "  (" + std::to_string(g.rows) + " × " + std::to_string(g.cols) + ")";
        flow(std::max(grid_size(g).x, ImGui::CalcTextSize(title.c_str()).x), i == 0);
        ImGui::BeginGroup();
        ImGui::TextUnformatted(title.c_str());
        tip(it.role);
        v.grids[it.grid] = draw_grid(g);
        ImGui::EndGroup();
    }
}

} // namespace ui
