#include "ui/panels/model_importance.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace ui {

namespace {

// Measure / Cancel and the progress of a running measurement.
void controls(View& v, ModelService& m, const core::model::ImportanceRun::State& st) {
    if (st.running) {
        v.motion.moving = true; // the progress bar
        if (ImGui::Button("Cancel")) m.importance.cancel();
        remember(v, "model importance cancel");
        ImGui::SameLine();
        char text[48];
        std::snprintf(text, sizeof text, "%d / %d heads", st.done, st.total);
        ImGui::ProgressBar(st.total > 0 ? static_cast<float>(st.done) / static_cast<float>(st.total) : 0.0f, ImVec2(-1, 0), text);
        return;
    }
    ImGui::BeginDisabled(!m.shown || m.shown->t() < 2);
    if (ImGui::Button(st.result ? "Measure again" : "Measure head importance")) m.importance.start(m.session.opened(), m.shown->ids);
    remember(v, "model importance run");
    ImGui::EndDisabled();
    tip("Zero each head alone and measure the loss on the prompt: Δloss = loss without it − intact loss.");
    if (st.cancelled) {
        ImGui::SameLine();
        dim_text("Cancelled.");
    }
}

// The (layers, heads) map of Δloss; hover names a head's value, a click selects it.
void delta_map(View& v, ModelService& m, const core::model::ImportanceResult& r) {
    ModelImportanceView& st = v.state<ModelImportanceView>();
    const core::Matrix& d = r.importance.delta; // (layers, heads)
    const int L = static_cast<int>(d.rows()), H = static_cast<int>(d.cols());
    ImGui::TextWrapped("Each head zeroed alone: Δloss (intact %.3f nats)", r.importance.loss);
    const double top = std::max(1e-9, d.cwiseAbs().maxCoeff());
    const float label_w = ImGui::CalcTextSize("L00").x + 0.4f * em(), label_h = ImGui::GetTextLineHeightWithSpacing(), bar_w = 5 * em();
    const ImVec2 avail = ImGui::GetContentRegionAvail(), p0 = ImGui::GetCursorScreenPos();
    const float cell = std::max(1.2f * em(), std::min((avail.x - label_w - bar_w) / static_cast<float>(H), (avail.y - label_h) / static_cast<float>(L)));
    const ImVec2 origin(p0.x + label_w, p0.y + label_h);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    for (int h = 0; h < H; ++h) {
        const std::string name = std::to_string(h + 1);
        draw->AddText(ImVec2(origin.x + (static_cast<float>(h) + 0.5f) * cell - ImGui::CalcTextSize(name.c_str()).x / 2, p0.y), text, name.c_str());
    }
    for (int l = 0; l < L; ++l) {
        const std::string name = "L" + std::to_string(l + 1);
        draw->AddText(ImVec2(p0.x, origin.y + (static_cast<float>(l) + 0.5f) * cell - ImGui::GetTextLineHeight() / 2), text, name.c_str());
        for (int h = 0; h < H; ++h) {
            const ImVec2 a(origin.x + static_cast<float>(h) * cell, origin.y + static_cast<float>(l) * cell);
            draw->AddRectFilled(a, ImVec2(a.x + cell - 1, a.y + cell - 1), diverging_color(d(l, h) / top));
            if (l == m.layer && h == m.head) draw->AddRect(a, ImVec2(a.x + cell - 1, a.y + cell - 1), selection_color(), 0, 0, 2.0f);
        }
    }
    v.grids["importance"] = GridGeometry{origin, ImVec2(cell, cell), ImRect(origin, ImVec2(origin.x + cell * static_cast<float>(H), origin.y + cell * static_cast<float>(L)))};
    ImGui::SetCursorScreenPos(origin);
    ImGui::InvisibleButton("importance map", ImVec2(cell * static_cast<float>(H), cell * static_cast<float>(L)));
    if (ImGui::IsItemHovered()) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const int l = std::clamp(static_cast<int>((mouse.y - origin.y) / cell), 0, L - 1), h = std::clamp(static_cast<int>((mouse.x - origin.x) / cell), 0, H - 1);
        st.hovered = l * H + h;
        st.hovered_delta = d(l, h);
        ImGui::SetTooltip("layer %d, head %d\nΔloss %+.4f nats (loss %.4f on %d tokens)", l + 1, h + 1, d(l, h), r.importance.loss + d(l, h),
                          static_cast<int>(r.ids.size()));
        if (ImGui::IsItemClicked()) m.layer = l, m.head = h;
    }
    colour_bar(draw, ImVec2(origin.x + cell * static_cast<float>(H) + 0.5f * em(), origin.y), cell * static_cast<float>(L), top, true);
}

} // namespace

void draw_model_importance_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    v.state<ModelImportanceView>().hovered = -1;
    if (!m.session.has_model()) {
        dim_text("No model is open.");
        return;
    }
    if (!m.session.causal()) {
        dim_text("Head importance measures the loss on the prompt, so it needs a model that predicts the next token.");
        return;
    }
    const core::model::ImportanceRun::State st = m.importance.state();
    controls(v, m, st);
    if (!st.error.empty()) error_text(st.error);
    if (st.result) {
        if (m.shown && st.result->ids != m.shown->ids) dim_text("Measured on an earlier prompt: measure again for this one.");
        delta_map(v, m, *st.result);
    } else if (!st.running) {
        dim_text("Measures each head's share of the prompt's loss, on a worker: the window stays live.");
    }
}

} // namespace ui
