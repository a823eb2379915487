#include "ui/model_service.h"

#include "core/worker.h"
#include "core/model/open.h"
#include "core/model/input.h"
#include "ui/view.h"

#include <imgui.h>

#include <algorithm>
#include <utility>
#include <filesystem>

namespace ui {

namespace fs = std::filesystem;

namespace {

// The Model workspace's panels of each source ("model", the source's own, is always open).
constexpr const char* model_panels[] = {"model_tokens", "model_grid", "model_head_view", "model_map", "model_predictions",
                                        "model_steps", "model_scores", "model_importance"};
// Opened on request only (closed with the others when a file becomes the source).
constexpr const char* model_on_request[] = {"model_compare", "model_rollout", "model_sinks", "model_experts", "model_qk", "model_circuits", "model_why",
                                            "model_state"};
constexpr const char* file_panels[] = {"attention", "attention_map", "attention_keys"};

} // namespace

namespace {

// After a model opened: its panels and the prompt run on it, with a fresh selection unless one
// was asked for (the command line's --head).
void opened(ModelService& m, View& v, bool keep_selection) {
    m.open_error.clear();
    ++m.models_opened;
    m.shown.reset();
    m.run_error.clear();
    if (!keep_selection) m.layer = m.head = 0;
    m.query = m.key = -1; // positions of another model's prompt
    m.ablate.clear();     // another model's heads and experts
    m.ablate_experts.clear();
    m.importance.reset();
    m.expert_importance.reset();
    m.show_in_workspace(v, ModelService::Source::model);
    const auto model = m.session.opened();
    v.tell("Opened " + m.session.model_name() + (model && !model->notice.empty() ? "; " + model->notice : ""), false);
    m.run_prompt();
}

void failed(ModelService& m, View& v, const std::string& error) {
    m.open_error = error;
    m.failed_at = m.asked;
    v.tell(error, true);
}

// Whether a knock-out list (heads or experts) holds `ref`.
template <class Ref>
bool holds(const std::vector<Ref>& knocked, const Ref& ref) {
    return std::find(knocked.begin(), knocked.end(), ref) != knocked.end();
}

// `ref` taken out of a knock-out list, or put in.
template <class Ref>
void toggle(std::vector<Ref>& knocked, const Ref& ref) {
    if (const auto it = std::find(knocked.begin(), knocked.end(), ref); it != knocked.end()) knocked.erase(it);
    else knocked.push_back(ref);
}

} // namespace

bool ModelService::open(const std::string& path, View& v) {
    std::string error;
    if (!session.open(model_path_of_pick(path), error)) {
        failed(*this, v, error);
        return false;
    }
    opened(*this, v, false);
    return true;
}

void ModelService::open_in_background(const std::string& path, View& v) {
    loading_path = model_path_of_pick(path);
    loading.start([dir = loading_path](const core::TaskControl&) { return core::model::load_model(dir); });
    awaiting_load = true;
    show_in_workspace(v, Source::model);
}

void ModelService::show(View& v, Source s) {
    v.open["model"] = true;
    for (const char* id : model_panels) v.open[id] = s == Source::model && session.has_model();
    for (const char* id : file_panels) v.open[id] = s == Source::file;
    if (s == Source::file)
        for (const char* id : model_on_request) v.open[id] = false;
}

void ModelService::close_model_panels(View& v) {
    for (const char* id : model_panels) v.open[id] = false;
    for (const char* id : model_on_request) v.open[id] = false;
}

ModelService::Source ModelService::source(const View& v) {
    for (const char* id : file_panels)
        if (const auto it = v.open.find(id); it != v.open.end() && it->second) return Source::file;
    return Source::model;
}

void ModelService::show_in_workspace(View& v, Source s) {
    show(v, s);
    wanted = s;
    v.request_workspace = "model";
}

void ModelService::follow_source(View& v) {
    if (wanted && v.request_workspace.empty()) show(v, *std::exchange(wanted, std::nullopt));
    else if (source(v) == Source::file) show(v, Source::file);
    else if (!session.has_model()) close_model_panels(v); // they wait for a model: the start shows alone
    const auto open = [&v](const char* id) { const auto it = v.open.find(id); return it != v.open.end() && it->second; };
    want_qkv = open("model_qk") || open("model_state"); // the State panel reads a linear layer's values
}

void ModelService::run_prompt() {
    core::model::SessionRequest r(prompt);
    if (score_probe) r.score_ids = probe_ids();
    r.ablate = ablate;
    r.ablation = ablation;
    r.ablate_experts = ablate_experts;
    r.capture_qkv = want_qkv;
    r.fast_products = fast_products;
    asked = session.request(std::move(r));
}

bool ModelService::knocked_out(int l, int h) const { return holds(ablate, core::model::HeadRef{l, h}); }

void ModelService::toggle_knockout(int l, int h) {
    toggle(ablate, core::model::HeadRef{l, h});
    run_prompt();
}

bool ModelService::expert_knocked_out(int l, int e) const { return holds(ablate_experts, core::model::ExpertRef{l, e}); }

void ModelService::toggle_expert_knockout(int l, int e) {
    toggle(ablate_experts, core::model::ExpertRef{l, e});
    run_prompt();
}

void ModelService::clear_knockouts() {
    ablate.clear();
    ablate_experts.clear();
    run_prompt();
}

std::vector<int> ModelService::probe_ids() const {
    const auto opened = session.opened();
    const auto tok = session.tokenizer();
    if (!opened || !tok) return {};
    const core::model::ModelConfig& c = opened->model->config();
    const int m = std::clamp(probe_m, 1, std::max(1, (c.context - 1) / 2));
    try {
        return core::model::probe_ids(c, *tok, m, static_cast<std::uint64_t>(std::max(0, probe_seed))); // as --heads --probe
    } catch (const std::invalid_argument&) {
        return {}; // fewer ids than m in the vocabulary: the prompt is scored
    }
}

void ModelService::refresh(View& v) {
    // The new data once a frame, at its start: settle() publishes again after an editing panel, and
    // a run landing then would reach only the panels drawn after it.
    if (const int frame = ImGui::GetFrameCount(); frame != refreshed_frame) {
        refreshed_frame = frame;
        take_new_data(v);
    }
    if (!has_attention()) return;
    layer = std::clamp(layer, 0, shown->layers() - 1);
    head = std::clamp(head, 0, shown->heads() - 1);
    if (query >= shown->t()) query = -1;
}

void ModelService::take_new_data(View& v) {
    if (auto read = opening() ? loading.take() : std::nullopt) {
        awaiting_load = false;
        if (read->result) {
            session.adopt(std::move(*read->result));
            opened(*this, v, true);
        } else {
            failed(*this, v, read->error);
        }
    }
    if (auto newest = session.snapshot(); newest && newest->serial != seen) {
        seen = newest->serial;
        run_error = newest->error;
        if (newest->error.empty()) {
            if (newest->serial > failed_at) open_error.clear(); // the user has moved on
            shown = std::move(newest);
        }
    } else if (!newest) {
        shown.reset();
        run_error.clear();
    }
    hovered = -1;
    // A model being read: polled each frame. A running forward wakes the window itself, as each
    // layer finishes and when its run is published (the progress bar: model_prompt.cpp).
    if (opening()) v.motion.moving = true;
}

int ModelService::query_position() const {
    if (!shown || shown->t() == 0) return -1;
    return query >= 0 ? query : shown->t() - 1;
}

const char* score_name(int score) {
    static const char* names[] = {"previous", "duplicate", "induction", "entropy"};
    return score >= 0 && score < score_count ? names[score] : "";
}

std::string bundled_model_dir() {
    const std::optional<core::model::StoredModel> bundled = core::model::bundled_model();
    return bundled ? bundled->path : "";
}

std::string model_path_of_pick(const std::string& picked) {
    std::error_code ec;
    const fs::path p(picked);
    if (fs::is_directory(p, ec) || core::model::is_gguf_file(picked)) return picked;
    const fs::path dir = p.parent_path();
    if (!dir.empty() && fs::exists(dir / "config.json", ec)) return dir.string();
    return picked; // a trained .safetensors, or a path that open_model will name in its error
}

void ask_model(View& v) {
    v.state<ModelService>().show_in_workspace(v, ModelService::Source::model);
    v.state<ModelService>().show_chooser = true;
}

} // namespace ui
