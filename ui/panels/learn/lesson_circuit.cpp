// ui/panels/learn/lesson_circuit.cpp — see lesson_circuit.h.
#include "ui/panels/learn/lesson_circuit.h"

#include "ui/panels/shared/head_map.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>

namespace ui {

namespace {

using core::learn::PatchRun;

bool hides_any(const View& v, std::initializer_list<const char*> facts) {
    return std::any_of(facts.begin(), facts.end(), [&](const char* f) { return v.lesson.secret.hides_name(f); });
}
bool recovery_hidden(const View& v) { return hides_any(v, {"best_recovery", "recovery_layer", "picked_recovery"}); }
bool attribution_hidden(const View& v) { return hides_any(v, {"attribution_layer", "picked_attribution"}); }
bool composition_hidden(const View& v) { return hides_any(v, {"composition_layer", "picked_composition"}); }

// One layers × heads map of `values` whose cells pick a head (items "lesson.NAME.L.H"); "?" while hidden.
void head_map(const char* name, const char* title, const core::Matrix& values, bool hidden, CircuitMaps& m, View& v) {
    const float w = 3.2f * em(), h = 1.3f * em(), label = 1.8f * em();
    const double top = colour_span(values);
    ImGui::BeginGroup();
    ImGui::PushID(name);
    ImGui::TextDisabled("%s", title);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int l = 0; l < values.rows(); ++l) {
        ImGui::AlignTextToFramePadding();
        ImGui::TextDisabled("L%d", l + 1);
        for (int hd = 0; hd < values.cols(); ++hd) {
            ImGui::SameLine(label + static_cast<float>(hd) * w);
            const int k = l * static_cast<int>(values.cols()) + hd;
            ImGui::PushID(k);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            if (ImGui::InvisibleButton("cell", ImVec2(w - 2.0f, h))) m.picked = k;
            tip("pick this head");
            remember(v, ("lesson." + std::string(name) + "." + std::to_string(l) + "." + std::to_string(hd)).c_str());
            const double x = values(l, hd);
            const bool none = !std::isfinite(x); // composition: the reader's layer and later
            const ImU32 bg = hidden || none ? masked_color() : diverging_color(std::clamp(x / top, -1.0, 1.0));
            draw->AddRectFilled(p, ImVec2(p.x + w - 2.0f, p.y + h), bg);
            char text[16] = "";
            if (hidden) std::snprintf(text, sizeof text, "?");
            else if (!none) std::snprintf(text, sizeof text, "%+.2f", x);
            const ImVec2 size = ImGui::CalcTextSize(text);
            draw->AddText(ImVec2(p.x + 0.5f * (w - size.x), p.y + 0.5f * (h - size.y)), text_color_on(bg), text);
            if (m.picked == k || ImGui::IsItemHovered())
                draw->AddRect(ImVec2(p.x - 1, p.y - 1), ImVec2(p.x + w - 1, p.y + h + 1), selection_color(), 0.0f, 0, m.picked == k ? 2.0f : 1.0f);
            ImGui::PopID();
        }
    }
    ImGui::PopID();
    ImGui::EndGroup();
}

void lens_lines(const PatchRun& r, bool hidden) {
    dim_text("Logit lens at the last token: what each layer already predicts");
    for (int l = 0; l < r.layers; ++l) {
        const std::string rank = hidden ? "?" : std::to_string(r.lens_rank[static_cast<size_t>(l)]);
        const std::string top = hidden ? "?" : "“" + r.lens_top[static_cast<size_t>(l)] + "”";
        ImGui::Text("after layer %d: most likely %s; “%s” ranks %s", l + 1, top.c_str(), r.answer.c_str(), rank.c_str());
    }
}

// The picked head's numbers in the maps shown ("?" while a prediction reads them).
void picked_line(const CircuitMaps& m, const core::learn::Actions::Patch& patch, const View& v) {
    const PatchRun& r = m.run->maps;
    const int l = m.picked / r.heads, h = m.picked % r.heads;
    char rec[32] = "?", att[32] = "?";
    if (!recovery_hidden(v)) std::snprintf(rec, sizeof rec, "%.2f", r.recovery(l, h));
    if (!attribution_hidden(v)) std::snprintf(att, sizeof att, "%+.2f", r.attribution(l, h));
    std::string line = "L" + std::to_string(l + 1) + " H" + std::to_string(h + 1) + ":";
    if (patch.shows("recovery")) line += std::string(" recovery ") + rec;
    if (patch.shows("attribution")) line += std::string(patch.shows("recovery") ? " ·" : "") + " direct attribution " + att;
    if (patch.shows("composition") && r.reader >= 0 && l < r.reader / r.heads) {
        char comp[32] = "?";
        if (!composition_hidden(v)) std::snprintf(comp, sizeof comp, "%.3f", r.k_composition(l, h));
        line += std::string(" K-composition into the reader ") + comp;
    }
    ImGui::TextWrapped("%s", line.c_str());
}

// The reader's strongest score at the last token and the pairs of parts that make it.
void qk_lines(const PatchRun& r, bool hidden) {
    dim_text("QK attribution: why the reader attends where it does");
    ImGui::TextWrapped("L%d H%d's strongest score at the last token “%s” is on key %d “%s”: %.2f after the scale. Its largest pairs:",
                       r.reader / r.heads + 1, r.reader % r.heads + 1, r.query_token.c_str(), r.key + 1, r.key_token.c_str(), r.score);
    for (const std::string& pair : r.qk_pairs) ImGui::BulletText("%s", hidden ? "?" : pair.c_str());
}

void draw_run(CircuitMaps& m, const core::learn::Actions::Patch& patch, View& v) {
    const PatchRun& r = m.run->maps;
    ImGui::TextWrapped("%s: metric logit(“%s”) − logit(“%s”) at the last token; clean %.2f, corrupted %.2f", r.name.c_str(), r.answer.c_str(),
                       r.vs.c_str(), r.clean_metric, r.corrupt_metric);
    const bool hide_recovery = recovery_hidden(v), hide_attribution = attribution_hidden(v), hide_lens = v.lesson.secret.hides_name("lens_layer"),
               hide_composition = composition_hidden(v), composition = r.reader >= 0 && patch.shows("composition");
    const float map_w = 1.8f * em() + static_cast<float>(r.heads) * 3.2f * em();
    if (patch.shows("recovery")) head_map("recovery", "Recovery when patched", r.recovery, hide_recovery, m, v);
    if (patch.shows("recovery") && patch.shows("attribution")) same_line_if_fits(map_w);
    if (patch.shows("attribution")) head_map("attribution", "Direct attribution (clean prompt)", r.attribution, hide_attribution, m, v);
    if (composition && (patch.shows("recovery") || patch.shows("attribution"))) same_line_if_fits(map_w);
    if (composition) {
        const std::string title = "K-composition into the reader, L" + std::to_string(r.reader / r.heads + 1) + " H" + std::to_string(r.reader % r.heads + 1);
        head_map("composition", title.c_str(), r.k_composition, hide_composition, m, v);
    }
    if (m.picked >= 0 && (patch.shows("recovery") || patch.shows("attribution") || composition)) picked_line(m, patch, v);
    ImGui::Spacing();
    if (patch.shows("lens")) lens_lines(r, hide_lens);
    if (r.reader >= 0 && patch.shows("qk")) qk_lines(r, hide_composition);
    if (hide_recovery || hide_attribution || hide_lens || hide_composition) ImGui::TextDisabled("? %s", reveal_hint);
}

void progress_line(const CircuitMaps& m) {
    const auto p = m.job.progress();
    ImGui::TextDisabled("Patching the model's heads, one at a time…");
    ImGui::ProgressBar(p.total > 0 ? static_cast<float>(p.done) / static_cast<float>(p.total) : 0.0f, ImVec2(12.0f * em(), 0.0f),
                       (std::to_string(p.done) + " of " + std::to_string(p.total)).c_str());
}

} // namespace

void draw_circuit_maps(CircuitMaps& m, const std::string& model, const std::string& clean, const core::learn::Actions::Patch& patch, View& v) {
    const std::string key = core::learn::patch_key(model, clean, patch);
    if (m.key != key) {
        m.key = key;
        m.run.reset();
        m.picked = -1;
        m.job.start([model, clean, patch](const core::TaskControl& c) { return core::learn::run_patch(model, clean, patch, c.stop_flag(), c.reporter()); });
    }
    if (auto done = m.job.take()) m.run = CircuitMaps::Run{done->result.value_or(core::learn::PatchRun{}), done->error};
    if (m.job.busy()) v.motion.moving = true; // the progress bar, and a frame takes the run as soon as it is done
    ImGui::Separator();
    if (!m.run) return progress_line(m);
    if (!m.run->error.empty()) return error_text(m.run->error);
    draw_run(m, patch, v);
}

void add_circuit_facts(const CircuitMaps& m, core::learn::Facts& f) {
    if (m.run && m.run->error.empty()) core::learn::add_patch_facts(m.run->maps, m.picked, f);
}

} // namespace ui
