// ui/panels/learn/lesson_model.cpp — see lesson_model.h.
#include "ui/panels/learn/lesson_model.h"

#include "ui/widgets.h"

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

double previous_of(const core::heads::HeadScores& s) { return s.previous.value_or(0.0); }
double induction_of(const core::heads::HeadScores& s) { return s.induction.value_or(0.0); }

int best_by(const ModelHeads::Run& r, double (*score)(const core::heads::HeadScores&)) {
    int best = -1;
    for (size_t k = 0; k < r.scores.size(); ++k)
        if (best < 0 || score(r.scores[k]) > score(r.scores[static_cast<size_t>(best)])) best = static_cast<int>(k);
    return best;
}

// One head's pattern as a button, outlined when picked or hovered; masked keys grey.
bool pattern_button(const core::Matrix& A, float cell, bool picked, bool causal) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 size(cell * static_cast<float>(A.cols()), cell * static_cast<float>(A.rows()));
    const bool clicked = ImGui::InvisibleButton("pattern", size);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(p, ImVec2(p.x + size.x, p.y + size.y), masked_color()); // the keys after each query
    for (Eigen::Index i = 0; i < A.rows(); ++i)
        for (Eigen::Index j = 0; j < (causal ? std::min(i + 1, A.cols()) : A.cols()); ++j) {
            const ImVec2 a(p.x + static_cast<float>(j) * cell, p.y + static_cast<float>(i) * cell);
            draw->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), sequential_color(A(i, j)));
        }
    if (picked || ImGui::IsItemHovered())
        draw->AddRect(ImVec2(p.x - 2, p.y - 2), ImVec2(p.x + size.x + 2, p.y + size.y + 2), selection_color(), 0.0f, 0, picked ? 2.0f : 1.0f);
    return clicked;
}

void grid(ModelHeads& m, const ModelHeads::Run& r, View& v) {
    const int t = static_cast<int>(r.tokens.size());
    const float gap = 0.6f * em();
    const float across = (ImGui::GetContentRegionAvail().x - gap * static_cast<float>(r.heads - 1)) / static_cast<float>(r.heads * t);
    // The grid in view under the step's text with room for the goal below, unless that leaves the
    // cells too small to see a line in (then the step's text scrolls).
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float down = ((ImGui::GetContentRegionAvail().y - 5.0f * line) / static_cast<float>(r.layers) - line) / static_cast<float>(t);
    const float cell = std::floor(std::min(std::max(down, 0.25f * em()), std::min(across, 0.5f * em())));
    for (int l = 0; l < r.layers; ++l)
        for (int h = 0; h < r.heads; ++h) {
            const int k = l * r.heads + h;
            if (h) ImGui::SameLine(0.0f, gap);
            ImGui::BeginGroup();
            ImGui::PushID(k);
            ImGui::TextDisabled("L%d H%d", l + 1, h + 1);
            if (pattern_button(r.patterns[static_cast<size_t>(k)], cell, m.picked == k, r.causal)) m.picked = k;
            tip("pick this head");
            remember(v, ("lesson.model_head." + std::to_string(l) + "." + std::to_string(h)).c_str());
            ImGui::PopID();
            ImGui::EndGroup();
        }
}

} // namespace

void draw_model_heads(ModelHeads& m, const std::string& model, const std::string& text, View& v) {
    if (m.model != model || m.text != text) {
        m.model = model;
        m.text = text;
        m.run.reset();
        m.picked = -1;
        m.job.start([model, text](const core::TaskControl&) { return core::learn::run_heads(model, text, model_grid_cells); });
    }
    if (auto done = m.job.take()) m.run = std::move(done->result);
    if (m.job.busy()) v.motion.moving = true; // a frame takes the run as soon as it is done
    ImGui::Separator();
    if (!m.run) {
        ImGui::TextDisabled("Running the model on the text…");
        return;
    }
    const ModelHeads::Run& r = *m.run;
    if (!r.error.empty()) {
        ImGui::TextColored(ImVec4(1.0f, 0.45f, 0.4f, 1.0f), "%s", r.error.c_str());
        return;
    }
    ImGui::TextWrapped("%s: %d layers × %d heads on %s%d tokens; rows are queries, columns keys", r.name.c_str(), r.layers, r.heads,
                       r.cut ? "the first " : "", static_cast<int>(r.tokens.size()));
    grid(m, r, v);
    if (m.picked < 0) return;
    const core::heads::HeadScores& s = r.scores[static_cast<size_t>(m.picked)];
    const auto best = [&](double (*score)(const core::heads::HeadScores&)) { return score(r.scores[static_cast<size_t>(best_by(r, score))]); };
    ImGui::TextWrapped("L%d H%d: previous-token score %.2f, induction score %.2f; the best of the %d heads: %.2f and %.2f", m.picked / r.heads + 1,
                       m.picked % r.heads + 1, previous_of(s), induction_of(s), r.layers * r.heads, best(previous_of), best(induction_of));
}

void add_model_facts(const ModelHeads& m, core::learn::Facts& f) {
    if (!m.run || m.picked < 0 || m.picked >= static_cast<int>(m.run->scores.size())) return;
    const core::heads::HeadScores& s = m.run->scores[static_cast<size_t>(m.picked)];
    f["picked_previous"] = previous_of(s);
    f["model_best_previous"] = previous_of(m.run->scores[static_cast<size_t>(best_by(*m.run, previous_of))]);
    f["picked_induction"] = induction_of(s);
    f["model_best_induction"] = induction_of(m.run->scores[static_cast<size_t>(best_by(*m.run, induction_of))]);
}

} // namespace ui
