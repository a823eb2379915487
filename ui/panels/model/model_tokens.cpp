#include "ui/panels/model/model_tokens.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

namespace ui {

namespace {

constexpr int max_chips = 2048; // beyond this the prompt is read in the maps, not as chips

} // namespace

void draw_model_tokens_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    if (!m.shown || m.shown->t() == 0) {
        dim_text(m.session.has_model() ? "Type a prompt to see its tokens." : "No model is open.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    const int selected = m.query_position();
    const ImGuiStyle& style = ImGui::GetStyle();
    const int count = std::min(s.t(), max_chips);
    for (int i = 0; i < count; ++i) {
        const std::size_t k = static_cast<std::size_t>(i);
        const std::string label = fit_text(s.labels[k], 12 * em());
        const float w = ImGui::CalcTextSize(label.c_str()).x + 2 * style.FramePadding.x;
        if (i > 0) same_line_if_fits(w);
        ImGui::PushID(i);
        const bool chosen = i == selected;
        if (chosen) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
        else if (s.special[k]) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_FrameBg));
        if (ImGui::Button(label.c_str())) m.query = i;
        if (chosen || s.special[k]) ImGui::PopStyleColor();
        remember(v, ("model chip " + std::to_string(i)).c_str());
        if (ImGui::IsItemHovered()) {
            m.hovered = i;
            ImGui::SetTooltip("position %d · id %d\n%s%s", i + 1, s.ids[k], s.tokens[k].c_str(), s.special[k] ? "\nadded by the tokenizer" : "");
        }
        ImGui::PopID();
    }
    if (count < s.t()) dim_text("… and " + std::to_string(s.t() - count) + " more tokens");
}

} // namespace ui
