// ui/panels/explore/calculation.cpp — the selected row's calculation written out (core::explain_row), one
// section per step and one block per head, token names throughout.
#include "ui/panels/explore/calculation.h"
#include "ui/grid.h"

#include "ui/widgets.h"

#include <algorithm>

namespace ui {

namespace {

const ImVec4 masked_text(0.6f, 0.6f, 0.6f, 1.0f);

// One line per key, only the visible ones submitted.
template <class Line>
void key_lines(const char* id, const core::HeadExplanation& he, int columns, Line&& line) {
    const ImGuiTableFlags flags = ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_NoHostExtendX;
    if (!ImGui::BeginTable(id, columns, flags)) return;
    ImGuiListClipper clipper;
    clipper.Begin(static_cast<int>(he.keys.size()));
    while (clipper.Step())
        for (int j = clipper.DisplayStart; j < clipper.DisplayEnd; ++j) {
            ImGui::TableNextRow();
            const core::KeyLine& k = he.keys[j];
            if (k.masked) ImGui::PushStyleColor(ImGuiCol_Text, masked_text);
            line(k);
            if (k.masked) ImGui::PopStyleColor();
        }
    ImGui::EndTable();
}

void section(const char* title, const char* tooltip) {
    ImGui::Spacing();
    ImGui::TextUnformatted(title);
    tip(tooltip);
}

void head_block(const core::HeadExplanation& he, int winner, const CalculationCache& c) {
    const core::StepTitles titles = core::step_titles(he.rule);
    const bool delta = he.rule == core::AttentionRule::delta;
    ImGui::Indent(0.8f * em());
    // Wrapped at the visible right edge: the lines below may make the content wider than the panel.
    const ImGuiStyle& style = ImGui::GetStyle();
    ImGui::PushTextWrapPos(ImGui::GetScrollX() + ImGui::GetWindowWidth() - style.WindowPadding.x - style.ScrollbarSize);
    if (!he.setup.empty()) ImGui::TextWrapped("%s", he.setup.c_str()); // a window, a soft-cap or another factor
    if (!he.rule_line.empty()) ImGui::TextWrapped("%s", he.rule_line.c_str());
    ImGui::PopTextWrapPos();
    section(titles.scores, delta ? "Each token wrote β times its key (divided by its length) into the state, tied to its value. Every "
                                   "later step multiplied it by the decay and erased β of it along that step's own key: w is what is left."
                                 : "Each score is the dot product of the query with one key, then multiplied by the score factor (1/√d_k "
                                   "when scaling is on) and soft-capped if a cap is set. Keys the causal mask or the window hide get −∞.");
    {
        NumberFont mono;
        // Score and scaled score side by side when both fit, else the scaled one under its score.
        const float pad = 1.0f * em(); // each side of each column
        const bool side_by_side = c.score_w + c.scaled_w + 4.0f * pad <= ImGui::GetContentRegionAvail().x;
        ImGui::PushStyleVar(ImGuiStyleVar_CellPadding, ImVec2(pad, ImGui::GetStyle().CellPadding.y));
        key_lines("scores", he, side_by_side ? 2 : 1, [side_by_side](const core::KeyLine& k) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(k.score.c_str());
            if (k.scaled.empty()) return;
            if (side_by_side) ImGui::TableNextColumn();
            else ImGui::Indent(2.0f * em());
            ImGui::TextUnformatted(k.scaled.c_str());
            if (!side_by_side) ImGui::Unindent(2.0f * em());
        });
        ImGui::PopStyleVar();
    }
    if (titles.exps) {
        section(titles.exps, "Softmax raises e to each score; masked keys contribute e^−∞ = 0.");
        NumberFont mono;
        if (!he.shift_note.empty()) ImGui::TextWrapped("(%s)", he.shift_note.c_str());
        key_lines("exps", he, 1, [](const core::KeyLine& k) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(k.exp.c_str());
        });
        ImGui::TextUnformatted(he.exp_sum.c_str());
    }
    section(titles.weights, he.rule == core::AttentionRule::softmax
                                ? "Each exponential divided by their sum: the weights are positive and add up to 1."
                                : "A row of M: signed, and it need not add up to 1.");
    {
        NumberFont mono;
        key_lines("weights", he, 1, [winner](const core::KeyLine& k) {
            ImGui::TableNextColumn();
            if (k.key == winner) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(selection_color()));
            ImGui::TextUnformatted(k.weight.c_str());
            if (k.key == winner) ImGui::PopStyleColor();
        });
    }
    section(titles.sum, "The output is the weights times the value vectors, added up.");
    {
        NumberFont mono;
        ImGui::TextWrapped("%s", he.weighted_sum.c_str());
    }
    ImGui::Unindent(0.8f * em());
}

} // namespace

