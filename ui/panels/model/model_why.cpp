// ui/panels/model/model_why.cpp — QK attribution of a clicked cell and composition between heads (model_why.h).
#include "ui/panels/model/model_why.h"
#include "ui/model_service.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace ui {

namespace {

using core::model::CompositionKind;

struct Cell {
    int row = 0, column = 0;
};

// A square map of n × n cells of side `cell` drawn at `origin`: its grid (named `grid`, for the
// tests' clicks) and a button over it; the cell under the mouse while the button is hovered.
std::optional<Cell> hovered_cell(View& v, const char* grid, const char* button, ImVec2 origin, float cell, int n) {
    const ImVec2 size(cell * static_cast<float>(n), cell * static_cast<float>(n));
    v.grids[grid] = GridGeometry{origin, ImVec2(cell, cell), ImRect(origin, ImVec2(origin.x + size.x, origin.y + size.y))};
    ImGui::InvisibleButton(button, size);
    if (!ImGui::IsItemHovered()) return std::nullopt;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    return Cell{std::clamp(static_cast<int>((mouse.y - origin.y) / cell), 0, n - 1), std::clamp(static_cast<int>((mouse.x - origin.x) / cell), 0, n - 1)};
}

// [SECTION] QK attribution ------------------------------------------------------------------------

// Starts the attribution of the cell the map chose, when it changed.
void ask_qk(ModelService& m, ModelWhyView& st, const QkCell& cell) {
    if (cell == st.asked) return;
    st.asked = cell;
    const std::shared_ptr<const core::model::OpenedModel> opened = m.session.opened();
    st.qk.start([opened, q = core::model::QkRequest{m.shown->ids, cell.layer, cell.head, cell.query, cell.key}, cell](const core::TaskControl&) {
        core::model::QkAnswer a = core::model::answer_qk(*opened->model, q);
        return QkShown{cell, a.visible, std::move(a.attribution)};
    });
}

// The pairs (C, C) as a diverging map: rows the query's components, columns the key's; hover names one.
void pairs_map(View& v, const core::model::QkAttribution& a) {
    const auto C = static_cast<int>(a.pairs.rows());
    if (C == 0) return;
    const double top = std::max(1e-12, a.pairs.cwiseAbs().maxCoeff());
    const float side = std::min(ImGui::GetContentRegionAvail().x, 14 * em());
    const float cell = std::max(2.0f, side / static_cast<float>(C));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int r = 0; r < C; ++r)
        for (int c = 0; c < C; ++c) {
            const ImVec2 p(origin.x + static_cast<float>(c) * cell, origin.y + static_cast<float>(r) * cell);
            draw->AddRectFilled(p, ImVec2(p.x + cell, p.y + cell), diverging_color(a.pairs(r, c) / top));
        }
    const std::optional<Cell> hovered = hovered_cell(v, "qk pairs", "qk pairs", origin, cell, C);
    if (!hovered) return;
    const int r = hovered->row, c = hovered->column;
    ImGui::SetTooltip("query's %s × key's %s\n%+.4f of %.4f", a.components[static_cast<std::size_t>(r)].c_str(),
                      a.components[static_cast<std::size_t>(c)].c_str(), a.pairs(r, c), a.score);
}

// A head with a learned sink: its logit, which enters the query's softmax beside the scores of its
// keys (unscaled), and the share of the query's weight it took.
void sink_line(const core::model::Snapshot& s, int l, int h, int i, ModelWhyView& st) {
    st.sink_logit.reset();
    if (s.result.kinds.empty() || !s.result.kinds[static_cast<std::size_t>(l)].learned_sink()) return;
    st.sink_logit = *s.result.kinds[static_cast<std::size_t>(l)].sink(h);
    const std::size_t at = (static_cast<std::size_t>(l) * static_cast<std::size_t>(s.heads()) + static_cast<std::size_t>(h)) * static_cast<std::size_t>(s.t()) +
                           static_cast<std::size_t>(i);
    ImGui::Text("sink logit %.4f beside the scores: it took %.3f of this query's weight", static_cast<double>(*st.sink_logit),
                s.result.sink_share.empty() ? 0.0 : static_cast<double>(s.result.sink_share[at]));
    tip("The head's learned sink: one more logit in each query's softmax, after the scale and the mask, that passes no value.");
}

// [SECTION] a linear head -------------------------------------------------------------------------

bool linear_layer(const core::model::Snapshot& s, int l) {
    return static_cast<std::size_t>(l) < s.result.kinds.size() && s.result.kinds[static_cast<std::size_t>(l)].linear;
}

