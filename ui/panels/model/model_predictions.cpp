#include "ui/panels/model/model_predictions.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include <cstdio>

namespace ui {

namespace {

void list(std::vector<int>& shown, const std::vector<core::model::Prediction>& top, float name_w) {
    for (const core::model::Prediction& p : top) {
        shown.push_back(p.id);
        ImGui::TextUnformatted(fit_text(p.token, name_w).c_str());
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("id %d", p.id);
        ImGui::SameLine(ImGui::GetCursorPosX() + name_w);
        char text[32];
        std::snprintf(text, sizeof text, "%5.1f %%", 100.0 * static_cast<double>(p.probability));
        ImGui::ProgressBar(p.probability, ImVec2(-1, 0), text);
    }
}

// One list, or with knock-outs the knocked-out model's beside the intact one's.
void table(ModelPredictionsView& st, const core::model::Snapshot& s, int i) {
    const auto& top = s.top[static_cast<std::size_t>(i)];
    if (!s.has_intact) {
        list(st.shown, top, 10 * em());
        return;
    }
    if (!ImGui::BeginTable("knocked out and intact", 2, ImGuiTableFlags_SizingStretchSame)) return;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted("Knocked out");
    list(st.shown, top, 6 * em());
    ImGui::TableSetColumnIndex(1);
    ImGui::TextUnformatted("Intact");
    list(st.intact_shown, s.intact_top[static_cast<std::size_t>(i)], 6 * em());
    ImGui::EndTable();
}

void loss_line(ModelPredictionsView& st, const core::model::Snapshot& s) {
    if (!s.has_loss) return;
    st.loss = s.loss;
    st.intact_loss = s.has_intact ? s.intact_loss : s.loss;
    if (s.has_intact)
        ImGui::Text("Loss on the prompt: %.3f nats (intact %.3f, %+.3f)", s.loss, s.intact_loss, s.loss - s.intact_loss);
    else
        ImGui::Text("Loss on the prompt: %.3f nats", s.loss);
}

} // namespace

void draw_model_predictions_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelPredictionsView& st = v.state<ModelPredictionsView>();
    st.shown.clear();
    st.intact_shown.clear();
    if (!m.shown || m.shown->t() == 0) {
        dim_text(m.session.has_model() ? "Predictions appear once the prompt has run." : "No model is open.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    if (m.session.causal()) {
        const int i = m.query_position();
        loss_line(st, s);
        ImGui::TextUnformatted(fit_text("After \"" + s.labels[static_cast<std::size_t>(i)] + "\" (position " + std::to_string(i + 1) + "):",
                                        ImGui::GetContentRegionAvail().x).c_str());
        if (s.top[static_cast<std::size_t>(i)].empty()) dim_text("This model has no language-model head.");
        ImGui::BeginChild("top", ImVec2(0, 0)); // scrolls when the panel is shorter than ten rows
        table(st, s, i);
        ImGui::EndChild();
        return;
    }
    ImGui::BeginChild("masks", ImVec2(0, 0));
    bool any = false;
    for (int i = 0; i < s.t(); ++i) {
        if (s.top[static_cast<std::size_t>(i)].empty()) continue;
        any = true;
        ImGui::Text("[MASK] at position %d:", i + 1);
        table(st, s, i);
        ImGui::Spacing();
    }
    if (!any) dim_text("Put [MASK] in the prompt to see what the model would fill in there.");
    ImGui::EndChild();
}

} // namespace ui
