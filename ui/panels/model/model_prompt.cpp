// ui/panels/model/model_prompt.cpp
//
// [SECTION] The Open model window
// [SECTION] The prompt, progress and errors
#include "ui/panels/model/model_prompt.h"
#include "ui/model_service.h"

#include "core/worker.h"
#include "core/io/formats.h"
#include "core/io/tensor.h"
#include "core/model/fast_product.h"
#include "core/model/open.h"
#include "ui/widgets.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

namespace ui {

namespace {

constexpr double progress_after = 0.1; // seconds: a faster forward shows no progress bar

// What the Open model window lists, read when it opens.
struct ModelChooser {
    bool listed = false;
    core::model::StorePlaces places;
    core::Worker<core::model::ModelListing> looking; // the listing, read on a worker (GGUF headers take a while)
    core::model::ModelListing listing;
    bool refit = false; // the listing came, or an error line: fit the window's height to it once
    std::string error_fitted; // the open error the window's height was last fitted to
    core::model::StoredModel bundled; // the model attnviz ships (no path when none does)
    std::string typed; // a directory typed or pasted
};

std::string size_text(std::uint64_t bytes) {
    char text[32];
    if (bytes >= (1ull << 30)) std::snprintf(text, sizeof text, "%.1f GB", static_cast<double>(bytes) / (1ull << 30));
    else if (bytes >= (1ull << 20)) std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / (1ull << 20));
    else std::snprintf(text, sizeof text, "%.0f KB", static_cast<double>(bytes) / 1024.0);
    return text;
}

//-----------------------------------------------------------------------------
// [SECTION] The Open model window
//-----------------------------------------------------------------------------

void ask_model_file(View& v) {
    ModelService& m = v.state<ModelService>();
    View* view = &v;
    v.file_request = FileRequest{core::io::FileBrowser::Mode::open, "Open a model's file",
                                 {core::io::filter_of(core::io::Kind::checkpoint, "Model files")}, "", "",
                                 [&m, view](const std::string& path) {
                                     if (!m.open(path, *view)) throw core::io::FileError(m.open_error);
                                 }};
}

// `text` cut in the middle to `width`, keeping more of its end: the file's name at the end of a path.
std::string fit_middle(const std::string& text, float width) {
    if (ImGui::CalcTextSize(text.c_str()).x <= width) return text;
    std::vector<std::size_t> starts; // where each character begins
    for (std::size_t i = 0; i < text.size(); ++i)
        if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) starts.push_back(i);
    for (std::size_t keep = starts.size() - 1; keep > 0; --keep) {
        const std::size_t front = keep / 3;
        const std::string cut = text.substr(0, starts[front]) + "…" + text.substr(starts[starts.size() - (keep - front)]);
        if (ImGui::CalcTextSize(cut.c_str()).x <= width) return cut;
    }
    return "…";
}

// One row: the model's name (its path in a tooltip), where it is, its quantization, size and an Open button.
void model_row(View& v, int row, const core::model::StoredModel& e, const std::string& item) {
    ImGui::PushID(row);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(fit_middle(e.name, ImGui::GetContentRegionAvail().x).c_str());
    tip((e.name + "\n" + e.path).c_str());
    for (const std::string& cell : {e.store, e.quantization, size_text(e.bytes)}) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(fit_text(cell, ImGui::GetContentRegionAvail().x).c_str());
    }
    ImGui::TableNextColumn();
    ImGui::BeginDisabled(!e.complete);
    // An Ollama model by its NAME:TAG, which it is then called by, not its blob's path.
    const std::string& opened = e.store == "Ollama" ? e.name : e.path;
    if (ImGui::SmallButton("Open") && v.state<ModelService>().open(opened, v)) v.state<ModelService>().show_chooser = false;
    remember(v, item.c_str());
    ImGui::EndDisabled();
    if (!e.complete) tip("This snapshot has no config.json or no weights.");
    ImGui::PopID();
}

std::string places_text(const core::model::StorePlaces& p) {
    std::string lm;
    for (const auto& d : p.lm_studio) lm += (lm.empty() ? "" : ", ") + d;
    return "The Hugging Face cache: " + p.hub + " (HF_HUB_CACHE, else HF_HOME/hub)\nOllama: " + p.ollama + " (OLLAMA_MODELS)\nLM Studio: " + lm +
           "\nllama.cpp: " + p.llama_cpp + " (LLAMA_CACHE)";
}