// M[i, j] of a linear head as the direct write of value j, decayed to i, and what later erases took.
void linear_section(View& v, ModelService& m, ModelWhyView& st, int i, int j) {
    const core::model::Snapshot& s = *m.shown;
    const QkCell cell{s.serial, m.layer, m.head, i, j};
    if (!(cell == st.split_asked)) {
        st.split_asked = cell;
        st.split_job.start([shown = m.shown, cell](const core::TaskControl&) {
            return LinearSplitShown{cell, shown->result.maps.linear_split(cell.layer, cell.head, cell.query, cell.key)};
        });
    }
    std::string error;
    if (std::optional<LinearSplitShown> made = take_finished(st.split_job, error)) st.split = std::move(made);
    if (!error.empty()) st.error = error;
    ImGui::TextWrapped("Why query %d (%s) takes M[%d, %d] of key %d's value (%s) in linear head %d.%d", i + 1, s.labels[static_cast<std::size_t>(i)].c_str(),
                       i + 1, j + 1, j + 1, s.labels[static_cast<std::size_t>(j)].c_str(), m.layer + 1, m.head + 1);
    if (st.split_job.busy()) {
        v.motion.moving = true;
        dim_text("Splitting…");
    }
    if (!st.split || !(st.split->cell == cell)) return;
    if (!st.split->split) return dim_text("This head has no value head of its own in the layer: its M is 0.");
    if (j > i) return dim_text("The key comes after the query: the state has not seen it, M is 0.");
    const core::model::delta_rule::Split& x = *st.split->split;
    ImGui::TextWrapped("M[%d, %d] = %+.4g = direct write %+.4g + correction %+.4g", i + 1, j + 1, x.entry, x.direct, x.correction);
    ImGui::Bullet();
    ImGui::TextWrapped("direct write: β %.4g × (q · k) %+.4g × decay %.4g (from position %d to %d)", x.beta, x.qk, x.decay, j + 1, i + 1);
    tip("Step j writes β_j · v_j along k_j into the state; every step after it multiplies the state by its decay exp(g); "
        "query i reads the state along q_i.");
    ImGui::Bullet();
    ImGui::TextWrapped("correction %+.4g: what the writes after position %d erased of it (each takes β (k · S) away before it writes)", x.correction, j + 1);
}

void qk_section(View& v, ModelService& m, ModelWhyView& st) {
    const core::model::Snapshot& s = *m.shown;
    const int t = s.t(), i = m.query_position(), j = m.key;
    if (j < 0 || j >= t) return dim_text("Click a cell of the head map: why its query attends to its key.");
    if (linear_layer(s, m.layer)) return linear_section(v, m, st, i, j);
    ask_qk(m, st, QkCell{s.serial, m.layer, m.head, i, j});
    std::string error;
    if (std::optional<QkShown> made = take_finished(st.qk, error)) {
        st.top = core::model::top_pairs_in_words(made->attribution, 6);
        st.shown = std::move(made);
    }
    if (!error.empty()) st.error = error;
    ImGui::TextWrapped("Why query %d (%s) attends to key %d (%s) in head %d.%d", i + 1, s.labels[static_cast<std::size_t>(i)].c_str(), j + 1,
                       s.labels[static_cast<std::size_t>(j)].c_str(), m.layer + 1, m.head + 1);
    if (st.qk.busy()) {
        v.motion.moving = true;
        if (ImGui::Button("Cancel##qk")) st.qk.cancel();
        remember(v, "model why qk cancel");
        ImGui::SameLine();
        dim_text("Attributing…");
    }
    if (!st.shown || !(st.shown->cell == st.asked)) return;
    const core::model::QkAttribution& a = st.shown->attribution;
    ImGui::Text("score %.4f = Σ pairs %.4f + bias %.4f%s", a.score, a.pairs.sum(), a.bias, st.shown->visible ? "" : " (masked: not seen)");
    tip("The score before the soft-cap and the mask: the query's and the key's components of the stream, their norms frozen at this run's scale.");
    sink_line(s, m.layer, m.head, i, st);
    for (const std::string& line : st.top) ImGui::BulletText("%s", line.c_str());
    pairs_map(v, a);
}

// [SECTION] composition ---------------------------------------------------------------------------

// "head 1.2  0.310" for the `count` heads of largest score(l, h), which is NaN where it does not apply.
template <class Score>
std::vector<std::string> strongest(int layers, int heads, int count, Score score) {
    std::vector<std::pair<double, int>> all;
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < heads; ++h)
            if (std::isfinite(score(l, h))) all.emplace_back(score(l, h), l * heads + h);
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<std::string> out;
    for (std::size_t k = 0; k < all.size() && static_cast<int>(k) < count; ++k) {
        char text[48];
        std::snprintf(text, sizeof text, "head %d.%d  %.3f", all[k].second / heads + 1, all[k].second % heads + 1, all[k].first);
        out.emplace_back(text);
    }
    return out;
}

