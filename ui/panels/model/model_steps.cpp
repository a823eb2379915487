// ui/panels/model/model_steps.cpp
//
// [SECTION] Tasks on the session's worker
// [SECTION] The panel
#include "ui/panels/model/model_steps.h"
#include "ui/model_service.h"
#include "core/error_text.h"

#include "core/edits.h"
#include "core/model/head_scenario.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cstdio>

namespace ui {

namespace {

using core::model::OpenedModel;
using core::model::Tokenizer;

//-----------------------------------------------------------------------------
// [SECTION] Tasks on the session's worker
//-----------------------------------------------------------------------------

std::string label_of(const Tokenizer& tok, int id) { return tok.vocab_size() ? tok.token_display(id) : std::to_string(id); }

// The prompt and the generated continuation as text: the continuation is what decoding it after
// the prompt adds (a Metaspace decoder drops the space of a text's first word), else its labels.
void texts(StepsPublished& p, const Tokenizer& tok) {
    const std::vector<int> prompt(p.ids.begin(), p.ids.begin() + p.prompt_length);
    if (!tok.vocab_size()) {
        for (std::size_t i = 0; i < p.labels.size(); ++i) (static_cast<int>(i) < p.prompt_length ? p.prompt_text : p.made_text) += p.labels[i] + " ";
        return;
    }
    p.prompt_text = tok.decode(prompt);
    const std::string all = tok.decode(p.ids);
    p.made_text = all.compare(0, p.prompt_text.size(), p.prompt_text) == 0 ? all.substr(p.prompt_text.size())
                                                                           : tok.decode({p.ids.begin() + p.prompt_length, p.ids.end()});
}

// The stepper's state as the panel shows it (on the worker, after a step).
// `values`: the steps keep the linear layers' values, and the State panel gets the run.
StepsPublished publish(const core::model::Stepper& st, const OpenedModel& m, std::vector<std::string> labels, bool values) {
    StepsPublished p;
    p.ids = st.ids();
    p.labels = std::move(labels);
    p.prompt_length = st.prompt_length();
    p.layers = st.last().layers;
    p.heads = st.last().heads;
    p.t = st.last().t_total;
    for (int l = 0; l < p.layers; ++l)
        for (int h = 0; h < p.heads; ++h) {
            const std::vector<float> row = st.newest_row({l, h});
            p.newest.insert(p.newest.end(), row.begin(), row.end());
        }
    p.cache = core::model::cache_size(m.model->config(), st.cache());
    p.can_step = st.can_step(*m.model);
    p.ended = st.ended(*m.model);
    if (values) p.run = std::make_shared<const core::model::ForwardResult>(st.last());
    return p;
}

// One token, after (re)starting from `prompt` when `restart`.
void post_step(core::model::Session& session, std::shared_ptr<StepsShared> shared, bool restart, std::vector<int> prompt,
               std::vector<std::string> prompt_labels, core::model::ForwardOptions options) {
    std::lock_guard<std::mutex> counting(shared->mutex); // held until posted: the task cannot finish before it counts
    ++shared->busy;
    if (!session.post([shared, restart, prompt, prompt_labels, options](const OpenedModel& m, const Tokenizer& tok, const std::atomic<bool>& cancel) {
        StepsPublished p;
        try {
            core::model::Stepper& st = shared->stepper;
            if (restart) st.start(*m.model, prompt, options);
            st.step(*m.model, &cancel);
            std::vector<std::string> labels = restart ? prompt_labels : [&] {
                std::lock_guard<std::mutex> lock(shared->mutex);
                return shared->published.labels;
            }();
            labels.resize(static_cast<std::size_t>(st.prompt_length()));
            for (std::size_t i = labels.size(); i < st.ids().size(); ++i) labels.push_back(label_of(tok, st.ids()[i]));
            p = publish(st, m, std::move(labels), options.linear_values);
            texts(p, tok);
        } catch (const std::exception& e) {
            std::lock_guard<std::mutex> lock(shared->mutex);
            if (!restart) p = shared->published; // a refused restart shows nothing of the prompt before
            p.error = e.what();
        }
        std::lock_guard<std::mutex> lock(shared->mutex);
        shared->published = std::move(p);
        --shared->busy;
    }))
        --shared->busy;
}

void post_open(core::model::Session& session, std::shared_ptr<StepsShared> shared, std::vector<int> ids, std::vector<std::string> labels,
               core::model::HeadRef head) {
    std::lock_guard<std::mutex> counting(shared->mutex); // held until posted: the task cannot finish before it counts
    ++shared->busy;
    if (!session.post([shared, ids, labels, head](const OpenedModel& m, const Tokenizer&, const std::atomic<bool>& cancel) {
        std::optional<core::Scenario> made;
        std::string error;
        try {
            made = core::model::head_scenario(*m.model, ids, head, labels, &cancel);
        } catch (const std::exception& e) {
            error = core::error_text(e);
        }
        std::lock_guard<std::mutex> lock(shared->mutex);
        shared->opened = std::move(made);
        shared->opened_title = m.name + ", layer " + std::to_string(head.layer + 1) + " head " + std::to_string(head.head + 1);
        shared->published.error = error;
        --shared->busy;
    }))
        --shared->busy;
}

//-----------------------------------------------------------------------------
// [SECTION] The panel
//-----------------------------------------------------------------------------

// The latest step's run to the State panel (ModelService::continued), once per step.
void share_run(const ModelStepsView& st, ModelService& m) {
    if (!st.shown.run || st.started_from < 0 || st.busy) return; // busy: what is shown may be the step before a restart
    if (m.continued && m.continued->run == st.shown.run) return;
    auto c = std::make_shared<ModelService::Continued>();
    c->from = st.started_from;
    c->labels = st.shown.labels;
    c->prompt_length = st.shown.prompt_length;
    c->run = st.shown.run;
    m.continued = std::move(c);
}

// A head built on the worker goes into the editor, and Explore opens (its tab bar leads back).
void take_opened(ModelStepsView& st, core::Scenario& s, View& v) {
    std::optional<core::Scenario> opened;
    std::string title;
    {
        std::lock_guard<std::mutex> lock(st.shared->mutex);
        opened.swap(st.shared->opened);
        title = st.shared->opened_title;
        st.shown = st.shared->published;
        st.busy = st.shared->busy > 0;
    }
    share_run(st, v.state<ModelService>());
    if (!opened) return;
    core::edits::replace_scenario(s, std::move(*opened));
    v.request_workspace = "explore";
    v.tell("Opened " + title + " in the editor: its Q, K and V as the model used them", false);
}

std::string bytes_text(std::size_t n) {
    std::string digits = std::to_string(n), out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

void cache_lines(const core::model::CacheSize& c) {
    ImGui::TextWrapped("KV cache: 2 · %d layers · %d key/value heads · %d d_head · %d tokens · %d bytes = %s bytes", c.layers, c.kv_heads, c.d_head,
                       c.length, c.bytes_per_number, bytes_text(c.bytes()).c_str());
    if (c.kv_heads < c.heads)
        dim_text("Without grouped-query attention (" + std::to_string(c.heads) + " key/value heads) it would be " + bytes_text(c.bytes_without_gqa()) +
                 " bytes: sharing keeps " + std::to_string(100 * c.kv_heads / c.heads) + " % of that.");
}

// The generated text so far and the head's new row over every cached key.
void steps_shown(const ModelStepsView& st, const ModelService& m) {
    const StepsPublished& p = st.shown;
    ImGui::TextWrapped("%s", p.prompt_text.c_str());
    coloured_text(good_text_colour(), p.made_text);
    ImGui::Text("New token: %s (id %d) at position %d", p.labels.back().c_str(), p.ids.back(), static_cast<int>(p.ids.size()));
    if (p.ended) dim_text("That is the model's end-of-text token: generating stops there, as --generate does.");
    cache_lines(p.cache);
    if (m.layer >= p.layers || m.head >= p.heads) return;
    const float* row = p.newest.data() + (static_cast<std::size_t>(m.layer) * static_cast<std::size_t>(p.heads) + static_cast<std::size_t>(m.head)) *
                                              static_cast<std::size_t>(p.t);
    ImGui::Text("Layer %d head %d: the new query's weights over the %d cached keys", m.layer + 1, m.head + 1, p.t);
    const double top = *std::max_element(row, row + p.t);
    ImGui::BeginChild("row", ImVec2(0, 0), true);
    weight_bars(p.t, 7 * em(), selection_color(), top, [&](int j) { return p.labels[static_cast<std::size_t>(j)].c_str(); },
                [&](int j) { return static_cast<double>(row[j]); }, [](int) { return false; });
    ImGui::EndChild();
}

} // namespace

void draw_model_steps_panel(core::Scenario& s, View& v) {
    ModelService& m = v.state<ModelService>();
    ModelStepsView& st = v.state<ModelStepsView>();
    take_opened(st, s, v);
    if (!m.has_attention()) {
        dim_text(m.session.has_model() ? "The head's tools appear once the prompt has run." : "No model is open.");
        return;
    }
    const core::model::Snapshot& snap = *m.shown;
    ImGui::Text("Layer %d, head %d on %d tokens", m.layer + 1, m.head + 1, snap.t());
    ImGui::SameLine();
    ImGui::BeginDisabled(st.busy);
    if (ImGui::Button("Open in editor")) post_open(m.session, st.shared, snap.ids, snap.labels, {m.layer, m.head});
    remember(v, "model_steps.open");
    tip("This head on this prompt as a scenario in Explore, with its own Q, K and V (after RoPE for Llama-family models, the head's "
        "slices of the projections for GPT-2 and BERT): the calculation, the arrow, the heatmap and the decoder then show it. "
        "The tab bar's Back returns here.");
    ImGui::EndDisabled();
    const char* compare = "Compare a second prompt…";
    same_line_if_fits(ImGui::CalcTextSize(compare).x + 2 * ImGui::GetStyle().FramePadding.x);
    if (ImGui::Button(compare)) {
        v.open["model_compare"] = true;
        v.bring_to_front.push_back("model_compare");
    }
    remember(v, "model_steps.compare");
    ImGui::Separator();
    ImGui::TextUnformatted("Generate step by step");
    ImGui::SameLine();
    ImGui::BeginDisabled(st.busy);
    const bool fresh = st.started_from != snap.serial || st.shown.ids.empty();
    const bool can = fresh || st.shown.can_step;
    ImGui::BeginDisabled(!can || !m.session.causal());
    if (ImGui::Button("Next token")) {
        core::model::ForwardOptions o;
        snap.request.knock_out(o);
        o.linear_values = m.want_qkv; // the State panel's, from the prompt's first position
        post_step(m.session, st.shared, fresh, snap.ids, snap.labels, o);
        st.started_from = snap.serial;
    }
    remember(v, "model_steps.next");
    tip("Greedy decoding on the model's own KV cache: one click appends the most likely token and one key and value row per layer.");
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Start over")) { // the next token starts from the prompt
        st.started_from = -1;
        m.continued = nullptr;
    }
    remember(v, "model_steps.restart");
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (st.busy) dim_text("running…");
    else if (!m.session.causal()) dim_text("This model attends both ways: it does not generate.");
    else if (!can && st.shown.ended) dim_text("End of text.");
    else if (!can) dim_text("The context is full.");
    else if (st.shown.ids.empty() || fresh) dim_text("Generate step by step from the prompt.");
    else ImGui::NewLine(); // nothing to say: what follows starts on its own line
    if (!st.shown.error.empty()) error_text(st.shown.error);
    if (!fresh && !st.shown.ids.empty()) steps_shown(st, m);
}

} // namespace ui
