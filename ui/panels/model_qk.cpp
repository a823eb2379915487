#include "ui/panels/model_qk.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace ui {

namespace {

const ImU32 key_rgb = IM_COL32(150, 185, 230, 255);
const ImU32 plane_rgb = IM_COL32(24, 24, 28, 255); // dark on both themes

ImU32 faded(ImU32 c, float alpha) {
    return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(std::clamp(alpha, 0.0f, 1.0f) * 255.0f) << IM_COL32_A_SHIFT);
}

int top_key_of(const float* row, int t) { return static_cast<int>(std::max_element(row, row + t) - row); }

// The head's view for the selected query, remade when the run, head, query or plane changes.
void update(ModelQKView& st, const core::model::Snapshot& s, int l, int h, int query) {
    const int t = s.t();
    const int top = top_key_of(s.attention(l, h) + static_cast<std::ptrdiff_t>(query) * t, t);
    if (st.serial == s.serial && st.layer == l && st.head == h && st.query == query && (st.view.plane == core::model::QKPlane::principal) == st.principal) return;
    const core::model::HeadCapture& c = s.result.captures[static_cast<std::size_t>(l * s.heads() + h)];
    const core::Matrix Q = c.q.cast<double>(), K = c.k.cast<double>(); // (t, d_head)
    st.view = core::model::query_key_view(Q, K, st.principal ? core::model::QKPlane::principal : core::model::QKPlane::query_and_key, query, top);
    st.serial = s.serial, st.layer = l, st.head = h, st.query = query, st.top_key = top;
}

struct Fit {
    ImVec2 centre;
    double cx = 0, cy = 0, scale = 1;
    ImVec2 at(double x, double y) const { return ImVec2(centre.x + static_cast<float>((x - cx) * scale), centre.y - static_cast<float>((y - cy) * scale)); }
};

Fit fit_points(const core::model::QKView& view, const ImRect& r) {
    double lo_x = 0, hi_x = 0, lo_y = 0, hi_y = 0;
    for (const core::Matrix* m : {&view.query_points, &view.key_points})
        for (Eigen::Index k = 0; k < m->rows(); ++k) {
            lo_x = std::min(lo_x, (*m)(k, 0)), hi_x = std::max(hi_x, (*m)(k, 0));
            lo_y = std::min(lo_y, (*m)(k, 1)), hi_y = std::max(hi_y, (*m)(k, 1));
        }
    const double span = std::max({hi_x - lo_x, hi_y - lo_y, 1e-9}) * 1.4; // room for the labels
    return Fit{r.GetCenter(), (lo_x + hi_x) / 2, (lo_y + hi_y) / 2, r.GetWidth() / span};
}

void points(ImDrawList* draw, const ModelQKView& st, const core::model::Snapshot& s, float r) {
    const int t = s.t();
    const bool label = 2 * t <= 48;
    for (int j = 0; j < t; ++j) {
        const ImVec2 c = st.key_dots[static_cast<std::size_t>(j)];
        draw->AddRectFilled(ImVec2(c.x - r, c.y - r), ImVec2(c.x + r, c.y + r), j == st.top_key ? IM_COL32(230, 240, 255, 255) : key_rgb);
        if (label || j == st.top_key) draw->AddText(ImVec2(c.x + r + 2, c.y - em() * 0.5f), faded(key_rgb, 0.8f), ("k " + s.labels[static_cast<std::size_t>(j)]).c_str());
    }
    for (int i = 0; i < t; ++i) {
        const ImVec2 c = st.query_dots[static_cast<std::size_t>(i)];
        const bool strong = i == st.query || i == st.hovered_query;
        draw->AddCircleFilled(c, strong ? 1.5f * r : r, faded(selection_color(), strong ? 1.0f : 0.6f), 12);
        if (label || strong) draw->AddText(ImVec2(c.x + r + 2, c.y - em() * 0.5f), faded(selection_color(), strong ? 1.0f : 0.7f), ("q " + s.labels[static_cast<std::size_t>(i)]).c_str());
    }
}

