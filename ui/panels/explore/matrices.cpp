// ui/panels/explore/matrices.cpp — Q, K, V, QKᵀ, QKᵀ/√d_k, A and Z of the selected head, colour-coded.
#include "ui/panels/explore/matrices.h"

#include "core/explain.h"
#include "ui/grid.h"
#include "ui/panels/shared/matrix_menu.h"
#include "ui/widgets.h"

#include <algorithm>

namespace ui {

namespace {

enum class Colors { diverging, weights };

struct MatrixView {
    const char* name;         // key in View::grids
    std::string title;        // "QKᵀ / √2"
    std::string formula;      // "Q · Kᵀ"
    const core::Matrix* m;
    bool key_columns;         // columns are keys (tokens), not dimensions
    Colors colors;
    bool show_mask;           // masked entries read −∞ (scores) or 0 (weights)
};

// What the matrix that mixes the values is, under each attention rule.
const char* m_description(core::AttentionRule rule) {
    switch (rule) {
    case core::AttentionRule::linear: return "the scaled scores, no softmax";
    case core::AttentionRule::delta: return "the delta rule's matrix";
    case core::AttentionRule::softmax: break;
    }
    return "softmax of each row";
}

// `hidden`: the rows an open prediction keeps hidden, drawn as "?" (View::lesson).
void draw_matrix(const MatrixView& mv, const core::Scenario& s, View& v, float max_h, bool first, const std::vector<char>& hidden) {
    const core::Matrix& m = *mv.m;
    const NumberRange range = result_range(m, v);
    const double scale = range.max_abs > 0.0 ? range.max_abs : 1.0;
    const float label_w = std::min(token_label_width(s), 7.0f * em()) + 0.8f * em();

    GridSpec g;
    g.id = mv.name;
    g.rows = static_cast<int>(m.rows());
    g.cols = static_cast<int>(m.cols());
    g.cell_h = ImGui::GetFrameHeight();
    g.cell_w = std::max(3.0f * em(), number_cell_width(number_chars(range.max_abs, range.all_integers)));
    g.row_header_w = label_w;
    g.max_size = ImVec2(ImGui::GetContentRegionAvail().x, max_h);
    g.highlight_row = v.selected_row;
    g.row_label = [&s](int r) { return s.tokens[r]; };
    g.col_label = [&](int c) { return mv.key_columns ? s.tokens[c] : std::to_string(c + 1); };
    g.cell = [&](int r, int c, const ImRect& rect) {
        if (hidden_at(hidden, r)) return draw_hidden_cell(rect);
        const double x = m(r, c);
        const bool masked = mv.show_mask && core::is_masked(s, r, c);
        const ImU32 bg = masked ? masked_color() : mv.colors == Colors::weights ? sequential_color(x) : diverging_color(x / scale);
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(rect.Min.x + 1, rect.Min.y + 1), ImVec2(rect.Max.x - 1, rect.Max.y - 1), bg);
        const std::string text = masked && mv.colors == Colors::weights ? "0" : core::format_number(x);
        NumberFont mono;
        cell_text(rect, text, masked ? IM_COL32(170, 170, 170, 255) : text_color_on(bg));
    };
    g.cell_tooltip = [&](int r, int c) {
        const std::string row = "\"" + s.tokens[r] + "\"";
        const std::string col = mv.key_columns ? "\"" + s.tokens[c] + "\"" : "dimension " + std::to_string(c + 1);
        if (hidden_at(hidden, r))
            ImGui::SetTooltip("%s[%s, %s]: %s", mv.name, row.c_str(), col.c_str(), reveal_hint);
        else if (mv.show_mask && core::is_masked(s, r, c))
            ImGui::SetTooltip("%s[%s, %s]: masked, %s comes after %s", mv.name, row.c_str(), col.c_str(), col.c_str(), row.c_str());
        else
            ImGui::SetTooltip("%s[%s, %s] = %.6g", mv.name, row.c_str(), col.c_str(), m(r, c));
    };