void ask_composition(ModelService& m, ModelWhyView& st) {
    const std::shared_ptr<const core::model::OpenedModel> opened = m.session.opened();
    if (!opened || (opened.get() == st.composed_for && st.kind == st.composed_kind)) return;
    st.composed_for = opened.get();
    st.composed_kind = st.kind;
    st.scores.reset();
    const auto kind = static_cast<CompositionKind>(st.kind);
    st.composition.start([opened, kind](const core::TaskControl& c) { return core::model::composition_scores(*opened->model, kind, c.stop_flag()); });
}

// Writers (rows) × readers (columns), one cell per pair of heads; a click selects the reader.
void composition_map(View& v, ModelService& m, const core::model::CompositionScores& c) {
    const int n = c.layers * c.heads;
    double top = 1e-12;
    for (double x : c.scores) top = std::isfinite(x) ? std::max(top, x) : top;
    const float cell = std::max(2.0f, std::min(ImGui::GetContentRegionAvail().x, 16 * em()) / static_cast<float>(n));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int w = 0; w < n; ++w)
        for (int r = 0; r < n; ++r) {
            const double x = c.at(w / c.heads, w % c.heads, r / c.heads, r % c.heads);
            if (!std::isfinite(x)) continue;
            const ImVec2 p(origin.x + static_cast<float>(r) * cell, origin.y + static_cast<float>(w) * cell);
            draw->AddRectFilled(p, ImVec2(p.x + cell, p.y + cell), sequential_color(x / top));
        }
    const int sel = m.layer * c.heads + m.head;
    draw->AddRect(ImVec2(origin.x + static_cast<float>(sel) * cell, origin.y), ImVec2(origin.x + static_cast<float>(sel + 1) * cell, origin.y + cell * static_cast<float>(n)),
                  selection_color());
    const std::optional<Cell> hovered = hovered_cell(v, "composition", "composition map", origin, cell, n);
    if (!hovered) return;
    const int w = hovered->row, r = hovered->column;
    ImGui::SetTooltip("head %d.%d writes, head %d.%d reads: %.4f", w / c.heads + 1, w % c.heads + 1, r / c.heads + 1, r % c.heads + 1,
                      c.at(w / c.heads, w % c.heads, r / c.heads, r % c.heads));
    if (ImGui::IsItemClicked()) m.layer = r / c.heads, m.head = r % c.heads;
}

void composition_section(View& v, ModelService& m, ModelWhyView& st) {
    ImGui::SetNextItemWidth(8 * em());
    ImGui::Combo("composition", &st.kind, "Q-composition\0K-composition\0V-composition\0");
    remember(v, "model why kind");
    ask_composition(m, st);
    std::string error;
    if (std::optional<core::model::CompositionScores> made = take_finished(st.composition, error)) st.scores = std::move(made);
    if (!error.empty()) st.error = error;
    if (st.composition.busy()) {
        v.motion.moving = true;
        ImGui::SameLine();
        if (ImGui::Button("Cancel##composition")) st.composition.cancel();
        remember(v, "model why composition cancel");
        ImGui::SameLine();
        dim_text("Composing…");
        return;
    }
    if (!st.scores) {
        ImGui::SameLine();
        if (ImGui::Button("Compute")) st.composed_for = nullptr; // asked again next frame
        remember(v, "model why compute");
        return;
    }
    const core::model::CompositionScores& c = *st.scores;
    const int L = m.layer, H = m.head;
    st.writers = strongest(c.layers, c.heads, 5, [&](int l, int h) { return c.at(l, h, L, H); });
    st.readers = strongest(c.layers, c.heads, 5, [&](int l, int h) { return c.at(L, H, l, h); });
    ImGui::Text("Into head %d.%d:", L + 1, H + 1);
    for (const std::string& s : st.writers) ImGui::BulletText("%s", s.c_str());
    ImGui::Text("Out of head %d.%d:", L + 1, H + 1);
    for (const std::string& s : st.readers) ImGui::BulletText("%s", s.c_str());
    composition_map(v, m, c);
}

} // namespace

void draw_model_why_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelWhyView& st = v.state<ModelWhyView>();
    if (!m.has_attention()) return dim_text("Run a prompt on a model first.");
    qk_section(v, m, st);
    ImGui::Separator();
    composition_section(v, m, st);
    if (!st.error.empty()) dim_text(st.error);
}

} // namespace ui
