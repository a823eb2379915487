#include "ui/panels/model/model_circuits.h"
#include "ui/model_service.h"

#include "core/model/input.h"
#include "ui/grid.h"
#include "ui/panels/shared/head_map.h"
#include "ui/widgets.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace ui {

namespace {

using core::model::CircuitsResult;
using Kind = CircuitsResult::Kind;

const char* const kind_names[] = {"Logit lens", "Attribution", "Patching"};
const char* const kind_titles[] = {"The logit lens", "Direct logit attribution", "Activation patching"};
const char* const kind_about[] = {"each layer's top token at each position, through the final norm and the head",
                                  "each head's and MLP's direct share of the token's logit",
                                  "what each part copied from the clean run into the corrupted one recovers"};
const char* const kind_hints[] = {"Run shows each layer's most likely next token at each position of the prompt.",
                                  "Give a token (text or #ID) and Run: each head's direct share of its logit at the selected position.",
                                  ("Give the answer, the other token and a corrupted prompt, and Run: what patching each head from the "
                                   "prompt into the corrupted one recovers.")};

CircuitsResult failed(const std::string& error) {
    CircuitsResult r;
    r.error = error;
    return r;
}

// What a job started now is measured on: the open model and the prompt shown.
ModelCircuitsView::Measured measured_now(const ModelService& m) {
    ModelCircuitsView::Measured now;
    now.model = m.models_opened;
    now.model_name = m.shown->model;
    now.prompt = m.shown->request.text;
    now.labels = m.shown->labels;
    return now;
}

// What Run asks of the prompt shown; throws InputError for a token that is not one.
core::model::CircuitsRequest request_of(const ModelCircuitsView& st, const ModelService& m) {
    const std::shared_ptr<const core::model::Tokenizer> tok = m.session.tokenizer();
    const core::model::ModelConfig& c = m.session.opened()->model->config();
    core::model::CircuitsRequest q;
    q.ids = m.shown->ids;
    if (st.kind == 0) return q;
    const bool loss = st.kind == 2 && st.loss;
    const int target = loss ? 0 : core::model::token_id(st.target, *tok, c);
    const int vs = loss || (st.kind == 1 && st.vs.empty()) ? -1 : core::model::token_id(st.vs, *tok, c);
    if (st.kind == 1) {
        q.kind = Kind::attribution;
        q.target = target, q.vs = vs, q.position = m.query_position();
        return q;
    }
    q.kind = Kind::patching;
    q.corrupt = core::model::encode_prompt(st.corrupt, *tok, c).ids;
    q.metric = core::model::PatchMetric{target, vs, loss};
    q.by = st.patch_by == 1 ? core::model::PatchBy::position : core::model::PatchBy::head;
    return q;
}

// Starts the request on the open model's worker.
void start(ModelCircuitsView& st, const ModelService& m, core::model::CircuitsRequest q) {
    st.job.start([opened = m.session.opened(), q = std::move(q)](const core::TaskControl& c) { return core::model::run_circuits(*opened->model, q, &c); });
}

// A pair of radio buttons setting `value` to 0 or 1, remembered as "model circuits NAME".
void choice(View& v, int& value, const char* first, const char* second) {
    for (int k = 0; k < 2; ++k) {
        if (k) ImGui::SameLine();
        if (ImGui::RadioButton(k ? second : first, value == k)) value = k;
        remember(v, (std::string("model circuits ") + (k ? second : first)).c_str());
    }
}

// Patching's choices: what is patched and what is measured.
void patching_controls(View& v, ModelCircuitsView& st) {
    choice(v, st.patch_by, "By head", "By position");
    ImGui::SameLine(0, 1.5f * em());
    int metric = st.loss ? 1 : 0;
    choice(v, metric, "Logit difference", "Loss");
    st.loss = metric == 1;
    tip("Logit difference: the answer's logit minus the other's at the last position. Loss: the mean next-token loss "
        "on the clean prompt's tokens (the prompts then have one length).");
    ImGui::SetNextItemWidth(-FLT_MIN);
    ImGui::InputTextWithHint("##corrupt", "the corrupted prompt", &st.corrupt);
    remember(v, "model circuits corrupt");
}

// What to measure, its tokens, and Run / Cancel with the progress of a running job.
void controls(View& v, ModelService& m, ModelCircuitsView& st) {
    for (int k = 0; k < 3; ++k) {
        if (k) ImGui::SameLine();
        if (ImGui::RadioButton(kind_names[k], st.kind == k)) st.kind = k;
        remember(v, (std::string("model circuits ") + kind_names[k]).c_str());
    }
    if (st.kind == 1 || (st.kind == 2 && !st.loss)) {
        ImGui::SetNextItemWidth(8 * em());
        ImGui::InputTextWithHint("##target", st.kind == 1 ? "token" : "answer", &st.target);
        remember(v, "model circuits target");
        tip("A text that is one token of the model's vocabulary, or #ID.");
        ImGui::SameLine();
        ImGui::SetNextItemWidth(8 * em());
        ImGui::InputTextWithHint("##vs", st.kind == 1 ? "minus (optional)" : "minus", &st.vs);
        remember(v, "model circuits vs");
    }
    if (st.kind == 2) patching_controls(v, st);
    if (const auto p = st.job.progress(); p.busy) {
        v.motion.moving = true; // the progress bar
        if (ImGui::Button("Cancel")) st.job.cancel();
        remember(v, "model circuits cancel");
        ImGui::SameLine();
        ImGui::ProgressBar(p.total > 0 ? static_cast<float>(p.done) / static_cast<float>(p.total) : 0.0f, ImVec2(-1, 0));
        return;
    }
    ImGui::BeginDisabled(!m.shown || m.shown->t() == 0);
    if (ImGui::Button("Run")) {
        st.running = measured_now(m);
        st.running_kind = st.kind;
        try {
            start(st, m, request_of(st, m));
        } catch (const std::exception& e) {
            st.running.result = std::make_shared<const CircuitsResult>(failed(e.what()));
            st.measured[st.kind] = std::move(st.running);
        }
    }
    remember(v, "model circuits run");
    ImGui::EndDisabled();
}

// How many cells of a rows × cols grid of `cell` cells show in `avail` past the labels.
float cells_in_view(ImVec2 avail, ImVec2 labels, ImVec2 cell, int rows, int cols) {
    return std::min(static_cast<float>(cols), std::max(0.0f, avail.x - labels.x) / cell.x) *
           std::min(static_cast<float>(rows), std::max(0.0f, avail.y - labels.y) / cell.y);
}

// The lens's colours: the top token's probability, 0 to 1, on one line.
void lens_legend() {
    ImGui::TextDisabled("colour: the top token's probability  0");
    ImGui::SameLine();
    const ImVec2 at = ImGui::GetCursorScreenPos(), size(8 * em(), ImGui::GetTextLineHeight());
    constexpr int steps = 16;
    for (int k = 0; k < steps; ++k) {
        const float x0 = at.x + size.x * static_cast<float>(k) / steps, x1 = at.x + size.x * static_cast<float>(k + 1) / steps;
        ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(x0, at.y), ImVec2(x1 + 0.5f, at.y + size.y), sequential_color((k + 0.5) / steps));
    }
    ImGui::Dummy(size);
    ImGui::SameLine();
    ImGui::TextDisabled("1");
}

