#include "ui/panels/model_predictions.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include <cstdio>

namespace ui {

namespace {

void table(ModelPredictionsView& st, const std::vector<core::model::Prediction>& top) {
    const float name_w = 10 * em();
    for (const core::model::Prediction& p : top) {
        st.shown.push_back(p.id);
        ImGui::TextUnformatted(fit_text(p.token, name_w).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("id %d", p.id);
        ImGui::SameLine(name_w + ImGui::GetStyle().WindowPadding.x);
        char text[32];
        std::snprintf(text, sizeof text, "%5.1f %%", 100.0 * static_cast<double>(p.probability));
        ImGui::ProgressBar(p.probability, ImVec2(-1, 0), text);
    }
}

} // namespace

void draw_model_predictions_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelPredictionsView& st = v.state<ModelPredictionsView>();
    st.shown.clear();
    if (!m.shown || m.shown->t() == 0) {
        dim_text(m.session.has_model() ? "Predictions appear once the prompt has run." : "No model is open.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    if (m.session.causal()) {
        const int i = m.query_position();
        ImGui::TextUnformatted(fit_text("After \"" + s.labels[static_cast<std::size_t>(i)] + "\" (position " + std::to_string(i) + "):",
                                        ImGui::GetContentRegionAvail().x).c_str());
        if (s.top[static_cast<std::size_t>(i)].empty()) dim_text("This model has no language-model head.");
        ImGui::BeginChild("top", ImVec2(0, 0)); // scrolls when the panel is shorter than ten rows
        table(st, s.top[static_cast<std::size_t>(i)]);
        ImGui::EndChild();
        return;
    }
    ImGui::BeginChild("masks", ImVec2(0, 0));
    bool any = false;
    for (int i = 0; i < s.t(); ++i) {
        if (s.top[static_cast<std::size_t>(i)].empty()) continue;
        any = true;
        ImGui::Text("[MASK] at position %d:", i);
        table(st, s.top[static_cast<std::size_t>(i)]);
        ImGui::Spacing();
    }
    if (!any) dim_text("Put [MASK] in the prompt to see what the model would fill in there.");
    ImGui::EndChild();
}

} // namespace ui
