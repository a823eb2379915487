#include "ui/panels/model_circuits.h"
#include "ui/model_service.h"

#include "core/model/input.h"
#include "ui/grid.h"
#include "ui/head_map.h"
#include "ui/widgets.h"

#include <imgui_stdlib.h>

#include <optional>
#include <cstdio>
#include <string>

namespace ui {

namespace {

using core::model::CircuitsResult;
using Kind = CircuitsResult::Kind;

const char* const kind_names[] = {"Logit lens", "Attribution", "Patching"};

CircuitsResult failed(const std::string& error) {
    CircuitsResult r;
    r.error = error;
    return r;
}

// What Run starts on the prompt shown; throws InputError for a token that is not one.
core::model::CircuitsJob::Work work_of(const ModelCircuitsView& st, const ModelService& m) {
    const std::shared_ptr<const core::model::OpenedModel> opened = m.session.opened();
    const std::shared_ptr<const core::model::Tokenizer> tok = m.session.tokenizer();
    const core::model::ModelConfig& c = opened->model->config();
    const std::vector<int> ids = m.shown->ids;
    const int position = m.query_position();
    if (st.kind == 0)
        return [opened, ids](const std::atomic<bool>*, const std::function<void(int, int)>&) {
            CircuitsResult r;
            r.ids = ids;
            r.lens = core::model::logit_lens(*opened->model, ids, 3);
            return r;
        };
    const int target = core::model::token_id(st.target, *tok, c);
    const int vs = st.kind == 1 && st.vs.empty() ? -1 : core::model::token_id(st.vs, *tok, c);
    if (st.kind == 1)
        return [opened, ids, target, vs, position](const std::atomic<bool>*, const std::function<void(int, int)>&) {
            CircuitsResult r;
            r.kind = Kind::attribution;
            r.ids = ids;
            r.attribution = core::model::direct_attribution(*opened->model, ids, target, vs, position);
            return r;
        };
    const std::vector<int> corrupt = core::model::encode_prompt(st.corrupt, *tok, c).ids;
    return [opened, ids, corrupt, target, vs](const std::atomic<bool>* stop, const std::function<void(int, int)>& progress) {
        CircuitsResult r;
        r.kind = Kind::patching;
        r.ids = ids;
        r.patching = core::model::activation_patching(*opened->model, ids, corrupt, {target, vs, false}, core::model::PatchBy::head, stop, progress);
        return r;
    };
}

// What to measure, its tokens, and Run / Cancel with the progress of a running job.
void controls(View& v, ModelService& m, ModelCircuitsView& st) {
    for (int k = 0; k < 3; ++k) {
        if (k) ImGui::SameLine();
        if (ImGui::RadioButton(kind_names[k], st.kind == k)) st.kind = k;
        remember(v, (std::string("model circuits ") + kind_names[k]).c_str());
    }
    if (st.kind > 0) {
        ImGui::SetNextItemWidth(8 * em());
        ImGui::InputTextWithHint("##target", st.kind == 1 ? "token" : "answer", &st.target);
        remember(v, "model circuits target");
        tip("A text that is one token of the model's vocabulary, or #ID.");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(8 * em());
        ImGui::InputTextWithHint("##vs", st.kind == 1 ? "minus (optional)" : "minus", &st.vs);
        remember(v, "model circuits vs");
    }
    if (st.kind == 2) {
        ImGui::SetNextItemWidth(-FLT_MIN);
        ImGui::InputTextWithHint("##corrupt", "the corrupted prompt", &st.corrupt);
        remember(v, "model circuits corrupt");
    }
    if (st.job.running()) {
        v.motion.moving = true; // the progress bar
        if (ImGui::Button("Cancel")) st.job.cancel();
        remember(v, "model circuits cancel");
        ImGui::SameLine();
        ImGui::ProgressBar(st.job.total() > 0 ? static_cast<float>(st.job.done()) / static_cast<float>(st.job.total()) : 0.0f, ImVec2(-1, 0));
        return;
    }
    ImGui::BeginDisabled(!m.shown || m.shown->t() == 0);
    if (ImGui::Button("Run")) {
        try {
            st.job.start(work_of(st, m));
        } catch (const std::exception& e) {
            st.result = std::make_shared<const CircuitsResult>(failed(e.what()));
        }
    }
    remember(v, "model circuits run");
    ImGui::EndDisabled();
}

// The lens: rows the layers, columns the positions, each cell the layer's top token on a colour of
// its probability.
void lens_grid(const ModelService& m, const core::model::LogitLens& lens) {
    const std::shared_ptr<const core::model::Tokenizer> tok = m.session.tokenizer();
    const auto label = [&](int id) { return tok && tok->vocab_size() ? tok->token_display(id) : std::to_string(id); };
    const auto at = [&](int l, int i) { return static_cast<std::size_t>(l) * static_cast<std::size_t>(lens.t) + static_cast<std::size_t>(i); };
    GridSpec g;
    g.id = "lens";
    g.rows = lens.layers;
    g.cols = lens.t;
    g.cell_w = 4.5f * em();
    g.cell_h = ImGui::GetTextLineHeightWithSpacing();
    g.row_header_w = 2.5f * em();
    g.max_size = ImGui::GetContentRegionAvail();
    g.row_label = [](int l) { return "L" + std::to_string(l + 1); };
    g.col_label = [&](int i) { return m.shown && i < m.shown->t() ? m.shown->labels[static_cast<std::size_t>(i)] : std::to_string(i + 1); };
    g.cell = [&](int l, int i, const ImRect& r) {
        const double p = lens.p[at(l, i) * static_cast<std::size_t>(lens.k)];
        const ImU32 back = sequential_color(p);
        ImGui::GetWindowDrawList()->AddRectFilled(r.Min, r.Max, back);
        cell_text(r, fit_text(label(lens.top[at(l, i) * static_cast<std::size_t>(lens.k)]), r.GetWidth()), text_color_on(back));
    };
    g.cell_tooltip = [&](int l, int i) {
        std::string text = "after layer " + std::to_string(l + 1) + ", position " + std::to_string(i + 1);
        for (int j = 0; j < lens.k; ++j) {
            char line[96];
            std::snprintf(line, sizeof line, "\n%.3f  ", lens.p[at(l, i) * static_cast<std::size_t>(lens.k) + static_cast<std::size_t>(j)]);
            text += line + label(lens.top[at(l, i) * static_cast<std::size_t>(lens.k) + static_cast<std::size_t>(j)]);
        }
        if (i + 1 < lens.t) text += "\nthe next token: p " + std::to_string(lens.p_next[at(l, i)]) + ", rank " + std::to_string(lens.rank_next[at(l, i)]);
        ImGui::SetTooltip("%s", text.c_str());
    };
    draw_grid(g);
}

// A (layers, heads) map; hover names a head's value, a click selects it.
void head_map(View& v, ModelService& m, ModelCircuitsView& st, const core::Matrix& d, const char* what) {
    const int cell = draw_head_map(v, "circuits", d, m.layer, m.head);
    if (cell < 0) return;
    const int l = cell / static_cast<int>(d.cols()), h = cell % static_cast<int>(d.cols());
    st.hovered = cell;
    st.hovered_value = d(l, h);
    ImGui::SetTooltip("layer %d, head %d\n%s %+.4f", l + 1, h + 1, what, d(l, h));
}

void show(View& v, ModelService& m, ModelCircuitsView& st, const CircuitsResult& r) {
    if (!r.error.empty()) return error_text(r.error);
    if (m.shown && r.ids != m.shown->ids) dim_text("Measured on an earlier prompt: run again for this one.");
    if (r.kind == Kind::lens) return lens_grid(m, r.lens);
    if (r.kind == Kind::attribution) {
        const core::model::Attribution& a = r.attribution;
        double mlps = 0.0;
        for (const double x : a.mlps) mlps += x;
        ImGui::TextWrapped("At position %d: logit %.3f = embeddings %.3f + heads %.3f + MLPs %.3f + biases %.3f", a.position + 1, a.logit, a.embed,
                           a.heads.sum(), mlps, a.bias);
        return head_map(v, m, st, a.heads, "writes");
    }
    const core::model::Patching& p = r.patching;
    ImGui::TextWrapped("Logit difference: clean %.3f, corrupted %.3f. Each head's output from the clean run:", p.clean_metric, p.corrupt_metric);
    head_map(v, m, st, p.recovery, "recovers");
}

} // namespace

void draw_model_circuits_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelCircuitsView& st = v.state<ModelCircuitsView>();
    st.hovered = -1;
    if (std::optional<CircuitsResult> done = st.job.take()) st.result = std::make_shared<const CircuitsResult>(std::move(*done));
    if (!m.session.has_model()) return dim_text("No model is open.");
    controls(v, m, st);
    if (st.result) show(v, m, st, *st.result);
    else if (!st.job.running()) dim_text("The logit lens, each head's direct share of a token's logit at the selected position, or what "
                                         "patching each head from the prompt into a corrupted one recovers; measured on a worker.");
}

} // namespace ui
