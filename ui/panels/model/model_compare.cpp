// ui/panels/model/model_compare.cpp
//
// [SECTION] The second run on the session's worker
// [SECTION] The heads' grid and one head's difference
// [SECTION] The panel
#include "ui/panels/model/model_compare.h"
#include "ui/model_service.h"
#include "core/error_text.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ui {

namespace {

using core::model::OpenedModel;
using core::model::Tokenizer;

//-----------------------------------------------------------------------------
// [SECTION] The second run on the session's worker
//-----------------------------------------------------------------------------

// A model without a tokenizer (attnviz's own) takes ids separated by spaces, as the prompt box does.
std::vector<int> ids_of(const std::string& text, const OpenedModel& m, const Tokenizer& tok) {
    if (tok.vocab_size()) return tok.encode_ids(text);
    std::istringstream in(text);
    std::vector<int> ids;
    for (int id; in >> id;) ids.push_back(id);
    if (!in.eof()) throw core::model::InputError(m.path + " has no tokenizer: give the second prompt as token ids separated by spaces");
    return ids;
}

void post_compare(core::model::Session& session, std::shared_ptr<CompareShared> shared, std::shared_ptr<const core::model::Snapshot> first,
                  std::string second, int model) {
    std::lock_guard<std::mutex> counting(shared->mutex); // held until posted: the task cannot finish before it counts
    ++shared->busy;
    if (!session.post([shared, first, second, model](const OpenedModel& m, const Tokenizer& tok, const std::atomic<bool>& cancel) {
        auto p = std::make_shared<ComparePublished>();
        p->first_serial = first->serial;
        p->model = model;
        p->second = second;
        try {
            const std::vector<int> ids = ids_of(second, m, tok);
            if (ids.empty()) throw core::model::InputError("the second prompt has no tokens");
            p->comparison = core::model::compare_with_run(*m.model, *first, ids, &cancel);
            p->t_first = first->t();
            p->t_second = static_cast<int>(ids.size());
            const core::model::Alignment& al = p->comparison.aligned;
            for (int k = 0; k < al.size(); ++k) {
                const std::string a = first->labels[static_cast<std::size_t>(al.a[static_cast<std::size_t>(k)])];
                const int b = ids[static_cast<std::size_t>(al.b[static_cast<std::size_t>(k)])];
                const std::string bl = tok.vocab_size() ? tok.token_display(b) : std::to_string(b);
                p->labels.push_back(a == bl ? a : a + " → " + bl);
            }
        } catch (const std::exception& e) {
            p->error = core::error_text(e);
        }
        std::lock_guard<std::mutex> lock(shared->mutex);
        shared->published = std::move(p);
        --shared->busy;
    }))
        --shared->busy;
}

//-----------------------------------------------------------------------------
// [SECTION] The heads' grid and one head's difference
//-----------------------------------------------------------------------------

// Layers down, heads across, each cell the head's mean divergence (0 … ln 2); a click selects it.
void heads_grid(ModelCompareView& st, const core::model::Comparison& c, ModelService& m) {
    const float cell = std::clamp(ImGui::GetContentRegionAvail().x * 0.4f / static_cast<float>(std::max(1, c.heads)), 0.9f * em(), 2.2f * em());
    const ImVec2 p0 = ImGui::GetCursorScreenPos();
    st.grid_origin = p0, st.cell = ImVec2(cell, cell);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int l = 0; l < c.layers; ++l)
        for (int h = 0; h < c.heads; ++h) {
            const double js = c.mean_js[static_cast<std::size_t>(l * c.heads + h)];
            const ImVec2 a(p0.x + static_cast<float>(h) * cell, p0.y + static_cast<float>(l) * cell);
            draw->AddRectFilled(a, ImVec2(a.x + cell - 1, a.y + cell - 1), std::isfinite(js) ? sequential_color(js / std::log(2.0)) : masked_color());
            if (l == m.layer && h == m.head) draw->AddRect(a, ImVec2(a.x + cell - 1, a.y + cell - 1), selection_color(), 0, 0, 2.0f);
        }
    ImGui::InvisibleButton("heads", ImVec2(cell * static_cast<float>(c.heads), cell * static_cast<float>(c.layers)));
    if (!ImGui::IsItemHovered()) return;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int l = std::clamp(static_cast<int>((mouse.y - p0.y) / cell), 0, c.layers - 1), h = std::clamp(static_cast<int>((mouse.x - p0.x) / cell), 0, c.heads - 1);
    if (ImGui::IsItemClicked()) m.layer = l, m.head = h, m.query = -1;
    ImGui::SetTooltip("layer %d head %d\nmean Jensen–Shannon divergence %.4f nats", l + 1, h + 1, c.mean_js[static_cast<std::size_t>(l * c.heads + h)]);
}