// The lens: each layer's top token at each position, on a colour of its probability. The positions
// run across, or down when that shows more of the grid (a long prompt in a tall panel).
void lens_grid(View& v, const ModelService& m, const core::model::LogitLens& lens, const std::vector<std::string>& labels) {
    const std::shared_ptr<const core::model::Tokenizer> tok = m.session.tokenizer();
    const auto label = [&](int id) { return tok && tok->vocab_size() ? tok->token_display(id) : std::to_string(id); };
    const auto at = [&](int l, int i) { return static_cast<std::size_t>(l) * static_cast<std::size_t>(lens.t) + static_cast<std::size_t>(i); };
    const auto position_label = [&](int i) { return i < static_cast<int>(labels.size()) ? labels[static_cast<std::size_t>(i)] : std::to_string(i + 1); };
    const auto layer_label = [](int l) { return "L" + std::to_string(l + 1); };
    lens_legend();
    GridSpec g;
    g.id = "lens";
    g.cell_w = 4.5f * em();
    g.cell_h = ImGui::GetTextLineHeightWithSpacing();
    g.max_size = ImGui::GetContentRegionAvail();
    const ImVec2 cell(g.cell_w, g.cell_h);
    const bool down = cells_in_view(g.max_size, ImVec2(7 * em(), g.cell_h), cell, lens.t, lens.layers) >
                      cells_in_view(g.max_size, ImVec2(2.5f * em(), g.cell_h), cell, lens.layers, lens.t);
    g.rows = down ? lens.t : lens.layers;
    g.cols = down ? lens.layers : lens.t;
    g.row_header_w = down ? 7 * em() : 2.5f * em();
    g.row_label = [&](int r) { return down ? fit_text(position_label(r), 6.7f * em()) : layer_label(r); };
    g.col_label = [&](int c) { return down ? layer_label(c) : position_label(c); };
    // (layer, position) of the cell in row r, column c.
    const auto layer_of = [down](int r, int c) { return down ? c : r; };
    const auto position_of = [down](int r, int c) { return down ? r : c; };
    g.cell = [&](int r, int c, const ImRect& rect) {
        const int l = layer_of(r, c), i = position_of(r, c);
        const double p = lens.p[at(l, i) * static_cast<std::size_t>(lens.k)];
        const ImU32 back = sequential_color(p);
        ImGui::GetWindowDrawList()->AddRectFilled(rect.Min, rect.Max, back);
        cell_text(rect, fit_text(label(lens.top[at(l, i) * static_cast<std::size_t>(lens.k)]), rect.GetWidth()), text_color_on(back));
    };
    g.cell_tooltip = [&](int r, int c) {
        const int l = layer_of(r, c), i = position_of(r, c);
        std::string text = "after layer " + std::to_string(l + 1) + ", position " + std::to_string(i + 1);
        for (int j = 0; j < lens.k; ++j) {
            char line[96];
            std::snprintf(line, sizeof line, "\n%.3f  ", lens.p[at(l, i) * static_cast<std::size_t>(lens.k) + static_cast<std::size_t>(j)]);
            text += line + label(lens.top[at(l, i) * static_cast<std::size_t>(lens.k) + static_cast<std::size_t>(j)]);
        }
        if (i + 1 < lens.t) text += "\nthe next token: p " + std::to_string(lens.p_next[at(l, i)]) + ", rank " + std::to_string(lens.rank_next[at(l, i)]);
        ImGui::SetTooltip("%s", text.c_str());
    };
    v.grids[g.id] = draw_grid(g);
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

// A (layers, corrupted positions) map of what patching the stream entering each layer at each
// position recovers; hover names the cell, a click selects its layer.
void position_map(View& v, ModelService& m, ModelCircuitsView& st, const CircuitsResult& r) {
    const core::Matrix& d = r.patching.recovery;
    const std::shared_ptr<const core::model::Tokenizer> tok = m.session.tokenizer();
    const auto label = [&](int i) { return tok && tok->vocab_size() ? tok->token_display(r.corrupt[static_cast<std::size_t>(i)]) : std::to_string(i + 1); };
    const double top = colour_span(d);
    GridSpec g;
    g.id = "circuits positions";
    g.rows = static_cast<int>(d.rows());
    g.cols = static_cast<int>(d.cols());
    g.cell_w = 3.5f * em();
    g.cell_h = ImGui::GetTextLineHeightWithSpacing();
    g.row_header_w = 2.5f * em();
    g.max_size = ImGui::GetContentRegionAvail();
    g.row_label = [](int l) { return "L" + std::to_string(l + 1); };
    g.col_label = [&](int i) { return fit_text(label(i), g.cell_w); };
    g.cell = [&](int l, int i, const ImRect& rect) {
        const double x = d(l, i);
        const ImU32 back = std::isfinite(x) ? diverging_color(x / top) : masked_color();
        ImGui::GetWindowDrawList()->AddRectFilled(rect.Min, rect.Max, back);
        if (std::isfinite(x)) cell_text(rect, fit_text(std::to_string(static_cast<int>(std::lround(x * 100))) + "%", rect.GetWidth()), text_color_on(back));
        if (l == m.layer) ImGui::GetWindowDrawList()->AddRect(rect.Min, rect.Max, selection_color());
    };
    g.cell_tooltip = [&](int l, int i) {
        st.hovered = l * g.cols + i;
        st.hovered_value = d(l, i);
        if (!std::isfinite(d(l, i))) return ImGui::SetTooltip("layer %d, position %d (%s)\nno clean token stands for it", l + 1, i + 1, label(i).c_str());
        ImGui::SetTooltip("the stream entering layer %d at position %d (%s)\nrecovers %+.4f", l + 1, i + 1, label(i).c_str(), d(l, i));
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) m.layer = l;
    };
    v.grids[g.id] = draw_grid(g);
}

