// ui/panels/model/model_state.cpp — a linear head's recurrent state, step by step (model_state.h).
#include "ui/panels/model/model_state.h"
#include "ui/model_service.h"

#include "core/error_text.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

bool linear_layer(const core::model::Snapshot& s, int l) {
    return static_cast<std::size_t>(l) < s.result.kinds.size() && s.result.kinds[static_cast<std::size_t>(l)].linear;
}

// The run the panel steps through: the generation that continues the shown prompt, or the prompt's own.
struct Stepped {
    std::shared_ptr<const core::model::ForwardResult> run;
    const std::vector<std::string>* labels = nullptr; // (t_total)
    int cached = 0;                                   // the positions before the run's own, from its cache
    int prompt = 0;                                   // a generation's prompt positions
};

Stepped stepped(const ModelService& m) {
    const core::model::Snapshot& s = *m.shown;
    const ModelService::Continued* c = m.continued.get();
    if (c && c->continues(s)) return {c->run, &c->labels, c->run->t_total - c->run->t_new, c->prompt_length};
    return {std::shared_ptr<const core::model::ForwardResult>(m.shown, &s.result), &s.labels, 0, s.t()};
}

// Asks the session's worker for the state of `of` in `run` (the newest asked wins when it publishes).
void ask_state(ModelService& m, ModelStateView& st, const StateAsked& of, std::shared_ptr<const core::model::ForwardResult> run) {
    st.asked = of;
    std::shared_ptr<StateShared> shared = st.shared;
    m.session.post([shared, run = std::move(run), of](const core::model::OpenedModel&, const core::model::Tokenizer&, const std::atomic<bool>&) {
        auto p = std::make_shared<StatePublished>();
        p->of = of;
        try {
            p->state = run->maps.linear_state(of.layer, of.head, of.position);
        } catch (const std::exception& e) {
            p->error = core::error_text(e);
        }
        std::lock_guard<std::mutex> lock(shared->mutex);
        shared->published = std::move(p);
    });
}

// ◂ ▸, a slider over positions 1 … t and the arrow keys: each moves `position`; returns where it is.
int step_control(View& v, int position, int t) {
    if (ImGui::ArrowButton("earlier", ImGuiDir_Left)) position = std::max(0, position - 1);
    remember(v, "model state earlier");
    ImGui::SameLine();
    if (ImGui::ArrowButton("later", ImGuiDir_Right)) position = std::min(t - 1, position + 1);
    remember(v, "model state later");
    ImGui::SameLine();
    int shown = position + 1;
    ImGui::SetNextItemWidth(std::min(16.0f * em(), ImGui::GetContentRegionAvail().x));
    if (ImGui::SliderInt("position", &shown, 1, t)) position = shown - 1;
    remember(v, "model state position");
    if (ImGui::IsWindowFocused(ImGuiFocusedFlags_RootAndChildWindows) && !ImGui::IsAnyItemActive()) {
        if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_LeftArrow))) position = std::max(0, position - 1);
        if (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_RightArrow))) position = std::min(t - 1, position + 1);
    }
    return position;
}

// The selected position: the prompt's query, or the generation's own (its positions run past the prompt).
int step_position(View& v, ModelService& m, ModelStateView& st, int t) {
    if (!st.generation) {
        const int position = step_control(v, m.query_position(), t);
        if (position != m.query_position()) m.query = position;
        return position;
    }
    const int now = st.generated_position < 0 || st.generated_position >= t ? t - 1 : st.generated_position;
    const int position = step_control(v, now, t);
    if (position != now) st.generated_position = position;
    return position;
}

// Why a linear head shows no state.
std::string no_state_text(const core::model::ForwardResult& run, int layer) {
    const core::model::AttentionMaps::Layer* kept = run.maps.kept(layer);
    if (kept && kept->v.empty())
        return "The generation began before the State panel opened, so the values of its first positions were not kept: "
               "Start over in the Steps panel to keep them.";
    return "This head has no value head of its own in the layer: it keeps no state.";
}