void draw_calculation_panel(const core::Scenario& s, const core::Result& r, View& v) {
    ImGui::SetNextItemWidth(10.0f * em());
    if (ImGui::BeginCombo("##row", s.tokens[v.selected_row].c_str())) {
        ImGuiListClipper clipper;
        clipper.Begin(s.n());
        while (clipper.Step())
            for (int i = clipper.DisplayStart; i < clipper.DisplayEnd; ++i) {
                ImGui::PushID(i);
                if (ImGui::Selectable(s.tokens[i].c_str(), i == v.selected_row)) v.selected_row = i;
                ImGui::PopID();
            }
        ImGui::EndCombo();
    }
    tip("The query whose calculation is written out (or click a row of the heatmap).");
    ImGui::SameLine();
    ImGui::TextDisabled("the same lines as attnviz --explain");

    if (v.lesson.hides("A", v.selected_row)) { // an open prediction's row
        ImGui::Separator();
        ImGui::TextWrapped("The scores, weights and output of \"%s\" decide your prediction: %s.", s.tokens[v.selected_row].c_str(), reveal_hint);
        return;
    }
    CalculationCache& c = v.state<CalculationCache>();
    if (c.version != v.result_version || c.row != v.selected_row) {
        c.explanation = core::explain_row(s, r, v.selected_row);
        c.version = v.result_version;
        c.row = v.selected_row;
        NumberFont mono;
        c.score_w = c.scaled_w = 0.0f;
        for (const core::HeadExplanation& he : c.explanation.heads)
            for (const core::KeyLine& k : he.keys) {
                c.score_w = std::max(c.score_w, ImGui::CalcTextSize(k.score.c_str()).x);
                c.scaled_w = std::max(c.scaled_w, ImGui::CalcTextSize(k.scaled.c_str()).x);
            }
    }
    const core::RowExplanation& e = c.explanation;
    // Focusing another head (Weights or Heads panel) opens its block and closes the others.
    const bool refocus = c.head != v.selected_head;
    c.head = v.selected_head;
    ImGui::Separator();
    ImGui::BeginChild("lines", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    for (size_t h = 0; h < e.heads.size(); ++h) {
        const core::HeadExplanation& he = e.heads[h];
        const Eigen::Index row = v.selected_row;
        int winner = -1;
        r.heads[h].weights.row(row).maxCoeff(&winner);
        ImGui::PushID(static_cast<int>(h));
        if (e.heads.size() == 1) {
            ImGui::TextUnformatted(he.title.c_str());
            head_block(he, winner, c);
        } else {
            ImGui::SetNextItemOpen(static_cast<int>(h) == v.selected_head, refocus ? ImGuiCond_Always : ImGuiCond_Appearing);
            if (ImGui::CollapsingHeader(he.title.c_str())) head_block(he, winner, c);
        }
        ImGui::PopID();
    }
    if (!e.final_output.empty()) {
        ImGui::Spacing();
        NumberFont mono;
        ImGui::TextWrapped("%s", e.final_output.c_str());
    }
    ImGui::EndChild();
}

} // namespace ui
