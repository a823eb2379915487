#include "ui/panels/model/model_scores.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <string>

namespace ui {

namespace {

// The prompt or the probe, and the probe's m and seed; a change runs the prompt again.
void sequence_choice(View& v, ModelService& m) {
    bool changed = false;
    if (ImGui::RadioButton("Prompt", !m.score_probe)) m.score_probe = false, changed = true;
    remember(v, "model scores prompt");
    ImGui::SameLine();
    if (ImGui::RadioButton("Probe", m.score_probe)) m.score_probe = true, changed = true;
    remember(v, "model scores probe");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("m random tokens twice, after BOS: where induction heads show");
    if (m.score_probe) {
        ImGui::SameLine();
        ImGui::SetNextItemWidth(6 * em());
        if (ImGui::InputInt("m", &m.probe_m, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue)) changed = true;
        remember(v, "model scores m");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(6 * em());
        if (ImGui::InputInt("seed", &m.probe_seed, 0, 0, ImGuiInputTextFlags_EnterReturnsTrue)) changed = true;
        remember(v, "model scores seed");
        m.probe_m = std::max(1, m.probe_m);
        m.probe_seed = std::max(0, m.probe_seed);
    }
    if (changed) m.run_prompt();
}

// The table's score columns: the grid's four, then the sink share, which names the heads past
// core::heads::sink_threshold instead of a best one.
constexpr int table_scores = score_count + 1;
core::heads::Score table_score(int k) { return k < score_count ? score_of(k) : core::heads::Score::sink; }

// Heads in the order of the sort: missing scores last either way, ties by head.
std::vector<int> sorted_heads(const std::vector<core::heads::HeadScores>& scores, int column, bool descending) {
    std::vector<int> order(scores.size());
    std::iota(order.begin(), order.end(), 0);
    if (column == 0) {
        if (descending) std::reverse(order.begin(), order.end());
        return order;
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const core::heads::Score score = table_score(column - 1);
        const auto x = core::heads::score_value(scores[static_cast<std::size_t>(a)], score), y = core::heads::score_value(scores[static_cast<std::size_t>(b)], score);
        if (!x || !y) return x.has_value() && !y.has_value();
        return descending ? *x > *y : *x < *y;
    });
    return order;
}

void take_sort(ModelScoresView& st) {
    ImGuiTableSortSpecs* specs = ImGui::TableGetSortSpecs();
    if (!specs || specs->SpecsCount == 0) return;
    st.sort_column = specs->Specs[0].ColumnIndex;
    st.descending = specs->Specs[0].SortDirection == ImGuiSortDirection_Descending;
    specs->SpecsDirty = false;
}

void header_row(View& v) {
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    for (int c = 0; c < 1 + table_scores; ++c) {
        ImGui::TableSetColumnIndex(c);
        ImGui::TableHeader(ImGui::TableGetColumnName(c));
        remember(v, ("model scores header " + std::to_string(c)).c_str());
    }
}

void row(View& v, ModelService& m, const core::heads::HeadScores& sc, int index, const std::vector<int>& best) {
    const int H = m.shown->heads(), l = index / H, h = index % H;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    const std::string name = "L" + std::to_string(l + 1) + " H" + std::to_string(h + 1);
    if (ImGui::Selectable(name.c_str(), l == m.layer && h == m.head, ImGuiSelectableFlags_SpanAllColumns)) m.layer = l, m.head = h;
    remember(v, ("model scores row " + std::to_string(l) + "." + std::to_string(h)).c_str());
    for (int k = 0; k < table_scores; ++k) {
        ImGui::TableSetColumnIndex(k + 1);
        const auto value = core::heads::score_value(sc, table_score(k));
        char text[32];
        if (value) std::snprintf(text, sizeof text, "%.3f", *value);
        else std::snprintf(text, sizeof text, "-");
        const bool sink = k == score_count && value && *value >= core::heads::sink_threshold;
        if (k < score_count && best[static_cast<std::size_t>(k)] == index) ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.2f, 1.0f), "%s best", text);
        else if (sink) ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.2f, 1.0f), "%s sink", text);
        else ImGui::TextUnformatted(text);
    }
}

} // namespace

void draw_model_scores_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelScoresView& st = v.state<ModelScoresView>();
    st.order.clear();
    if (!m.session.has_model()) {
        dim_text("No model is open.");
        return;
    }
    sequence_choice(v, m);
    if (!m.has_attention() || m.shown->scores.empty()) {
        dim_text(m.shown && !m.shown->score_error.empty() ? m.shown->score_error : "The scores appear once the prompt has run.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    dim_text("Scored on " + std::string(s.request.score_ids.empty() ? "the prompt" : "the probe") + ", " +
             std::to_string(s.scored_ids.size()) + " tokens; entropy's best is the lowest; sink: a learned sink's share, else the weight on position 1.");
    const ImGuiTableFlags flags = ImGuiTableFlags_Sortable | ImGuiTableFlags_ScrollY | ImGuiTableFlags_RowBg |
                                  ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_SizingStretchSame;
    if (!ImGui::BeginTable("model scores", 1 + table_scores, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("Head", ImGuiTableColumnFlags_DefaultSort);
    for (int k = 0; k < score_count; ++k)
        ImGui::TableSetupColumn(score_name(k), k == score_entropy ? ImGuiTableColumnFlags_PreferSortAscending : ImGuiTableColumnFlags_PreferSortDescending);
    ImGui::TableSetupColumn("sink", ImGuiTableColumnFlags_PreferSortDescending);
    take_sort(st);
    header_row(v);
    std::vector<int> best;
    for (int k = 0; k < score_count; ++k) best.push_back(core::heads::best_head(s.scores, score_of(k)));
    st.order = sorted_heads(s.scores, st.sort_column, st.descending);
    ImGuiListClipper rows; // the rows in view only: 512 at Llama size, each with its text formatted
    rows.Begin(static_cast<int>(st.order.size()));
    while (rows.Step())
        for (int k = rows.DisplayStart; k < rows.DisplayEnd; ++k) {
            const int index = st.order[static_cast<std::size_t>(k)];
            row(v, m, s.scores[static_cast<std::size_t>(index)], index, best);
        }
    ImGui::EndTable();
}

} // namespace ui
