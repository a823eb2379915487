// ui/panels/train/train.cpp — the Train panel: the run's settings and buttons, loss and accuracy curves,
// a grid of every layer × head pattern on the example sequence with its scores, a scrubber over the
// checkpoints, saving and opening models, and "Open in editor" for any head.
//
// [SECTION] settings and buttons
// [SECTION] curves
// [SECTION] head grid
// [SECTION] files
#include "ui/panels/train/train.h"

#include "core/io/formats.h"
#include "core/edits.h"
#include "core/io/tensor.h"
#include "ui/panels/train/train_curves.h"
#include "ui/panels/train/train_knockouts.h"
#include "ui/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>

namespace ui {

core::train::TrainConfig TrainView::default_config() {
    core::train::TrainConfig c;
    c.threads = 2;
    return c;
}

namespace {

using core::train::TrainConfig;

std::string format(const char* f, double x) {
    char text[48];
    std::snprintf(text, sizeof text, f, x);
    return text;
}

// The patterns the grid shows: live, or the chosen checkpoint's (made once per checkpoint).
const std::vector<core::Matrix>& grid_patterns(TrainView& t) {
    if (t.live || t.shown.checkpoint_steps.empty()) return t.shown.patterns;
    t.scrub = std::clamp(t.scrub, 0, static_cast<int>(t.shown.checkpoint_steps.size()) - 1);
    if (t.scrub_shown != t.scrub) {
        t.scrub_patterns = core::train::example_patterns(t.session->checkpoint(t.scrub), t.session->example());
        t.scrub_shown = t.scrub;
    }
    return t.scrub_patterns;
}

// [SECTION] settings and buttons ------------------------------------------------------------------

void settings(TrainView& t, View& v) {
    TrainConfig& c = t.config;
    const float field = 5.5f * em(), small = 2.6f * em();
    static const char* const tasks[] = {"repeat", "previous", "sort"};
    int task = static_cast<int>(c.task);
    ImGui::SetNextItemWidth(field);
    if (ImGui::Combo("task", &task, tasks, 3)) c.task = static_cast<core::train::Task>(task);
    tip("repeat: a random segment repeated; previous: the token before; sort: digits, then sorted");
    ImGui::SameLine();
    int init = static_cast<int>(c.init);
    static const char* const inits[] = {"small", "large"};
    ImGui::SetNextItemWidth(4.0f * em());
    if (ImGui::Combo("init", &init, inits, 2)) c.init = static_cast<core::train::Init>(init);
    tip("small: every matrix N(0, 0.02²); large: W_E and W_pos N(0, 1), so the heads form much sooner");
    struct IntField { const char* label; int* value; int lo, hi; float width; bool new_line; };
    int seed = static_cast<int>(c.seed);
    const IntField ints[] = {{"L", &c.model.L, 1, 4, small, true},       {"H", &c.model.H, 1, 8, small, false},
                             {"D", &c.model.D, 4, 128, small, false},    {"T", &c.model.T, 8, 64, small, false},
                             {"steps", &c.steps, 1, 100000, field, true}, {"seed", &seed, 0, 1000000, small * 1.5f, false}};
    for (const IntField& f : ints) {
        if (!f.new_line) ImGui::SameLine();
        ImGui::SetNextItemWidth(f.width);
        if (ImGui::InputInt(f.label, f.value, 0)) *f.value = std::clamp(*f.value, f.lo, f.hi);
        remember(v, (std::string("train.") + f.label).c_str());
    }
    c.seed = static_cast<std::uint64_t>(seed);
    ImGui::SetNextItemWidth(field);
    if (ImGui::InputDouble("lr", &c.lr, 0.0, 0.0, "%.4g")) c.lr = std::clamp(c.lr, 1e-5, 0.1);
    ImGui::SameLine();
    ImGui::Checkbox("MLP", &c.model.mlp);
}

void buttons(TrainView& t, View& v) {
    const bool running = t.shown.running;
    if (ImGui::Button(running ? "Pause" : "Start")) running ? t.session->pause() : t.session->start();
    remember(v, "train.start");
    ImGui::SameLine();
    ImGui::BeginDisabled(running);
    if (ImGui::Button("Step")) t.session->step_once();
    remember(v, "train.step");
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Reset")) {
        try {
            TrainConfig c = t.config;
            c.warmup = std::min(c.warmup, c.steps / 4);
            t.session->reset(c);
            t.live = true;
            t.scrub_shown = -1;
        } catch (const core::train::ConfigError& e) {
            v.tell(std::string("Train: ") + e.what(), true);
        }
    }
    tip("a fresh model with the settings above");
    remember(v, "train.reset");
    ImGui::Text("step %d / %d%s", t.shown.step, t.shown.config.steps, running ? "  training…" : "");
}

// [SECTION] curves --------------------------------------------------------------------------------

// The curves as tall as a third of the panel allows, with the step the grid shows marked.
void curves(TrainView& t, float height) {
    ImGui::Checkbox("log x", &t.log_x);
    const bool scrubbed = !t.live && t.scrub < static_cast<int>(t.shown.checkpoint_steps.size());
    draw_training_curves(t.shown.curve, t.log_x, height, scrubbed ? t.shown.checkpoint_steps[static_cast<std::size_t>(t.scrub)] : t.shown.heads_step);
}

// [SECTION] head grid -----------------------------------------------------------------------------

// The pattern as an (invisible) button: clicking it opens the head in the editor.
bool pattern_button(const core::Matrix& A, float cell) {
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const ImVec2 size(cell * static_cast<float>(A.cols()), cell * static_cast<float>(A.rows()));
    const bool clicked = ImGui::InvisibleButton("pattern", size);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (Eigen::Index i = 0; i < A.rows(); ++i)
        for (Eigen::Index j = 0; j < A.cols(); ++j) {
            const ImVec2 a(p.x + static_cast<float>(j) * cell, p.y + static_cast<float>(i) * cell);
            draw->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell), j > i ? masked_color() : sequential_color(A(i, j)));
        }
    if (ImGui::IsItemHovered()) draw->AddRect(p, ImVec2(p.x + size.x, p.y + size.y), selection_color());
    return clicked;
}