    const std::string shape = "(" + std::to_string(g.rows) + " × " + std::to_string(g.cols) + ")";
    const std::string heading = mv.title + "  " + shape + (mv.formula.empty() ? "" : "  = " + mv.formula);
    flow(std::max(grid_size(g).x, ImGui::CalcTextSize(heading.c_str()).x), first);
    ImGui::BeginGroup();
    ImGui::TextUnformatted(mv.title.c_str());
    matrix_menu(mv.name, m, {s.tokens, mv.key_columns ? s.tokens : std::vector<std::string>{}}, v);
    ImGui::SameLine();
    ImGui::TextDisabled("%s", shape.c_str());
    if (!mv.formula.empty()) {
        ImGui::SameLine();
        ImGui::TextDisabled("= %s", mv.formula.c_str());
    }
    const GridGeometry& geometry = v.grids[mv.name] = draw_grid(g);
    outline_highlights(v, mv.name == std::string("QKT") ? "scores" : mv.name, geometry, g.rows, g.cols);
    ImGui::EndGroup();
}

} // namespace

void draw_matrices_panel(const core::Scenario& s, const core::Result& r, View& v) {
    const int h = v.selected_head;
    const core::HeadResult& hr = r.heads[h];
    if (r.heads.size() > 1) ImGui::Text("Head %d of %d", h + 1, static_cast<int>(r.heads.size()));
    const std::string x = s.positional == core::Positional::sinusoidal ? "(X + PE)" : "X";
    if (s.direct) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(selection_color()), "Q, K and V are given directly by this scenario.");
        tip("There is no X and there are no W's: edit Q, K and V in the Weights panel.");
    }
    if (s.positional == core::Positional::sinusoidal) {
        ImGui::TextDisabled("X + PE: sinusoidal positions are added to the embeddings first.");
    }
    if (s.pin && s.pin->head == h) {
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(selection_color()), "Row \"%s\" of Q is pinned by the query arrow.",
                           s.tokens[s.pin->row].c_str());
        tip("Release the pin in the query arrow panel to go back to X · W_Q for that row.");
    }
    const std::string scaled = core::logit_formula(s, "QKᵀ");
    const bool signed_rule = s.rule != core::AttentionRule::softmax; // M's entries can be negative
    const MatrixView views[] = {
        {"Q", "Q", s.direct ? "given" : x + " · W_Q", &hr.Q, false, Colors::diverging, false},
        {"K", "K", s.direct ? "given" : x + " · W_K", &hr.K, false, Colors::diverging, false},
        {"V", "V", s.direct ? "given" : x + " · W_V", &hr.V, false, Colors::diverging, false},
        {"QKT", "QKᵀ", "scores q_i · k_j", &hr.scores, true, Colors::diverging, false},
        {"scaled", scaled, core::mask_description(s), &hr.scaled, true, Colors::diverging, true},
        {"A", signed_rule ? "M" : "A", m_description(s.rule), &hr.weights, true, signed_rule ? Colors::diverging : Colors::weights, true},
        {"Z", "Z", signed_rule ? "M · V" : "A · V", &hr.output, false, Colors::diverging, false},
    };
    const float avail_h = ImGui::GetContentRegionAvail().y;
    // Up to 8 rows each before a grid scrolls; more when the panel is tall.
    const float max_h = std::max(9.0f * ImGui::GetFrameHeight(), avail_h * 0.45f);
    bool first = true;
    for (const MatrixView& mv : views) {
        draw_matrix(mv, s, v, max_h, first, v.lesson.hidden_rows(mv.name == std::string("QKT") ? "scores" : mv.name, s.n()));
        first = false;
    }
    if (r.heads.size() > 1 || s.W_O.size() != 0) {
        const MatrixView out{"output", "Output", s.W_O.size() != 0 ? "concat(Z_1 … Z_h) · W_O" : "concat(Z_1 … Z_h)",
                             &r.output, false, Colors::diverging, false};
        draw_matrix(out, s, v, max_h, false, v.lesson.hidden_rows("Z", s.n()));
    }
}

} // namespace ui
