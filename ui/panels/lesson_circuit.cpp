// ui/panels/lesson_circuit.cpp — see lesson_circuit.h.
#include "ui/panels/lesson_circuit.h"

#include "core/error_text.h"
#include "core/model/circuits/attribution.h"
#include "core/model/circuits/lens.h"
#include "core/model/circuits/patching.h"
#include "core/model/format/checkpoint.h"
#include "core/model/tokenizer/tokenizer.h"
#include "ui/widgets.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace ui {

namespace {

using Run = CircuitMaps::Run;

bool hides_any(const View& v, std::initializer_list<const char*> facts) {
    return std::any_of(facts.begin(), facts.end(), [&](const char* f) { return v.lesson.secret.hides_name(f); });
}
bool recovery_hidden(const View& v) { return hides_any(v, {"best_recovery", "recovery_layer", "picked_recovery"}); }
bool attribution_hidden(const View& v) { return hides_any(v, {"attribution_layer", "picked_attribution"}); }

// The (layer, head) of the largest entry, layer-major.
int best_head(const core::Matrix& m) {
    Eigen::Index l = 0, h = 0;
    m.maxCoeff(&l, &h);
    return static_cast<int>(l * m.cols() + h);
}

// The answer's logit-lens rank and the top token after each layer, at the clean prompt's last token.
void lens_at_end(const core::model::Model& model, const core::model::Tokenizer& tokenizer, std::vector<int> ids, int answer, Run& r) {
    ids.push_back(answer); // so that the answer is the last token's next one
    const core::model::LogitLens lens = core::model::logit_lens(model, ids, 1);
    const size_t at = ids.size() - 2;
    for (int l = 0; l < lens.layers; ++l) {
        const size_t k = static_cast<size_t>(l) * static_cast<size_t>(lens.t) + at;
        r.lens_rank.push_back(lens.rank_next[k]);
        r.lens_top.push_back(tokenizer.token_display(lens.top[k]));
    }
}

// One layers × heads map of `values` whose cells pick a head (items "lesson.NAME.L.H"); "?" while hidden.
void head_map(const char* name, const char* title, const core::Matrix& values, bool hidden, CircuitMaps& m, View& v) {
    const float w = 3.2f * em(), h = 1.3f * em(), label = 1.8f * em();
    const double top = std::max(1e-9, values.cwiseAbs().maxCoeff());
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
            const ImU32 bg = hidden ? masked_color() : diverging_color(std::clamp(x / top, -1.0, 1.0));
            draw->AddRectFilled(p, ImVec2(p.x + w - 2.0f, p.y + h), bg);
            char text[16];
            std::snprintf(text, sizeof text, hidden ? "?" : "%+.2f", x);
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

void lens_lines(const Run& r, bool hidden) {
    dim_text("Logit lens at the last token: what each layer already predicts");
    for (int l = 0; l < r.layers; ++l) {
        const std::string rank = hidden ? "?" : std::to_string(r.lens_rank[static_cast<size_t>(l)]);
        const std::string top = hidden ? "?" : "“" + r.lens_top[static_cast<size_t>(l)] + "”";
        ImGui::Text("after layer %d: most likely %s; “%s” ranks %s", l + 1, top.c_str(), r.answer.c_str(), rank.c_str());
    }
}

void picked_line(const CircuitMaps& m, const View& v) {
    const Run& r = *m.run;
    const int l = m.picked / r.heads, h = m.picked % r.heads;
    char rec[32] = "?", att[32] = "?";
    if (!recovery_hidden(v)) std::snprintf(rec, sizeof rec, "%.2f", r.recovery(l, h));
    if (!attribution_hidden(v)) std::snprintf(att, sizeof att, "%+.2f", r.attribution(l, h));
    ImGui::TextWrapped("L%d H%d: recovery %s · direct attribution %s of the clean %.2f", l + 1, h + 1, rec, att, r.clean_metric);
}

void draw_run(CircuitMaps& m, View& v) {
    const Run& r = *m.run;
    ImGui::TextWrapped("%s: metric logit(“%s”) − logit(“%s”) at the last token; clean %.2f, corrupted %.2f", r.name.c_str(), r.answer.c_str(),
                       r.vs.c_str(), r.clean_metric, r.corrupt_metric);
    const bool hide_recovery = recovery_hidden(v), hide_attribution = attribution_hidden(v), hide_lens = v.lesson.secret.hides_name("lens_layer");
    head_map("recovery", "Recovery when patched", r.recovery, hide_recovery, m, v);
    same_line_if_fits(1.8f * em() + static_cast<float>(r.heads) * 3.2f * em());
    head_map("attribution", "Direct attribution (clean)", r.attribution, hide_attribution, m, v);
    if (m.picked >= 0) picked_line(m, v);
    ImGui::Spacing();
    lens_lines(r, hide_lens);
    if (hide_recovery || hide_attribution || hide_lens) ImGui::TextDisabled("? %s", reveal_hint);
}

void progress_line(const CircuitMaps& m) {
    const int done = m.progress->done, total = m.progress->total;
    ImGui::TextDisabled("Patching the model's heads, one at a time…");
    ImGui::ProgressBar(total > 0 ? static_cast<float>(done) / static_cast<float>(total) : 0.0f, ImVec2(12.0f * em(), 0.0f),
                       (std::to_string(done) + " of " + std::to_string(total)).c_str());
}

} // namespace

CircuitMaps::~CircuitMaps() {
    if (progress) progress->cancel = true; // the job's future waits for it below
}

Run run_circuit(const std::string& model, const std::string& clean, const core::learn::Actions::Patch& patch,
                const std::shared_ptr<CircuitMaps::Progress>& progress) {
    Run r;
    try {
        const core::model::OpenedModel m = core::model::open_model(model);
        const core::model::Tokenizer tokenizer = core::model::load_tokenizer(m.dir);
        const std::vector<int> clean_ids = tokenizer.encode_ids(clean), corrupt_ids = tokenizer.encode_ids(patch.corrupt);
        const core::model::PatchMetric metric{tokenizer.encode_ids(patch.answer, false).at(0), tokenizer.encode_ids(patch.vs, false).at(0), false};
        const auto report = [&](int done, int total) {
            progress->total = total;
            progress->done = done;
        };
        const core::model::Patching p = core::model::activation_patching(*m.model, clean_ids, corrupt_ids, metric, core::model::PatchBy::head,
                                                                         &progress->cancel, report);
        const int last = static_cast<int>(clean_ids.size()) - 1;
        r.attribution = core::model::direct_attribution(*m.model, clean_ids, metric.answer, metric.vs, last).heads;
        lens_at_end(*m.model, tokenizer, clean_ids, metric.answer, r);
        r.name = m.name;
        r.layers = static_cast<int>(p.recovery.rows());
        r.heads = static_cast<int>(p.recovery.cols());
        r.answer = tokenizer.token_display(metric.answer);
        r.vs = tokenizer.token_display(metric.vs);
        r.clean_metric = p.clean_metric;
        r.corrupt_metric = p.corrupt_metric;
        r.recovery = p.recovery;
    } catch (const std::exception& e) {
        r = Run{};
        r.error = core::error_text(e);
    }
    return r;
}

void draw_circuit_maps(CircuitMaps& m, const std::string& model, const std::string& clean, const core::learn::Actions::Patch& patch, View& v) {
    const std::string key = model + '\n' + clean + '\n' + patch.corrupt + '\n' + patch.answer + '\n' + patch.vs;
    if (m.key != key) {
        if (m.progress) m.progress->cancel = true;
        m.key = key;
        m.run.reset();
        m.picked = -1;
        m.progress = std::make_shared<CircuitMaps::Progress>();
        m.job = std::async(std::launch::async, run_circuit, model, clean, patch, m.progress);
    }
    if (m.job.valid() && m.job.wait_for(std::chrono::seconds(0)) == std::future_status::ready) m.run = m.job.get();
    if (m.job.valid()) v.motion.moving = true; // the progress bar, and a frame takes the run as soon as it is done
    ImGui::Separator();
    if (!m.run) return progress_line(m);
    if (!m.run->error.empty()) return error_text(m.run->error);
    draw_run(m, v);
}

void add_circuit_facts(const CircuitMaps& m, core::learn::Facts& f) {
    if (!m.run || !m.run->error.empty()) return;
    const Run& r = *m.run;
    f["best_recovery"] = r.recovery.maxCoeff();
    f["recovery_layer"] = best_head(r.recovery) / r.heads + 1;
    f["attribution_layer"] = best_head(r.attribution) / r.heads + 1;
    const auto first = std::find(r.lens_rank.begin(), r.lens_rank.end(), 1);
    f["lens_layer"] = first == r.lens_rank.end() ? 0 : static_cast<double>(first - r.lens_rank.begin() + 1);
    if (m.picked < 0 || m.picked >= r.layers * r.heads) return;
    f["picked_recovery"] = r.recovery(m.picked / r.heads, m.picked % r.heads);
    f["picked_attribution"] = r.attribution(m.picked / r.heads, m.picked % r.heads);
}

} // namespace ui