// The selected head: second − first on the aligned tokens, and each row's divergence as a bar.
void head_difference(ModelCompareView& st, const ComparePublished& p, const ModelService& m) {
    const core::model::Comparison& c = p.comparison;
    const std::size_t k = static_cast<std::size_t>(m.layer * c.heads + m.head);
    const core::model::MatrixF& d = c.difference[k]; // (n, n)
    const Eigen::VectorXd& js = c.js[k];             // (n)
    const int n = c.aligned.size();
    const float top = std::max(1e-6f, d.cwiseAbs().maxCoeff());
    float label_w = 0;
    for (const std::string& l : p.labels) label_w = std::max(label_w, ImGui::CalcTextSize(l.c_str()).x);
    label_w = std::min(label_w, 9 * em()) + 0.5f * em();
    const float bars = 7 * em();
    const ImVec2 avail = ImGui::GetContentRegionAvail(), p0 = ImGui::GetCursorScreenPos();
    const float cell = std::clamp(std::min(avail.x - label_w - bars, avail.y - 2 * em()) / static_cast<float>(n), 0.2f, 2.5f * em());
    const ImVec2 origin(p0.x + label_w, p0.y);
    st.map = ImRect(origin, ImVec2(origin.x + cell * static_cast<float>(n), origin.y + cell * static_cast<float>(n)));
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float line = ImGui::GetTextLineHeight();
    for (int i = 0; i < n; ++i) {
        const float y = origin.y + static_cast<float>(i) * cell;
        for (int j = 0; j < n; ++j)
            draw->AddRectFilled(ImVec2(origin.x + static_cast<float>(j) * cell, y), ImVec2(origin.x + static_cast<float>(j + 1) * cell, y + cell),
                                diverging_color(static_cast<double>(d(i, j) / top)));
        const double v = js[i];
        const float x = st.map.Max.x + 0.5f * em();
        if (std::isfinite(v)) draw->AddRectFilled(ImVec2(x, y + 0.15f * cell), ImVec2(x + 4 * em() * static_cast<float>(v / std::log(2.0)), y + 0.85f * cell), selection_color());
        if (cell < line) continue; // labels need a line each
        const std::string name = fit_text(p.labels[static_cast<std::size_t>(i)], label_w - 0.3f * em());
        draw->AddText(ImVec2(origin.x - 0.2f * em() - ImGui::CalcTextSize(name.c_str()).x, y + 0.5f * (cell - line)), ImGui::GetColorU32(ImGuiCol_Text), name.c_str());
        char value[16];
        std::snprintf(value, sizeof value, "%.3f", v);
        draw->AddText(ImVec2(x + 4.2f * em(), y + 0.5f * (cell - line)), ImGui::GetColorU32(ImGuiCol_Text), value);
    }
    ImGui::InvisibleButton("difference", ImVec2(label_w + cell * static_cast<float>(n) + bars, cell * static_cast<float>(n)));
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    if (ImGui::IsItemHovered() && st.map.Contains(mouse)) {
        const int i = std::clamp(static_cast<int>((mouse.y - origin.y) / cell), 0, n - 1), j = std::clamp(static_cast<int>((mouse.x - origin.x) / cell), 0, n - 1);
        ImGui::SetTooltip("query %s, key %s\nsecond − first %+.4f\nrow's Jensen–Shannon divergence %.4f nats", p.labels[static_cast<std::size_t>(i)].c_str(),
                          p.labels[static_cast<std::size_t>(j)].c_str(), static_cast<double>(d(i, j)), js[i]);
    }
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] The panel
//-----------------------------------------------------------------------------

void draw_model_compare_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelCompareView& st = v.state<ModelCompareView>();
    {
        std::lock_guard<std::mutex> lock(st.shared->mutex);
        if (st.shared->published && st.shared->published->model != m.models_opened) st.shared->published.reset(); // another model's
        st.shown = st.shared->published;
        st.busy = st.shared->busy > 0;
    }
    if (!m.has_attention()) {
        dim_text(m.session.has_model() ? "The comparison appears once the prompt has run." : "No model is open.");
        return;
    }
    // Enter compares, as in a one-line box; Ctrl+Enter starts a new line.
    const float width = std::max(8 * em(), ImGui::GetContentRegionAvail().x - 7 * em());
    const float height = static_cast<float>(std::clamp(st.box.lines(), 1, 4)) * ImGui::GetTextLineHeight() + 2 * ImGui::GetStyle().FramePadding.y;
    const bool entered = st.box.draw("##second", st.second, ImVec2(width, height), ImGuiInputTextFlags_EnterReturnsTrue | ImGuiInputTextFlags_CtrlEnterForNewLine,
                                     "a second prompt");
    remember(v, "model_compare.prompt");
    ImGui::SameLine();
    ImGui::BeginDisabled(st.busy);
    if ((ImGui::Button("Compare") || entered) && !st.busy) post_compare(m.session, st.shared, m.shown, st.second, m.models_opened);
    remember(v, "model_compare.run");
    ImGui::EndDisabled();
    dim_text("Aligned tokens: those both prompts share, in order, and a run replaced by one as long, position by position "
             "(cat → dog); the rest is left out. Colours: second − first; bars: each row's Jensen–Shannon divergence (0 … ln 2).");
    if (st.busy) dim_text("running…");
    if (!st.shown) return;
    const ComparePublished& p = *st.shown;
    if (!p.error.empty()) {
        error_text(p.error);
        return;
    }
    if (p.first_serial != m.shown->serial) dim_text("The first prompt has changed since: Compare again.");
    ImGui::Text("%d of %d and %d tokens aligned", p.comparison.aligned.size(), p.t_first, p.t_second);
    if (p.comparison.aligned.size() == 0 || m.layer >= p.comparison.layers || m.head >= p.comparison.heads) return;
    heads_grid(st, p.comparison, m);
    ImGui::SameLine();
    ImGui::BeginGroup();
    ImGui::Text("Layer %d, head %d: mean divergence %.4f", m.layer + 1, m.head + 1,
                p.comparison.mean_js[static_cast<std::size_t>(m.layer * p.comparison.heads + m.head)]);
    head_difference(st, p, m);
    ImGui::EndGroup();
}

} // namespace ui
