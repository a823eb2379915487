#include "ui/panels/model/model_sinks.h"
#include "ui/model_service.h"

#include "ui/panels/shared/head_map.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace ui {

namespace {

// (layers, heads): each head's sink share; NaN (masked) where a head has none (one token).
core::Matrix shares_of(const core::model::Snapshot& s) {
    const int L = s.layers(), H = s.heads();
    core::Matrix shares(L, H);
    for (int k = 0; k < L * H; ++k)
        shares(k / H, k % H) = s.scores[static_cast<std::size_t>(k)].sink.value_or(std::numeric_limits<double>::quiet_NaN());
    return shares;
}

// Whether layer l of the run has a learned sink, whose shares the forward gave.
bool learned(const core::model::Snapshot& s, int l) {
    return !s.result.sink_share.empty() && s.result.kinds[static_cast<std::size_t>(l)].learned_sink();
}

// The selected head's share by query position: its learned sink's at positions 1 … t, or its
// weight on position 1, from its map (t, t), at positions 2 … t; false while the map is rebuilt.
bool shares_by_position(const ModelService& m, ModelSinksView& st) {
    const core::model::Snapshot& s = *m.shown;
    const int t = s.t();
    st.learned = learned(s, m.layer);
    if (st.learned) {
        const float* share = s.result.sink_share.data() + (static_cast<std::ptrdiff_t>(m.layer) * s.heads() + m.head) * t;
        st.shares.assign(share, share + t);
        return true;
    }
    const std::shared_ptr<const core::model::MatrixF> weights = core::model::head_map_soon(m.shown, m.layer, m.head);
    if (!weights) return false;
    for (int i = 1; i < t; ++i) st.shares.push_back((*weights)(i, 0));
    return true;
}

void by_position(View& v, ModelService& m, ModelSinksView& st) {
    if (!shares_by_position(m, st)) {
        dim_text("Computing the map of layer " + std::to_string(m.layer + 1) + ", head " + std::to_string(m.head + 1) + "…");
        return;
    }
    const int t = m.shown->t(), first = st.learned ? 1 : 2; // the first query position shown
    if (st.shares.empty()) return;
    // Bars up to the largest share, so that a head with little on its sink still shows its shape.
    const float top = std::max(0.01f, *std::max_element(st.shares.begin(), st.shares.end()));
    ImGui::Text("Layer %d, head %d: %s at positions %d … %d (bars up to %.2f)", m.layer + 1, m.head + 1,
                st.learned ? "its learned sink's share" : "its weight on position 1", first, t, static_cast<double>(top));
    const ImVec2 size(ImGui::GetContentRegionAvail().x, std::max(3.0f * em(), ImGui::GetContentRegionAvail().y));
    ImGui::PlotHistogram("##sink by position", st.shares.data(), static_cast<int>(st.shares.size()), 0, nullptr, 0.0f, top, size);
    remember(v, "model sinks positions");
    if (!ImGui::IsItemHovered()) return;
    const ImRect r(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    const float x = (ImGui::GetIO().MousePos.x - r.Min.x) / std::max(1.0f, r.GetWidth());
    const int i = std::clamp(static_cast<int>(x * static_cast<float>(st.shares.size())), 0, static_cast<int>(st.shares.size()) - 1);
    const int position = i + first;
    const std::string& label = m.shown->labels[static_cast<std::size_t>(position - 1)];
    if (st.learned)
        ImGui::SetTooltip("position %d (%s): %.3f on the learned sink", position, label.c_str(), static_cast<double>(st.shares[static_cast<std::size_t>(i)]));
    else
        ImGui::SetTooltip("position %d (%s): %.3f on position 1 (%s)", position, label.c_str(), static_cast<double>(st.shares[static_cast<std::size_t>(i)]),
                          m.shown->labels[0].c_str());
}

} // namespace

void draw_model_sinks_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelSinksView& st = v.state<ModelSinksView>();
    st.hovered = -1;
    st.shares.clear();
    if (!m.has_attention() || m.shown->scores.empty()) {
        dim_text(m.session.has_model() ? "The sinks appear once the prompt has run." : "No model is open.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    const bool any_learned = !s.result.sink_share.empty();
    dim_text("Each head's mean sink share over the " + std::string(s.request.score_ids.empty() ? "prompt" : "probe") + "'s queries: " +
             (any_learned ? "its learned sink's where its layer has one, else its weight on position 1 (" + s.labels[0] + ")"
                          : "its weight on position 1 (" + s.labels[0] + ") at the later ones") +
             ", where a softmax parks the weight it needs nowhere else. A click selects the head.");
    ImGui::BeginChild("sink map", ImVec2(0, 0.6f * ImGui::GetContentRegionAvail().y));
    st.hovered = draw_head_map(v, "sinks", shares_of(s), m.layer, m.head, HeadMapScale::shares);
    if (st.hovered >= 0) {
        const core::heads::HeadScores& sc = s.scores[static_cast<std::size_t>(st.hovered)];
        const int H = s.heads();
        ImGui::SetTooltip("layer %d, head %d: %.3f of each query's weight on %s on average%s", st.hovered / H + 1, st.hovered % H + 1,
                          sc.sink.value_or(0.0), learned(s, st.hovered / H) ? "its learned sink" : "position 1",
                          sc.sink && *sc.sink >= core::heads::sink_threshold ? " (a sink head)" : "");
    }
    ImGui::EndChild();
    by_position(v, m, st);
}

} // namespace ui
