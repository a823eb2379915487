// ui/panels/train/train_knockouts.cpp — see train_knockouts.h.
#include "ui/panels/train/train_knockouts.h"

#include "core/learn/expr.h"
#include "ui/widgets.h"

#include <algorithm>

namespace ui {

namespace {

// The knock-outs of the best head of the grid's scores by `score` (none without scores).
core::heads::Knockouts without_best(const core::train::SessionView& shown, core::heads::Ablation mode, core::heads::Score score) {
    const int k = core::heads::best_head(shown.heads, score);
    core::heads::Knockouts out{{}, mode};
    if (k >= 0) out.heads.push_back({k / shown.config.model.H, k % shown.config.model.H});
    return out;
}

// Measures again when anything it reads changed. False: nothing to measure yet.
bool measure(const core::heads::Knockouts& k, KnockoutMeasure& m, const KnockoutSource& src) {
    const core::train::SessionView& shown = src.shown;
    const int count = static_cast<int>(shown.checkpoint_steps.size());
    if (shown.running && count == 0) return false;
    const int checkpoint = shown.running ? count - 1 : src.checkpoint;
    const int step = shown.running ? shown.checkpoint_steps.back() : shown.step;
    if (m.step == step && m.checkpoint == checkpoint && m.heads == k.heads && m.ablation == k.ablation) return true;
    const core::train::Model model = checkpoint >= 0 ? src.session.checkpoint(checkpoint) : src.session.saved().model;
    const core::train::Batch repeat = core::train::held_out_sequences(shown.config).repeat;
    m = KnockoutMeasure{};
    m.step = step, m.checkpoint = checkpoint, m.heads = k.heads, m.ablation = k.ablation;
    m.intact = core::train::evaluate(model, repeat);
    m.without = core::train::evaluate(model, repeat, k);
    m.without_previous = core::train::evaluate(model, repeat, without_best(shown, k.ablation, core::heads::Score::previous));
    m.without_induction = core::train::evaluate(model, repeat, without_best(shown, k.ablation, core::heads::Score::induction));
    return true;
}

void publish_facts(const core::heads::Knockouts& k, const KnockoutMeasure& m, const core::train::SessionView& shown, View& v) {
    const auto& heads = shown.heads;
    core::learn::Facts& f = v.facts;
    f.clear();
    v.facts_frame = ImGui::GetFrameCount();
    f["repeat_accuracy"] = m.without.accuracy;
    f["intact_accuracy"] = m.intact.accuracy;
    f["knocked_out"] = static_cast<double>(k.heads.size());
    f["without_previous_head"] = m.without_previous.accuracy;
    f["without_induction_head"] = m.without_induction.accuracy;
    const int H = shown.config.model.H;
    const int prev = core::heads::best_head(heads, core::heads::Score::previous);
    const int ind = core::heads::best_head(heads, core::heads::Score::induction);
    if (prev >= 0) f["previous_layer"] = prev / H + 1, f["best_previous"] = *heads[static_cast<size_t>(prev)].previous;
    if (ind >= 0) f["induction_layer"] = ind / H + 1, f["best_induction"] = *heads[static_cast<size_t>(ind)].induction;
}

} // namespace

bool knocked(const core::heads::Knockouts& k, int layer, int head) {
    return std::find(k.heads.begin(), k.heads.end(), core::heads::HeadRef{layer, head}) != k.heads.end();
}

void toggle_knockout(core::heads::Knockouts& k, int layer, int head) {
    const core::heads::HeadRef id{layer, head};
    const auto it = std::find(k.heads.begin(), k.heads.end(), id);
    if (it == k.heads.end()) k.heads.push_back(id);
    else k.heads.erase(it);
}

bool facts_hidden(const View& v) {
    for (const core::learn::FactName& n : core::learn::fact_names())
        if (v.lesson.secret.hides_name(n.name)) return true;
    return false;
}

void knockout_line(core::heads::Knockouts& k, KnockoutMeasure& m, const KnockoutSource& src, View& v) {
    const core::train::ModelConfig& mc = src.shown.config.model;
    k.heads.erase(std::remove_if(k.heads.begin(), k.heads.end(), [&](const core::heads::HeadRef& h) { return h.layer >= mc.L || h.head >= mc.H; }),
                  k.heads.end()); // a Reset may have made the model smaller
    if (!measure(k, m, src)) {
        ImGui::TextDisabled("repeat accuracy: measured at the first checkpoint");
        return;
    }
    publish_facts(k, m, src.shown, v);
    if (facts_hidden(v)) ImGui::TextDisabled("repeat accuracy: %s", reveal_hint);
    else if (k.heads.empty()) ImGui::Text("repeat accuracy %.2f intact", m.intact.accuracy);
    else ImGui::Text("repeat accuracy %.2f with %d knocked out · %.2f intact", m.without.accuracy, static_cast<int>(k.heads.size()), m.intact.accuracy);
    tip("the share of the held-out repeat sequences' second halves the model predicts right");
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("knock out to");
    ImGui::SameLine();
    int mode = static_cast<int>(k.ablation);
    static const char* const modes[] = {"zero", "mean"};
    ImGui::SetNextItemWidth(4.5f * em());
    if (ImGui::Combo("##knockout_mode", &mode, modes, 2)) k.ablation = static_cast<core::heads::Ablation>(mode);
    remember(v, "train.knockout_mode");
    tip("a knocked-out head's output, before W_O: zero, or its mean over the sequence's positions");
    ImGui::SameLine();
    ImGui::BeginDisabled(k.heads.empty());
    if (ImGui::SmallButton("restore all")) k.heads.clear();
    remember(v, "train.restore_all");
    ImGui::EndDisabled();
}

void cross_out(ImVec2 a, ImVec2 b) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 red = IM_COL32(230, 80, 70, 230);
    draw->AddRectFilled(a, b, IM_COL32(0, 0, 0, 120));
    draw->AddLine(a, b, red, 0.15f * em());
    draw->AddLine(ImVec2(a.x, b.y), ImVec2(b.x, a.y), red, 0.15f * em());
}

} // namespace ui