// The bundled model first, then the stores' models; a line for each file of a store that could not be read.
void models_table(View& v, ModelChooser& c) {
    if (c.looking.busy()) {
        dim_text("Looking in the Hugging Face cache, Ollama, LM Studio and llama.cpp…");
        v.motion.wake_after(0.05);
        return;
    }
    if (auto found = c.looking.take()) {
        if (found->result) c.listing = std::move(*found->result);
        c.refit = true;
    }
    const auto& models = c.listing.models;
    const int rows = static_cast<int>(models.size()) + (c.bundled.path.empty() ? 0 : 1);
    dim_text(models.empty() ? "No models in the Hugging Face cache, Ollama, LM Studio or llama.cpp."
                            : std::to_string(models.size()) + (models.size() == 1 ? " model" : " models") +
                                  " in the Hugging Face cache, Ollama, LM Studio and llama.cpp.");
    tip(places_text(c.places).c_str());
    for (const std::string& p : c.listing.problems) error_text(p);
    if (rows == 0) return;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerH | ImGuiTableFlags_ScrollY;
    const float height = std::min(14.0f, 1.6f * static_cast<float>(rows) + 1.8f) * em();
    if (!ImGui::BeginTable("models", 5, flags, ImVec2(0, height))) return;
    ImGui::TableSetupColumn("Model", ImGuiTableColumnFlags_WidthStretch);
    ImGui::TableSetupColumn("Where", ImGuiTableColumnFlags_WidthFixed, 6.5f * em());
    ImGui::TableSetupColumn("Weights", ImGuiTableColumnFlags_WidthFixed, 5.5f * em());
    ImGui::TableSetupColumn("Size", ImGuiTableColumnFlags_WidthFixed, 4.5f * em());
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed, 3 * em());
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableHeadersRow();
    int row = 0;
    if (!c.bundled.path.empty()) model_row(v, row++, c.bundled, "model chooser bundled");
    for (std::size_t i = 0; i < models.size(); ++i) model_row(v, row++, models[i], "model cached " + std::to_string(i));
    ImGui::EndTable();
}

void chooser_window(View& v) {
    ModelService& m = v.state<ModelService>();
    ModelChooser& c = v.state<ModelChooser>();
    if (!m.show_chooser) {
        c.listed = false;
        return;
    }
    if (!c.listed) {
        c.places = core::model::store_places();
        c.listing = {};
        c.looking.start([places = c.places](const core::TaskControl&) { return core::model::list_models(places); });
        c.bundled = core::model::bundled_model().value_or(core::model::StoredModel{});
        if (!c.bundled.path.empty()) c.bundled.name += " (bundled)";
        c.listed = true;
    }
    // A window of its own (drawn from inside the panel's), in front: not a modal, so the panels behind keep drawing.
    if (c.error_fitted != m.open_error) c.refit = true, c.error_fitted = m.open_error; // its Close button stays in the window
    const ImGuiCond fit = c.refit ? ImGuiCond_Always : ImGuiCond_Appearing;
    c.refit = false;
    ImGui::SetNextWindowSize(ImVec2(46 * em(), 0), fit);
    ImGui::SetNextWindowPos(ImGui::GetMainViewport()->GetCenter(), fit, ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowFocus(); // in front of the panels while it is open
    ImGui::SetNextWindowBgAlpha(1.0f); // opaque: the panels behind would show through its rows
    if (!ImGui::Begin("Open model", &m.show_chooser, ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse)) {
        ImGui::End();
        return;
    }
    models_table(v, c);
    ImGui::Spacing();
    if (ImGui::Button("Choose a file…")) {
        m.show_chooser = false;
        ask_model_file(v);
    }
    tip("config.json or model.safetensors in a model's directory, a .gguf file, or attnviz's own trained .safetensors");
    ImGui::SetNextItemWidth(-8 * em());
    const bool enter = ImGui::InputTextWithHint("##dir", "or type a model directory, a file or an Ollama NAME:TAG", &c.typed, ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if ((ImGui::Button("Open##dir") || enter) && !c.typed.empty() && m.open(c.typed, v)) m.show_chooser = false;
    if (!m.open_error.empty()) error_text(m.open_error);
    if (ImGui::Button("Close") || ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Escape), false)) m.show_chooser = false;
    remember(v, "model chooser close");
    ImGui::End();
}