void head_grid(TrainView& t, core::Scenario& s, View& v) {
    const std::vector<core::Matrix>& patterns = grid_patterns(t);
    const core::train::ModelConfig& m = t.shown.config.model;
    if (patterns.size() != static_cast<size_t>(m.L * m.H)) return;
    const std::vector<core::heads::HeadScores>& heads = t.shown.heads;
    const int best[3] = {core::heads::best_head(heads, core::heads::Score::previous), core::heads::best_head(heads, core::heads::Score::induction),
                         core::heads::best_head(heads, core::heads::Score::copy)};
    // As large as the panel allows, every head and its scores in view: the scores' line sets a
    // head's least width, the layers' rows (title, pattern, scores) share the height.
    const float gap = 0.8f * em(), line = ImGui::GetTextLineHeightWithSpacing();
    const float scores_w = ImGui::CalcTextSize(" .00*  .00*  .00* ").x;
    knockout_line(t.knockouts, t.measured, KnockoutSource{*t.session, t.shown, t.live ? -1 : t.scrub}, v);
    ImGui::TextDisabled("Example sequence; click a head to open it in Explore, \"out\" to knock it out.");
    ImGui::TextDisabled("prev · ind · copy at step %d; * the best of each", t.shown.heads_step);
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float across = (avail.x - gap * static_cast<float>(m.H)) / static_cast<float>(m.H) / static_cast<float>(m.T);
    const float down = ((avail.y - 0.5f * line) / static_cast<float>(m.L) - 2.0f * line - gap) / static_cast<float>(m.T);
    const float cell = std::floor(std::clamp(std::min(across, down), 0.15f * em(), 1.6f * em()));
    for (int l = 0; l < m.L; ++l) {
        for (int h = 0; h < m.H; ++h) {
            const int k = l * m.H + h;
            if (h) ImGui::SameLine(0.0f, gap + std::max(0.0f, scores_w - cell * static_cast<float>(m.T)));
            ImGui::BeginGroup();
            ImGui::PushID(k);
            ImGui::Text("L%d H%d", l + 1, h + 1);
            ImGui::SameLine();
            const bool out = knocked(t.knockouts, l, h);
            if (ImGui::SmallButton(out ? "in" : "out")) toggle_knockout(t.knockouts, l, h);
            remember(v, ("train.knock." + std::to_string(l) + "." + std::to_string(h)).c_str());
            tip(out ? "put this head back" : "knock this head out: the repeat accuracy above updates");
            if (pattern_button(patterns[static_cast<size_t>(k)], cell)) {
                open_head_in_editor(t, s, l, h);
                v.request_workspace = "explore"; // with "◂ Back to Train" in the tab bar
            }
            tip("open this head in Explore: X = this layer's LN₁ output on the example, its W_Q, W_K, W_V, causal");
            remember(v, ("train.open." + std::to_string(l) + "." + std::to_string(h)).c_str());
            if (out) cross_out(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
            if (static_cast<size_t>(k) < heads.size() && !facts_hidden(v)) {
                const core::heads::HeadScores& hs = heads[static_cast<size_t>(k)];
                const double values[3] = {hs.previous.value_or(0.0), hs.induction.value_or(0.0), hs.copy.value_or(0.0)};
                for (int q = 0; q < 3; ++q) {
                    if (q) ImGui::SameLine(0.0f, 0.3f * em());
                    const bool star = best[q] == k;
                    const std::string text = format("%.2f", values[q]).substr(values[q] < 1.0 ? 1 : 0) + (star ? "*" : "");
                    if (star) ImGui::TextColored(ImVec4(1.0f, 0.8f, 0.3f, 1.0f), "%s", text.c_str());
                    else ImGui::TextUnformatted(text.c_str());
                }
            }
            ImGui::PopID();
            ImGui::EndGroup();
        }
        ImGui::Dummy(ImVec2(1.0f, 0.3f * gap));
    }
}

// A ▾ over the checkpoint nearest the step at which the loss drops, on the scrubber just drawn.
void drop_marker(const TrainView& t, int count) {
    const int drop = loss_drop_step(t.shown.curve);
    if (drop < 0 || count < 2) return;
    const std::vector<int>& steps = t.shown.checkpoint_steps;
    const auto nearest = std::min_element(steps.begin(), steps.end(), [&](int a, int b) { return std::abs(a - drop) < std::abs(b - drop); });
    const ImRect r(ImGui::GetItemRectMin(), ImGui::GetItemRectMax());
    const float grab = ImGui::GetStyle().GrabMinSize, f = static_cast<float>(nearest - steps.begin()) / static_cast<float>(count - 1);
    const float x = r.Min.x + 0.5f * grab + f * (r.GetWidth() - grab), h = 0.35f * em();
    ImGui::GetWindowDrawList()->AddTriangleFilled(ImVec2(x - h, r.Min.y), ImVec2(x + h, r.Min.y), ImVec2(x, r.Min.y + h), IM_COL32(230, 110, 90, 255));
}

void scrubber(TrainView& t, View& v) {
    const int count = static_cast<int>(t.shown.checkpoint_steps.size());
    ImGui::Checkbox("live", &t.live);
    remember(v, "train.live");
    ImGui::SameLine();
    ImGui::BeginDisabled(t.live || count < 2);
    t.scrub = std::clamp(t.scrub, 0, std::max(0, count - 1));
    const std::string label = t.live || !count ? "checkpoints" : "step " + std::to_string(t.shown.checkpoint_steps[static_cast<size_t>(t.scrub)]);
    ImGui::SetNextItemWidth(-1.0f);
    ImGui::SliderInt("##checkpoint", &t.scrub, 0, std::max(0, count - 1), label.c_str());
    tip("untick live, then drag: the heads as they were, every 25 steps; ▾ marks where the loss drops");
    remember(v, "train.scrub");
    drop_marker(t, count);
    ImGui::EndDisabled();
}

// [SECTION] files ---------------------------------------------------------------------------------

// Save model… and Open model… ask for the file through the file dialog; a bad file changes nothing.
FileRequest model_request(TrainView& t, View& v, core::io::FileBrowser::Mode mode) {
    const std::filesystem::path last = t.path;
    FileRequest r{mode, "", {core::io::filter_of(core::io::Kind::model, "Models")}, last.filename().string(), last.parent_path().string(), {}};
    if (mode == core::io::FileBrowser::Mode::save) {
        r.title = "Save model";
        r.accept = [&t, &v](const std::string& path) {
            t.session->pause();
            t.session->wait_idle();
            core::train::save_model(path, t.session->saved()); // throws FileError naming the file
            t.path = path;
            v.tell("Saved " + path, false);
        };
    } else {
        r.title = "Open model";
        r.name.clear();
        r.accept = [&t, &v](const std::string& path) {
            const core::train::SavedModel saved = core::train::load_model(path);
            t.session->load(saved);
            t.live = true;
            t.scrub_shown = -1;
            t.path = path;
            v.tell("Opened " + path, false);
        };
    }
    return r;
}

void files(TrainView& t, View& v) {
    if (ImGui::Button("Save model…")) v.file_request = model_request(t, v, core::io::FileBrowser::Mode::save);
    remember(v, "train.save");
    tip("a .safetensors file (see docs/formats.md: the model file)");
    ImGui::SameLine();
    if (ImGui::Button("Open model…")) v.file_request = model_request(t, v, core::io::FileBrowser::Mode::open);
    remember(v, "train.open");
    ImGui::SameLine();
    ImGui::TextDisabled("%s", std::filesystem::path(t.path).filename().c_str());
}

} // namespace

