#include "ui/panels/model/model_rollout.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include "core/model/memory.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace ui {

namespace {

// The row labels, as many as fit one line each.
void row_labels(ImDrawList* draw, const core::model::Snapshot& s, ImVec2 at, float cell, float width) {
    const float line = ImGui::GetTextLineHeight();
    const int every = std::max(1, static_cast<int>(line / std::max(cell, 1.0f)) + 1);
    for (int i = 0; i < s.t(); i += every) {
        const std::string text = fit_text(s.labels[static_cast<std::size_t>(i)], width - 0.3f * em());
        draw->AddText(ImVec2(at.x + width - 0.3f * em() - ImGui::CalcTextSize(text.c_str()).x, at.y + (static_cast<float>(i) + 0.5f) * cell - line / 2),
                      ImGui::GetColorU32(ImGuiCol_Text), text.c_str());
    }
}

} // namespace

void draw_model_rollout_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelRolloutView& st = v.state<ModelRolloutView>();
    st.hovered_row = st.hovered_column = -1;
    if (m.has_attention() && m.shown->t() > core::model::rollout_most) {
        const std::uint64_t t = static_cast<std::uint64_t>(m.shown->t());
        dim_text("The rollout is computed up to " + std::to_string(core::model::rollout_most) + " tokens: its four (t, t) matrices would take " +
                 core::model::bytes_text(4 * 4 * t * t) + " here.");
        return;
    }
    if (!m.has_attention() || m.shown->rollout.rows() != m.shown->t()) {
        dim_text(m.session.has_model() ? "The rollout appears once the prompt has run." : "No model is open.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    const core::model::MatrixF& R = s.rollout; // (t, t)
    const int t = s.t();
    dim_text("Row: a position after the last layer; column: the input token it draws on (heads averaged, + I, layer by layer).");
    const SquareMap map = square_map_layout(s.labels, 6);
    const float label_w = map.label_w, side = map.side;
    const ImVec2 p0 = map.p0;
    const float cell = side / static_cast<float>(t);
    const ImVec2 origin(p0.x + label_w, p0.y);
    const float top = std::max(1e-6f, R.maxCoeff());
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int i = 0; i < t; ++i)
        for (int j = 0; j < t; ++j) {
            const ImVec2 a(origin.x + static_cast<float>(j) * cell, origin.y + static_cast<float>(i) * cell);
            draw->AddRectFilled(a, ImVec2(a.x + cell + 0.5f, a.y + cell + 0.5f), sequential_color(R(i, j) / top));
        }
    row_labels(draw, s, p0, cell, label_w);
    column_labels(draw, s.labels, 0, t, origin.x, cell, origin.y + side + 0.2f * em(), p0.x, origin.x + side);
    v.grids["rollout"] = GridGeometry{origin, ImVec2(cell, cell), ImRect(origin, ImVec2(origin.x + side, origin.y + side))};
    colour_bar(draw, ImVec2(origin.x + side + 0.5f * em(), origin.y), side, top);
    ImGui::SetCursorScreenPos(origin);
    ImGui::InvisibleButton("rollout map", ImVec2(side, side));
    if (ImGui::IsItemHovered()) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const int i = std::clamp(static_cast<int>((mouse.y - origin.y) / cell), 0, t - 1), j = std::clamp(static_cast<int>((mouse.x - origin.x) / cell), 0, t - 1);
        st.hovered_row = i, st.hovered_column = j, st.hovered_value = R(i, j);
        ImGui::SetTooltip("position %d (%s) after the last layer\ndraws %.4f on input %d (%s)", i + 1, s.labels[static_cast<std::size_t>(i)].c_str(),
                          static_cast<double>(R(i, j)), j + 1, s.labels[static_cast<std::size_t>(j)].c_str());
        if (ImGui::IsItemClicked()) m.query = i;
    }
}

} // namespace ui
