#include "ui/panels/model/model_importance.h"
#include "ui/model_service.h"

#include "ui/panels/shared/head_map.h"
#include "ui/widgets.h"

#include <string>

namespace ui {

namespace {

// Measure / Cancel and the progress of a running measurement.
void controls(View& v, ModelService& m, const core::model::ImportanceRun::State& st) {
    if (st.running) {
        if (cancel_and_progress(v, "model importance cancel", st.done, st.total, "heads")) m.importance.cancel();
        return;
    }
    ImGui::BeginDisabled(!m.shown || m.shown->t() < 2);
    if (ImGui::Button(st.result ? "Measure again" : "Measure head importance")) m.importance.start(m.session.opened(), m.shown->ids);
    remember(v, "model importance run");
    ImGui::EndDisabled();
    tip("Zero each head alone and measure the loss on the prompt: Δloss = loss without it − intact loss.");
    if (st.cancelled) {
        ImGui::SameLine();
        dim_text("Cancelled.");
    }
}

// The (layers, heads) map of Δloss; hover names a head's value, a click selects it.
void delta_map(View& v, ModelService& m, const core::model::ImportanceResult& r) {
    ModelImportanceView& st = v.state<ModelImportanceView>();
    const core::Matrix& d = r.importance.delta; // (layers, heads)
    ImGui::TextWrapped("Each head zeroed alone: Δloss (intact %.3f nats)", r.importance.loss);
    const int cell = draw_head_map(v, "importance", d, m.layer, m.head);
    if (cell < 0) return;
    const int l = cell / static_cast<int>(d.cols()), h = cell % static_cast<int>(d.cols());
    st.hovered = cell;
    st.hovered_delta = d(l, h);
    ImGui::SetTooltip("layer %d, head %d\nΔloss %+.4f nats (loss %.4f on %d tokens)", l + 1, h + 1, d(l, h), r.importance.loss + d(l, h),
                      static_cast<int>(r.ids.size()));
}

// Over a result of an earlier prompt: the model and the prompt it was measured on (opening another
// model forgets it, so the model is the open one).
std::string measured_on(const ModelService& m, const core::model::ImportanceResult& r) {
    const std::shared_ptr<const core::model::Tokenizer> tok = m.session.tokenizer();
    const std::string prompt = tok && tok->vocab_size() ? "\"" + tok->decode(r.ids) + "\"" : std::to_string(r.ids.size()) + " ids";
    return "Measured on " + m.session.model_name() + " with the prompt " + prompt + ": measure again for this one.";
}

} // namespace

void draw_model_importance_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    v.state<ModelImportanceView>().hovered = -1;
    if (!m.session.has_model()) {
        dim_text("No model is open.");
        return;
    }
    if (!m.session.causal()) {
        dim_text("Head importance measures the loss on the prompt, so it needs a model that predicts the next token.");
        return;
    }
    const core::model::ImportanceRun::State st = m.importance.state();
    controls(v, m, st);
    if (!st.error.empty()) error_text(st.error);
    if (st.result) {
        if (m.shown && st.result->ids != m.shown->ids) dim_text(measured_on(m, *st.result));
        delta_map(v, m, *st.result);
    } else if (!st.running) {
        dim_text("Measures each head's share of the prompt's loss, on a worker: the window stays live.");
    }
}

} // namespace ui