void open_head_in_editor(TrainView& t, core::Scenario& s, int layer, int head) {
    t.session->pause();
    t.session->wait_idle();
    const core::train::Model model = t.live ? t.session->saved().model : t.session->checkpoint(t.scrub);
    core::edits::replace_scenario(s, core::train::head_scenario(model, t.session->example(), layer, head)); // valid by construction
}

// A lesson's request: train the repeat run to its end. A run of another task, or of one layer
// (no induction head can form), makes way for the default run.
void train_for_lesson(TrainView& t, View& v) {
    if (!std::exchange(v.request_training, false)) return;
    const TrainConfig& c = t.shown.config;
    if (c.task != core::train::Task::repeat || c.model.L < 2) {
        t.config = TrainView::default_config();
        t.session->reset(t.config);
        t.live = true;
        t.scrub_shown = -1;
        v.tell("Train: the lesson set up the default repeat run (2 layers, attention only)", false);
    } else if (t.shown.step >= c.steps || t.shown.running) {
        return;
    }
    t.session->start();
    t.session->view(t.shown);
}

void draw_train_panel(core::Scenario& s, View& v) {
    TrainView& t = v.state<TrainView>();
    if (!t.session) t.session = std::make_unique<core::train::TrainSession>(t.config);
    t.session->view(t.shown);
    train_for_lesson(t, v);
    if (t.shown.running) v.motion.moving = true; // every step moves the curves and the heads
    // Left: the run's settings, buttons, curves and files (scrolling when the panel is short).
    // Right: the heads.
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    ImGui::BeginChild("run", ImVec2(std::clamp(0.3f * avail.x, 19.0f * em(), 32.0f * em()), 0.0f));
    settings(t, v);
    buttons(t, v);
    curves(t, std::clamp(0.4f * avail.y, 7.0f * em(), 22.0f * em()));
    scrubber(t, v);
    files(t, v);
    ImGui::EndChild();
    ImGui::SameLine();
    ImGui::BeginChild("heads");
    head_grid(t, s, v);
    ImGui::EndChild();
}

} // namespace ui