// The plane as a square at the cursor; returns the query clicked, or -1.
int plane(ModelQKView& st, const core::model::Snapshot& s, const float* a, float side) {
    const int t = s.t();
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    const ImRect rect(p0, ImVec2(p0.x + side, p0.y + side));
    ImGui::InvisibleButton("qk plane", ImVec2(side, side));
    const bool hovered = ImGui::IsItemHovered(), clicked = ImGui::IsItemClicked();
    const Fit fit = fit_points(st.view, rect);
    st.query_dots.resize(static_cast<std::size_t>(t));
    st.key_dots.resize(static_cast<std::size_t>(t));
    for (int i = 0; i < t; ++i) {
        st.query_dots[static_cast<std::size_t>(i)] = fit.at(st.view.query_points(i, 0), st.view.query_points(i, 1));
        st.key_dots[static_cast<std::size_t>(i)] = fit.at(st.view.key_points(i, 0), st.view.key_points(i, 1));
    }
    st.hovered_query = -1;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    float best = 0.8f * em();
    if (hovered)
        for (int i = 0; i < t; ++i) {
            const float d = std::hypot(mouse.x - st.query_dots[static_cast<std::size_t>(i)].x, mouse.y - st.query_dots[static_cast<std::size_t>(i)].y);
            if (d <= best) best = d, st.hovered_query = i;
        }
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->PushClipRect(rect.Min, rect.Max, true);
    draw->AddRectFilled(rect.Min, rect.Max, plane_rgb);
    st.lines_drawn = 0;
    if (const int h = st.hovered_query; h >= 0) { // its lines, as thick and opaque as its weights
        const float* row = a + static_cast<std::ptrdiff_t>(h) * t;
        const float top = std::max(1e-9f, *std::max_element(row, row + t));
        for (int j = 0; j < t; ++j) {
            if (row[j] <= 0.0f) continue; // masked
            const float w = row[j] / top;
            draw->AddLine(st.query_dots[static_cast<std::size_t>(h)], st.key_dots[static_cast<std::size_t>(j)], faded(selection_color(), 0.15f + 0.85f * w), 0.5f + 3.0f * w);
            ++st.lines_drawn;
        }
        const int tk = top_key_of(row, t);
        ImGui::SetTooltip("q %s: top key k %s, weight %.3f (click to select)", s.labels[static_cast<std::size_t>(h)].c_str(), s.labels[static_cast<std::size_t>(tk)].c_str(), static_cast<double>(row[tk]));
    } else if (hovered) {
        ImGui::SetTooltip("circles: queries · squares: keys · hover a query for its weights");
    }
    points(draw, st, s, 0.22f * em());
    draw->PopClipRect();
    return clicked ? st.hovered_query : -1;
}

} // namespace

void draw_model_qk_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelQKView& st = v.state<ModelQKView>();
    st.hovered_query = -1;
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
    if (ImGui::RadioButton("Principal components", st.principal)) st.principal = true;
    remember(v, "model qk principal");
    ImGui::SameLine();
    if (ImGui::RadioButton("Query and its top key", !st.principal)) st.principal = false;
    remember(v, "model qk query plane");
    const int query = m.query_position();
    update(st, s, m.layer, m.head, query);
    char kept[96];
    std::snprintf(kept, sizeof kept, "keeps %.1f %% of the variance · α = %.3g", 100.0 * st.view.variance_kept, st.view.alpha);
    ImGui::Text("Layer %d, head %d · %s · %s", m.layer + 1, m.head + 1,
                st.principal ? "plane: principal components 1 and 2" : "plane: the query and its top key", kept);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const int clicked = plane(st, s, s.attention(m.layer, m.head), std::max(6 * em(), std::min(avail.x, avail.y)));
    if (clicked >= 0) m.query = clicked;
}

} // namespace ui
