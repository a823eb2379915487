#include "ui/panels/model/model_qk.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include <algorithm>

namespace ui {

namespace {

QKPlaneInput input_of(const ModelQKView& st, const core::model::Snapshot& s, bool causal) {
    return QKPlaneInput{st.Q, st.K, st.weights, s.labels, st.query, [causal](int i, int j) { return causal && j > i; }, {}, st.copies};
}

// The head's queries, keys and weights, copied when the run or the head changes; the plane
// remakes its view when they or the query or the plane do.
void update(ModelQKView& st, const core::model::Snapshot& s, int l, int h, int query, bool causal) {
    if (st.serial != s.serial || st.layer != l || st.head != h) {
        const core::model::HeadCapture& c = s.result.captures[static_cast<std::size_t>(l * s.heads() + h)];
        st.Q = c.q.cast<double>(), st.K = c.k.cast<double>(); // (t, d_head)
        st.weights = s.head_map(l, h)->cast<double>();
        st.serial = s.serial, st.layer = l, st.head = h, ++st.copies;
    }
    st.query = query;
    update_qk_plane(st.plane, input_of(st, s, causal), st.principal ? core::heads::QKPlane::principal : core::heads::QKPlane::query_and_key);
}

} // namespace

void draw_model_qk_panel(View& v, TextureUploader& textures) {
    ModelService& m = v.state<ModelService>();
    ModelQKView& st = v.state<ModelQKView>();
    st.plane.hovered_query = -1;
    if (!m.has_attention()) {
        dim_text(m.session.has_model() ? "The query–key view appears once the prompt has run." : "No model is open.");
        return;
    }
    const core::model::Snapshot& s = *m.shown;
    if (s.result.captures.size() != static_cast<std::size_t>(s.layers() * s.heads())) {
        if (!s.request.capture_qkv && m.seen == m.asked) m.run_prompt(); // a run from before the panel opened
        dim_text("Capturing the heads' queries and keys…");
        return;
    }
    if (static_cast<std::size_t>(m.layer) < s.result.kinds.size() && s.result.kinds[static_cast<std::size_t>(m.layer)].linear)
        return dim_text("Head " + std::to_string(m.layer + 1) + "." + std::to_string(m.head + 1) +
                        " is linear: no softmax weighs its keys by q · k; its map is M (Why this score splits an entry, State shows what it holds).");
    if (ImGui::RadioButton("Principal components", st.principal)) st.principal = true;
    remember(v, "model qk principal");
    ImGui::SameLine();
    if (ImGui::RadioButton("Query and its top key", !st.principal)) st.principal = false;
    remember(v, "model qk query plane");
    const bool causal = m.session.causal();
    update(st, s, m.layer, m.head, m.query_position(), causal);
    ImGui::TextWrapped("Layer %d, head %d · %s · %s", m.layer + 1, m.head + 1, qk_plane_name(st.plane).c_str(), qk_plane_kept(st.plane).c_str());
    ImGui::TextDisabled("Hover a query: its lines to the keys. Click: select it.");
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::max(6 * em(), std::min(avail.x, avail.y));
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + std::max(0.0f, (avail.x - side) / 2)); // centred in a wide panel
    const int clicked = draw_qk_plane(st.plane, input_of(st, s, causal), side, textures);
    if (clicked >= 0) m.query = clicked;
}

} // namespace ui
