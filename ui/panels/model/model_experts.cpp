#include "ui/panels/model/model_experts.h"
#include "ui/model_service.h"

#include "ui/grid.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cstdio>
#include <string>

// [SECTION] the routing map
// [SECTION] load and one position's route
// [SECTION] expert importance
// [SECTION] the panel

namespace ui {

namespace {

using core::model::LayerRouting;

bool chosen_by(const LayerRouting& r, int i, int e) {
    const int* row = r.chosen.data() + static_cast<std::ptrdiff_t>(i) * r.top_k;
    return std::find(row, row + r.top_k, e) != row + r.top_k;
}

// The weight the chosen expert e has at position i (0 when knocked out), or -1 when not chosen.
double weight_of(const LayerRouting& r, int i, int e) {
    for (int k = 0; k < r.top_k; ++k)
        if (r.chosen[static_cast<std::size_t>(i * r.top_k + k)] == e) return r.weights(i, k);
    return -1.0;
}

// [SECTION] the routing map

void routing_cell(const ModelService& m, const LayerRouting& r, int i, int e, const ImRect& rect) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(rect.Min, rect.Max, sequential_color(r.probabilities(i, e)));
    if (m.expert_knocked_out(r.layer, e)) { // a cross over the column: nothing of it reaches the stream
        draw->AddLine(rect.Min, rect.Max, IM_COL32(230, 60, 60, 255), 1.5f);
        draw->AddLine(ImVec2(rect.Min.x, rect.Max.y), ImVec2(rect.Max.x, rect.Min.y), IM_COL32(230, 60, 60, 255), 1.5f);
    }
    if (chosen_by(r, i, e)) draw->AddRect(rect.Min, ImVec2(rect.Max.x - 1, rect.Max.y - 1), IM_COL32(255, 255, 255, 235), 0, 0, 2.0f);
}

void routing_tooltip(ModelService& m, ModelExpertsView& st, const LayerRouting& r, int i, int e) {
    st.hovered = i * r.experts + e;
    st.hovered_probability = r.probabilities(i, e);
    const double w = weight_of(r, i, e);
    char chosen[40];
    std::snprintf(chosen, sizeof chosen, "chosen, weight %.3f", w);
    const std::string route = w < 0 ? "not chosen" : m.expert_knocked_out(r.layer, e) ? "chosen, knocked out: weight 0" : chosen;
    ImGui::SetTooltip("position %d (%s), layer %d, expert %d\nrouter probability %.3f; %s", i + 1, m.shown->labels[static_cast<std::size_t>(i)].c_str(),
                      r.layer + 1, e + 1, r.probabilities(i, e), route.c_str());
    if (!ImGui::IsMouseClicked(ImGuiMouseButton_Left)) return;
    if (ImGui::GetIO().KeyCtrl || m.knockout_mode) m.toggle_expert_knockout(r.layer, e);
    else st.position = i;
}

void routing_map(View& v, ModelService& m, ModelExpertsView& st, const LayerRouting& r) {
    GridSpec g;
    g.id = "experts";
    g.rows = m.shown->t();
    g.cols = r.experts;
    g.cell_w = std::max(1.2f * em(), ImGui::CalcTextSize(("E" + std::to_string(r.experts)).c_str()).x + 0.4f * em());
    g.cell_h = ImGui::GetTextLineHeightWithSpacing();
    g.row_header_w = 7 * em();
    // As tall as the positions need, leaving the load bars below their room (the panel scrolls
    // to a clicked position's route).
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float needed = (static_cast<float>(g.rows) + 1.5f) * g.cell_h;
    g.max_size = ImVec2(avail.x, std::max(0.5f * avail.y, std::min(needed, avail.y - 4.5f * em())));
    g.highlight_row = st.position;
    g.row_label = [&](int i) { return fit_text(std::to_string(i + 1) + " " + m.shown->labels[static_cast<std::size_t>(i)], g.row_header_w); };
    g.col_label = [](int e) { return "E" + std::to_string(e + 1); };
    g.cell = [&](int i, int e, const ImRect& rect) { routing_cell(m, r, i, e, rect); };
    g.cell_tooltip = [&](int i, int e) { routing_tooltip(m, st, r, i, e); };
    v.grids[g.id] = draw_grid(g);
}

// [SECTION] load and one position's route

// Each expert's share of the positions that chose it, as bars under the map.
void load_bars(View& v, ModelExpertsView& st, const LayerRouting& r, int t) {
    st.load.assign(static_cast<std::size_t>(r.experts), 0.0f);
    for (const int e : r.chosen) st.load[static_cast<std::size_t>(e)] += 1.0f / static_cast<float>(t);
    ImGui::Text("Load: each expert's share of the %d positions", t);
    ImGui::PlotHistogram("##expert load", st.load.data(), r.experts, 0, nullptr, 0.0f, 1.0f, ImVec2(ImGui::GetContentRegionAvail().x, 2 * em()));
    remember(v, "model experts load");
    if (!ImGui::IsItemHovered()) return;
    const ImRect bars(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    const int e = std::clamp(static_cast<int>((ImGui::GetIO().MousePos.x - bars.Min.x) / std::max(1.0f, bars.GetWidth()) * static_cast<float>(r.experts)), 0,
                             r.experts - 1);
    ImGui::SetTooltip("expert %d: chosen at %.0f of %d positions", e + 1, static_cast<double>(st.load[static_cast<std::size_t>(e)]) * t, t);
}

// The experts the clicked position went to in every mixture layer, with their weights.
void position_route(const ModelService& m, const ModelExpertsView& st) {
    if (st.position < 0 || st.position >= m.shown->t()) return;
    ImGui::Text("Position %d (%s) went to:", st.position + 1, m.shown->labels[static_cast<std::size_t>(st.position)].c_str());
    for (const LayerRouting& r : m.shown->result.routing) {
        std::string line = "layer " + std::to_string(r.layer + 1) + ":";
        for (int k = 0; k < r.top_k; ++k) {
            char item[48];
            std::snprintf(item, sizeof item, " E%d %.3f", r.chosen[static_cast<std::size_t>(st.position * r.top_k + k)] + 1, r.weights(st.position, k));
            line += item;
        }
        ImGui::TextUnformatted(line.c_str());
    }
}

// [SECTION] expert importance

void importance_controls(View& v, ModelService& m, const core::model::ImportanceRun::State& s) {
    if (s.running) {
        if (cancel_and_progress(v, "model experts importance cancel", s.done, s.total, "experts")) m.expert_importance.cancel();
        return;
    }
    ImGui::BeginDisabled(m.shown->t() < 2 || !m.session.causal());
    if (ImGui::Button(s.result ? "Measure again##experts" : "Measure expert importance")) m.expert_importance.start(m.session.opened(), m.shown->ids);
    remember(v, "model experts importance run");
    ImGui::EndDisabled();
    tip("Knock each expert out alone and measure the loss on the prompt: Δloss = loss without it − intact loss.");
    if (!s.error.empty()) error_text(s.error);
}

// The (mixture layers, experts) map of Δloss; a click shows that layer's routing.
void importance_map(View& v, ModelExpertsView& st, const core::model::ExpertImportance& x) {
    const core::Matrix& d = x.delta;
    const double top = std::max(1e-9, d.cwiseAbs().maxCoeff());
    ImGui::Text("Each expert knocked out alone: Δloss (intact %.3f nats)", x.loss);
    GridSpec g;
    g.id = "expert importance";
    g.rows = static_cast<int>(d.rows());
    g.cols = static_cast<int>(d.cols());
    g.cell_w = std::max(1.2f * em(), ImGui::CalcTextSize(("E" + std::to_string(g.cols)).c_str()).x + 0.4f * em());
    g.cell_h = ImGui::GetTextLineHeightWithSpacing();
    g.row_header_w = 3 * em();
    g.max_size = ImGui::GetContentRegionAvail();
    g.row_label = [&](int row) { return "L" + std::to_string(x.layers[static_cast<std::size_t>(row)] + 1); };
    g.col_label = [](int e) { return "E" + std::to_string(e + 1); };
    g.cell = [&](int row, int e, const ImRect& rect) { ImGui::GetWindowDrawList()->AddRectFilled(rect.Min, rect.Max, diverging_color(d(row, e) / top)); };
    g.cell_tooltip = [&](int row, int e) {
        st.importance_hovered = row * g.cols + e;
        ImGui::SetTooltip("layer %d, expert %d\nΔloss %+.4f nats", x.layers[static_cast<std::size_t>(row)] + 1, e + 1, d(row, e));
        if (!ImGui::IsMouseClicked(ImGuiMouseButton_Left)) return;
        st.routed = row; // that layer's routing
        st.importance = false;
    };
    v.grids[g.id] = draw_grid(g);
}

void importance_section(View& v, ModelService& m, ModelExpertsView& st) {
    const core::model::ImportanceRun::State s = m.expert_importance.state();
    importance_controls(v, m, s);
    if (!s.result) return;
    if (s.result->ids != m.shown->ids) dim_text("Measured on an earlier prompt: measure again for this one.");
    importance_map(v, st, s.result->experts);
}

// The view (routing or importance), the layer chooser, the knock-outs and Clear.
void layer_bar(View& v, ModelService& m, ModelExpertsView& st, const std::vector<LayerRouting>& routing) {
    if (ImGui::RadioButton("Routing", !st.importance)) st.importance = false;
    remember(v, "model experts Routing");
    ImGui::SameLine();
    if (ImGui::RadioButton("Importance", st.importance)) st.importance = true;
    remember(v, "model experts Importance");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(6 * em());
    const std::string shown = "layer " + std::to_string(routing[static_cast<std::size_t>(st.routed)].layer + 1);
    if (ImGui::BeginCombo("##mixture layer", shown.c_str())) {
        for (int k = 0; k < static_cast<int>(routing.size()); ++k) {
            const std::string name = "layer " + std::to_string(routing[static_cast<std::size_t>(k)].layer + 1);
            if (ImGui::Selectable(name.c_str(), k == st.routed)) st.routed = k;
            remember(v, ("model experts " + name).c_str());
        }
        ImGui::EndCombo();
    }
    remember(v, "model experts layer");
    tip("The mixture-of-experts layer whose routing is drawn");
    ImGui::SameLine();
    ImGui::BeginDisabled(m.ablate_experts.empty());
    if (ImGui::Button(("Clear (" + std::to_string(m.ablate_experts.size()) + ")").c_str())) m.clear_knockouts();
    remember(v, "model experts clear");
    tip("Knock every expert and head back in");
    ImGui::EndDisabled();
}

} // namespace

// [SECTION] the panel

void draw_model_experts_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelExpertsView& st = v.state<ModelExpertsView>();
    st.hovered = st.importance_hovered = -1;
    st.no_mixture = false;
    if (!m.shown || m.shown->ids.empty()) return dim_text(m.session.has_model() ? "The routing appears once the prompt has run." : "No model is open.");
    const std::vector<LayerRouting>& routing = m.shown->result.routing;
    st.no_mixture = routing.empty();
    if (routing.empty()) return dim_text(m.session.model_name() + " has no mixture-of-experts layer: every layer's feed-forward block is dense.");
    st.routed = std::clamp(st.routed, 0, static_cast<int>(routing.size()) - 1);
    const LayerRouting& r = routing[static_cast<std::size_t>(st.routed)];
    layer_bar(v, m, st, routing);
    if (st.importance) return importance_section(v, m, st);
    dim_text("Router probabilities; outlined: the " + std::to_string(r.top_k) + " experts each position runs. Click: its route; Ctrl+click: knock out.");
    routing_map(v, m, st, r);
    load_bars(v, st, r, m.shown->t());
    position_route(m, st);
}

} // namespace ui