// S (d_k, d_v) as cells on the diverging map from −range to +range, with its colour bar; hover names a cell.
void state_map(const core::heads::MatrixF& S, float range) {
    const int rows = static_cast<int>(S.rows()), cols = static_cast<int>(S.cols());
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float bar = 4.5f * em();
    const float cell = std::max(1.0f, std::min((avail.x - bar) / static_cast<float>(cols), (avail.y - 0.5f * em()) / static_cast<float>(rows)));
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const ImVec2 p(origin.x + static_cast<float>(c) * cell, origin.y + static_cast<float>(r) * cell);
            draw->AddRectFilled(p, ImVec2(p.x + cell, p.y + cell), diverging_color(S(r, c) / range));
        }
    const ImVec2 size(cell * static_cast<float>(cols), cell * static_cast<float>(rows));
    colour_bar(draw, ImVec2(origin.x + size.x + 0.5f * em(), origin.y), size.y, range, true);
    ImGui::InvisibleButton("state map", ImVec2(size.x + bar, size.y));
    if (!ImGui::IsItemHovered()) return;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int r = static_cast<int>((mouse.y - origin.y) / cell), c = static_cast<int>((mouse.x - origin.x) / cell);
    if (r >= 0 && r < rows && c >= 0 && c < cols)
        ImGui::SetTooltip("S[%d, %d] = %+.4f\nrow: a key dimension, column: a value dimension", r + 1, c + 1, static_cast<double>(S(r, c)));
}

} // namespace

void draw_model_state_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelStateView& st = v.state<ModelStateView>();
    st.linear = st.generation = false;
    if (!m.has_attention()) return dim_text(m.session.has_model() ? "The state appears once the prompt has run." : "No model is open.");
    const core::model::Snapshot& s = *m.shown;
    if (!linear_layer(s, m.layer))
        return dim_text("Head " + std::to_string(m.layer + 1) + "." + std::to_string(m.head + 1) +
                        " is a softmax head: it keeps no state, it weighs every earlier key afresh at each position.");
    st.linear = true;
    if (!s.request.capture_qkv) { // a run from before the panel opened: its values were not kept
        if (m.seen == m.asked) m.run_prompt();
        return dim_text("Keeping the linear layers' values…");
    }
    const Stepped run = stepped(m);
    st.generation = run.cached > 0;
    const int t = run.run->t_total, i = step_position(v, m, st, t);
    const StateAsked of{s.serial, t, m.layer, m.head, i};
    if (!(of == st.asked)) ask_state(m, st, of, run.run);
    {
        std::lock_guard<std::mutex> lock(st.shared->mutex);
        if (st.shared->published) st.shown = st.shared->published;
    }
    ImGui::Text("State of head %d.%d after position %d (%s)", m.layer + 1, m.head + 1, i + 1, (*run.labels)[static_cast<std::size_t>(i)].c_str());
    if (st.generation)
        dim_text("Generated on the prompt's cache: " + std::to_string(run.prompt) + " prompt positions and " + std::to_string(t - run.prompt) +
                 " generated. Positions 1 to " + std::to_string(run.cached) + " came from the cache.");
    if (!st.shown || !(st.shown->of == of)) {
        v.motion.moving = true;
        return dim_text("Working out the state…");
    }
    if (!st.shown->error.empty()) return dim_text(st.shown->error);
    if (!st.shown->state) return dim_text(no_state_text(*run.run, m.layer));
    const core::heads::MatrixF& S = *st.shown->state;
    st.range = std::max(1e-12f, S.cwiseAbs().maxCoeff());
    dim_text("d_k " + std::to_string(S.rows()) + " (rows) × d_v " + std::to_string(S.cols()) + " (columns); query i reads S along q_i: o_i = Sᵀ q_i.");
    state_map(S, st.range);
}

} // namespace ui
