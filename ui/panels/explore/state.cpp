// ui/panels/explore/state.cpp — the selected head's state at the selected query (core::state_at), stepping
// through the tokens with ◂ ▸.
#include "ui/panels/explore/state.h"

#include "core/explain.h"
#include "ui/grid.h"
#include "ui/widgets.h"

#include <string>

namespace ui {

namespace {

// ◂ token ▸: the query whose state is shown, the same selection as the heatmap's.
void position_stepper(const core::Scenario& s, View& v) {
    ImGui::BeginDisabled(v.selected_row == 0);
    if (ImGui::ArrowButton("##earlier", ImGuiDir_Left)) --v.selected_row;
    ImGui::EndDisabled();
    remember(v, "state_earlier");
    tip("The state one token earlier.");
    ImGui::SameLine();
    ImGui::Text("after \"%s\" (row %d of %d)", s.tokens[static_cast<size_t>(v.selected_row)].c_str(), v.selected_row + 1, s.n());
    ImGui::SameLine();
    ImGui::BeginDisabled(v.selected_row + 1 >= s.n());
    if (ImGui::ArrowButton("##later", ImGuiDir_Right)) ++v.selected_row;
    ImGui::EndDisabled();
    remember(v, "state_later");
    tip("The state one token later.");
}

} // namespace

void draw_state_panel(const core::Scenario& s, const core::Result& r, View& v) {
    if (s.rule == core::AttentionRule::softmax) {
        ImGui::TextWrapped("Softmax attention keeps no state: every query compares itself with every key again. Choose the "
                           "linear or the delta rule in Controls, and this panel shows the d_k × d_v matrix that carries "
                           "everything the tokens so far wrote.");
        return;
    }
    position_stepper(s, v);
    StateView& sv = v.state<StateView>();
    if (sv.version != v.result_version || sv.head != v.selected_head || sv.row != v.selected_row) {
        sv.state = core::state_at(s, r, v.selected_head, v.selected_row);
        sv.version = v.result_version;
        sv.head = v.selected_head;
        sv.row = v.selected_row;
    }
    const std::string& token = s.tokens[static_cast<size_t>(v.selected_row)];
    const bool delta = s.rule == core::AttentionRule::delta;
    ImGui::TextWrapped("S_%s, %d × %d (d_k × d_v)%s: %s", token.c_str(), s.d_k(), s.d_v(),
                       r.heads.size() > 1 ? (", head " + std::to_string(v.selected_head + 1)).c_str() : "",
                       delta ? "each token decayed it, erased β of it along its key and wrote β k' vᵀ"
                             : "the sum of k vᵀ (times the score factor) over the keys this query sees");
    if (v.lesson.hides("Z", v.selected_row)) {
        ImGui::TextWrapped("The state decides your prediction: %s.", reveal_hint);
        return;
    }
    const core::HeadResult& hr = r.heads[static_cast<size_t>(v.selected_head)];
    {
        NumberFont mono;
        const core::Matrix& q = delta ? hr.q_hat : hr.Q;
        ImGui::TextWrapped("z_%s = %s%s S_%s = %s", token.c_str(), delta ? "q'_" : "q_", token.c_str(), token.c_str(),
                           core::format_vector(hr.output.row(v.selected_row).data(), hr.output.cols()).c_str());
        ImGui::TextDisabled("%s = %s", (std::string(delta ? "q'_" : "q_") + token).c_str(),
                            core::format_vector(q.row(v.selected_row).data(), q.cols()).c_str());
    }
    GridSpec g = value_grid("state", sv.state, static_cast<int>(sv.state.rows()), ImGui::GetContentRegionAvail());
    g.row_header_w = ImGui::CalcTextSize("k 512").x + em();
    g.row_label = [](int row) { return "k " + std::to_string(row + 1); };
    g.col_label = [](int col) { return "v " + std::to_string(col + 1); };
    v.grids["state"] = draw_grid(g);
}

} // namespace ui