//-----------------------------------------------------------------------------
// [SECTION] The prompt, progress and errors
//-----------------------------------------------------------------------------

void save_attention(View& v) {
    auto shown = v.state<ModelService>().shown;
    v.file_request = FileRequest{core::io::FileBrowser::Mode::save, "Save attention",
                                 {{"Attention weights (.safetensors)", {".safetensors"}}}, "attention.safetensors", "",
                                 [shown](const std::string& path) { core::model::write_attention_file(path, shown->result, shown->labels, shown->model); }};
}

// A live model or a file of attention weights: one of them fills the workspace.
void source_switch(View& v) {
    ModelService& m = v.state<ModelService>();
    using S = ModelService::Source;
    const S source = ModelService::source(v);
    if (ImGui::RadioButton("Live model", source == S::model)) m.show(v, S::model);
    remember(v, "model source live");
    tip("Type a prompt and run a model here");
    ImGui::SameLine();
    if (ImGui::RadioButton("Attention file", source == S::file)) m.show(v, S::file);
    remember(v, "model source file");
    tip("A model's attention weights saved to a file (.npy, .npz, .safetensors)");
}

void file_state() {
    ImGui::TextWrapped("The attention viewer shows a file of a model's attention weights: its layers × heads, one head's map "
                       "and a query's top keys. Choose \"Live model\" to type a prompt instead.");
}

// With no model open, the one start: the bundled model, the Hugging Face cache, or a folder. The
// other panels wait until a model is open (ModelService::show).
void start_view(View& v) {
    ModelService& m = v.state<ModelService>();
    ImGui::TextWrapped("Open a model to type a sentence and see every layer and head of its attention.");
    const std::string bundled = bundled_model_dir();
    const ImVec2 wide(-FLT_MIN, 0);
    ImGui::BeginDisabled(bundled.empty());
    if (ImGui::Button("Open the bundled model", wide)) m.open(bundled, v);
    remember(v, "model open bundled");
    ImGui::EndDisabled();
    tip(bundled.empty() ? "This build ships no model" : ("The small model attnviz ships: " + std::filesystem::path(bundled).filename().string()).c_str());
    if (ImGui::Button("Open a model on this computer…", wide)) ask_model(v);
    remember(v, "model open cache");
    tip("A model in the Hugging Face cache, Ollama's store, LM Studio's models folder or llama.cpp's cache");
    if (ImGui::Button("Choose a folder…", wide)) ask_model_file(v);
    remember(v, "model open folder");
    tip("A model's folder: pick its config.json or model.safetensors; or attnviz's own trained .safetensors");
    if (!m.open_error.empty()) error_text(m.open_error);
}

// The fast products' toggle and, beside it, a fast run's distance from the exact run (measured on
// the worker after the fast run shows).
void fast_toggle(View& v) {
    ModelService& m = v.state<ModelService>();
    const std::string missing = core::model::fast::unavailable_reason();
    ImGui::BeginDisabled(!missing.empty());
    if (ImGui::Checkbox("Fast", &m.fast_products)) m.run_prompt();
    remember(v, "model fast");
    ImGui::EndDisabled();
    tip(missing.empty() ? ("Faster, not exact: " + core::model::fast::summary() + " (activations rounded to int8 per block of 32); "
                           "the K-quants stay exact").c_str()
                        : ("Not on this computer: " + missing).c_str());
    if (!m.shown || !m.shown->fast) return;
    ImGui::SameLine();
    const core::model::FastDifference d = m.session.fast_difference();
    if (d.serial != m.shown->serial) {
        ImGui::TextDisabled("comparing with the exact run…");
        return;
    }
    char text[200];
    std::snprintf(text, sizeof text, "from exact: attention %.2g, top-10 probabilities %.2g, top token changed at %d of %d", d.attention,
                  d.probability, d.top_changed, m.shown->t());
    ImGui::TextDisabled("%s", fit_text(text, ImGui::GetContentRegionAvail().x).c_str());
    tip((std::string(text) + "\nthe largest differences of any attention weight and of the top predictions' probabilities, rank by rank").c_str());
}