void show(View& v, ModelService& m, ModelCircuitsView& st, const ModelCircuitsView::Measured& measured) {
    const CircuitsResult& r = *measured.result;
    if (!r.error.empty()) return error_text(r.error);
    if (m.shown && r.ids != m.shown->ids)
        dim_text("Measured on " + measured.model_name + " with the prompt \"" + measured.prompt + "\": run again for this one.");
    if (r.kind == Kind::lens) return lens_grid(v, m, r.lens, measured.labels);
    if (r.kind == Kind::attribution) {
        const core::model::Attribution& a = r.attribution;
        double mlps = 0.0;
        for (const double x : a.mlps) mlps += x;
        ImGui::TextWrapped("At position %d: logit %.3f = embeddings %.3f + heads %.3f + MLPs %.3f + biases %.3f", a.position + 1, a.logit, a.embed,
                           a.heads.sum(), mlps, a.bias);
        return head_map(v, m, st, a.heads, "writes");
    }
    const core::model::Patching& p = r.patching;
    const bool by_head = p.by == core::model::PatchBy::head;
    ImGui::TextWrapped("%s: clean %.3f, corrupted %.3f. %s from the clean run:", p.metric.loss ? "Loss" : "Logit difference", p.clean_metric, p.corrupt_metric,
                       by_head ? "Each head's output" : "The stream entering each layer at each position");
    if (by_head) return head_map(v, m, st, p.recovery, "recovers");
    position_map(v, m, st, r);
}

} // namespace

void draw_model_circuits_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelCircuitsView& st = v.state<ModelCircuitsView>();
    st.hovered = -1;
    if (auto done = st.job.take()) {
        CircuitsResult r = done->result ? std::move(*done->result) : failed(done->cancelled ? "Cancelled." : done->error);
        st.running.result = std::make_shared<const CircuitsResult>(std::move(r));
        st.measured[st.running_kind] = std::move(st.running);
    }
    for (ModelCircuitsView::Measured& measured : st.measured)
        if (measured.model != m.models_opened) measured = {};
    if (!m.session.has_model()) return dim_text("No model is open.");
    controls(v, m, st);
    ImGui::Separator();
    ImGui::TextUnformatted(kind_titles[st.kind]);
    ImGui::SameLine();
    ImGui::TextDisabled("%s", fit_text(kind_about[st.kind], ImGui::GetContentRegionAvail().x).c_str());
    tip(kind_about[st.kind]);
    const ModelCircuitsView::Measured& measured = st.measured[st.kind];
    if (measured.result) show(v, m, st, measured);
    else if (!st.job.busy() || st.running_kind != st.kind) dim_text(kind_hints[st.kind]);
}

} // namespace ui
