// ui/panels/explore/tokens.cpp — token names and embeddings (X), edited in place; d_model. A scenario that
// gives Q, K and V directly has no X: then only the names are here.
#include "ui/panels/explore/tokens.h"

#include "core/edits.h"
#include "ui/grid.h"
#include "ui/widgets.h"

#include <imgui_stdlib.h>

#include <algorithm>

namespace ui {

void draw_tokens_panel(core::Scenario& s, View& v) {
    if (s.direct) {
        ImGui::TextWrapped("This scenario gives Q, K and V directly: there are no embeddings X. Edit Q, K and V in the "
                           "Weights panel; name, add, move and remove tokens here.");
    } else {
        int d_model = s.d_model();
        if (dimension_input("d_model", d_model, 1, core::Limits::max_dim,
                            "Width of each embedding. Adds or drops a column of X, a row of every W_Q, W_K, W_V "
                            "(and a column of W_O) at once; new entries are 0.",
                            v))
            core::edits::set_d_model(s, d_model);
        ImGui::SameLine(0, 1.5f * em());
    }
    ImGui::BeginDisabled(s.n() >= core::Limits::max_tokens);
    if (ImGui::Button("+ Token")) {
        core::edits::add_token(s, core::edits::unused_token_name(s));
        v.selected_row = s.n() - 1;
    }
    ImGui::EndDisabled();
    remember(v, "add_token");
    tip(s.direct ? "Append a token whose query, key and value are 0; give them numbers in the Weights panel."
                 : "Append a token with a zero embedding; rename it and give it numbers in its row.");
    ImGui::SameLine();
    if (s.direct) {
        ImGui::TextDisabled("%d tokens, no X", s.n());
    } else {
        ImGui::TextDisabled("X: %d × %d", s.n(), s.d_model());
        tip("Rows are tokens, columns are embedding dimensions.");
    }

    // Structural edits are applied after the grid, never while its rows are being drawn.
    int remove = -1, move = -1, move_by = 0;
    const float button = ImGui::GetFrameHeight();
    const float spacing = ImGui::GetStyle().ItemInnerSpacing.x;
    const float name_w = 5.0f * em();

    GridSpec g = number_grid("X", s, core::edits::Which::X, 0, ImGui::GetContentRegionAvail(), v);
    g.rows = s.n(); // X has no rows when Q, K and V are given: the names still have theirs
    g.row_header_w = 3.0f * (button + spacing) + name_w + 0.5f * em();
    g.highlight_row = v.selected_row;
    g.col_label = [](int c) { return std::to_string(c + 1); };
    g.row_header = [&](int r, const ImRect& rect) {
        ImGui::SetCursorScreenPos(ImVec2(rect.Min.x + 0.2f * em(), rect.Min.y));
        ImGui::BeginDisabled(r == 0);
        if (ImGui::ArrowButton("up", ImGuiDir_Up)) move = r, move_by = -1;
        ImGui::EndDisabled();
        tip("Move this token one place up");
        ImGui::SameLine(0, spacing);
        ImGui::BeginDisabled(r == s.n() - 1);
        if (ImGui::ArrowButton("down", ImGuiDir_Down)) move = r, move_by = 1;
        ImGui::EndDisabled();
        tip("Move this token one place down");
        ImGui::SameLine(0, spacing);
        ImGui::BeginDisabled(s.n() == 1);
        if (ImGui::Button("×", ImVec2(button, button))) remove = r;
        ImGui::EndDisabled();
        tip("Remove this token (at least one must stay)");
        ImGui::SameLine(0, spacing);
        ImGui::SetNextItemWidth(name_w);
        if (r == v.selected_row) ImGui::PushStyleColor(ImGuiCol_Text, selection_color());
        std::string name = s.tokens[r];
        if (ImGui::InputText("##name", &name)) core::edits::rename_token(s, r, std::move(name));
        if (r == v.selected_row) ImGui::PopStyleColor();
        tip("Token name, used in every panel");
    };
    g.cell_tooltip = [&](int r, int c) {
        ImGui::SetTooltip("X[%s][%d]: dimension %d of \"%s\"'s embedding.\nDrag (Shift: faster, Alt: slower), or double-click and type.",
                          s.tokens[r].c_str(), c + 1, c + 1, s.tokens[r].c_str());
    };
    outline_highlights(v, "X", v.grids["X"] = draw_grid(g), g.rows, g.cols);

    if (move >= 0 && core::edits::move_token(s, move, move_by) && v.selected_row == move) v.selected_row = move + move_by;
    if (remove >= 0 && core::edits::remove_token(s, remove) && v.selected_row > remove) --v.selected_row;
}

} // namespace ui