// The model's name and what it is on one line, cut to the panel (all of it in the tooltip), and
// its buttons.
void header(View& v) {
    ModelService& m = v.state<ModelService>();
    const auto opened = m.session.opened();
    const core::model::ModelConfig& c = opened->model->config();
    const auto tok = m.session.tokenizer();
    const std::string about = c.architecture + " · " + std::to_string(c.layers) + " layers × " + std::to_string(c.heads) +
                              " heads · context " + std::to_string(c.context) + (tok->vocab_size() ? " · " + tok->kind() : " · no tokenizer: type ids");
    const std::string whole = opened->path + "\n" + about;
    ImGui::TextUnformatted(m.session.model_name().c_str());
    tip(whole.c_str());
    ImGui::SameLine();
    ImGui::TextDisabled("%s", fit_text(about, ImGui::GetContentRegionAvail().x).c_str());
    tip(whole.c_str());
    if (ImGui::SmallButton("Open model…")) ask_model(v);
    tip("A model in the Hugging Face cache, Ollama, LM Studio or llama.cpp, the bundled one, or a directory");
    ImGui::SameLine();
    ImGui::BeginDisabled(!m.has_attention());
    if (ImGui::SmallButton("Save attention…")) save_attention(v);
    remember(v, "model save attention");
    ImGui::EndDisabled();
    tip("Every layer and head of this prompt as (layers, heads, t, t) float32 with the tokens, as --attention reads it");
    ImGui::SameLine();
    fast_toggle(v);
    if (!m.open_error.empty()) error_text(m.open_error + " (the open model stays)");
}

// What the last run gave, on one line cut to the panel: its tokens, time and loss.
void run_summary(const core::model::Snapshot& s) {
    char text[160];
    std::snprintf(text, sizeof text, "%d tokens · %.0f ms", s.t(), s.seconds * 1000.0);
    std::string line = text;
    if (s.has_loss) {
        std::snprintf(text, sizeof text, " · loss %.2f nats", s.loss);
        line += text;
    }
    ImGui::TextDisabled("%s", fit_text(line, ImGui::GetContentRegionAvail().x).c_str());
    if (s.has_loss) {
        std::snprintf(text, sizeof text, "%s\nloss: the mean next-token cross-entropy over the prompt, %.4f nats (%.4f bits) a token",
                      line.c_str(), s.loss, s.loss / std::log(2.0));
        tip(text);
    }
}

void progress_line(View& v) {
    ModelService& m = v.state<ModelService>();
    const core::model::Session::Progress p = m.session.progress();
    if (p.running && p.seconds <= progress_after) v.motion.wake_after(progress_after - p.seconds);
    if (p.running && p.seconds > progress_after) {
        char text[64];
        std::snprintf(text, sizeof text, "layer %d of %d", p.layers_done, p.layers);
        const float cancel = ImGui::CalcTextSize("Cancel").x + 2 * ImGui::GetStyle().FramePadding.x + ImGui::GetStyle().ItemSpacing.x;
        ImGui::ProgressBar(p.layers ? static_cast<float>(p.layers_done) / static_cast<float>(p.layers) : 0.0f, ImVec2(-cancel, 0), text);
        ImGui::SameLine();
        if (ImGui::Button("Cancel")) m.session.cancel();
        remember(v, "model cancel");
    } else if (p.cancelled) {
        dim_text("Cancelled: the maps show the run before.");
    } else if (!m.run_error.empty()) {
        error_text(m.run_error + (m.shown ? " (the maps show the run before)" : ""));
    } else if (m.shown && m.shown->t() > 0) {
        run_summary(*m.shown);
    }
}

} // namespace

void publish_model_snapshot(View& v) {
    v.state<ModelService>().follow_source(v);
    v.state<ModelService>().refresh(v);
}

void draw_model_prompt_panel(View& v) {
    ModelService& m = v.state<ModelService>();
    chooser_window(v);
    source_switch(v);
    if (ModelService::source(v) == ModelService::Source::file) {
        file_state();
        return;
    }
    if (!m.session.has_model() && m.opening()) {
        dim_text("Opening " + m.loading_path + " …");
        return;
    }
    if (!m.session.has_model()) {
        start_view(v);
        return;
    }
    header(v);
    // The box takes what the status line below leaves, at least two lines.
    const float line = ImGui::GetTextLineHeightWithSpacing();
    const float box = std::max(2.5f * line, ImGui::GetContentRegionAvail().y - ImGui::GetFrameHeightWithSpacing() - 0.2f * em());
    if (v.state<ModelPromptView>().box.draw("##prompt", m.prompt, ImVec2(-1, box))) m.run_prompt();
    remember(v, "model prompt");
    progress_line(v);
}

} // namespace ui
