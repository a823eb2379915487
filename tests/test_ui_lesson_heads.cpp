// The fourth lesson, "heads that learn", walked headless on the Train panel's tiny model: trained
// in the lesson, every prediction right and then wrong, every challenge solved with clicks on the
// Train panel's grid, every question answered.
#include "headless.h"
#include "lesson_walk.h"
#include "state_home.h"

#include "core/assets.h"
#include "core/learn/lesson_load.h"
#include "ui/panels/learn/lesson.h"
#include "ui/panels/train/train.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <unistd.h>

using headless::Ui;

namespace {

const char* const train_panel = "Train a tiny transformer";

using lesson_walk::session;
ui::TrainView& train(Ui& ui) { return ui.st().view.state<ui::TrainView>(); }

// The index of the best head (layer-major) by `score` in the grid's scores.
int best(Ui& ui, core::heads::Score score) { return core::heads::best_head(train(ui).shown.heads, score); }

std::string train_head_item(const char* kind, int k, int H) { return std::string("train.") + kind + "." + std::to_string(k / H) + "." + std::to_string(k % H); }

// Commits the prediction through a choice button: the nearest choice to the live answer, or another.
void predict_accuracy(Ui& ui, bool right) {
    CHECK(ui.shows("repeat accuracy: commit your prediction to reveal", train_panel)); // the panel keeps its numbers back
    lesson_walk::commit_choice(ui, right);
    CHECK(ui.shows("repeat accuracy", train_panel));
    CHECK_FALSE(ui.shows("commit your prediction to reveal", train_panel));
}

// The tab bar's "◂ Back to Learn", clicked.
void back_to_learn(Ui& ui) {
    REQUIRE(ui.shows("◂BacktoLearn", "##workspaces"));
    const ImGuiWindow* bar = ImGui::FindWindowByName("##workspaces");
    const float y = bar->Pos.y + 0.5f * bar->Size.y;
    ui.click(headless::find_item(ui, "##workspaces", {"workspaces", "◂ Back to Learn"}, ImVec2(0, y), ImVec2(ImGui::GetIO().DisplaySize.x, y)));
    ui.frames(2);
    CHECK(ui.app().workspace() == "learn");
}

void solve_in_train(Ui& ui, const std::string& id) {
    ui::TrainView& t = train(ui);
    const int H = t.shown.config.model.H;
    if (id == "train-it") {
        // The first step started the run; no button was pressed.
        CHECK((t.shown.running || t.shown.step == t.shown.config.steps));
        t.session->wait_idle();
        ui.frames(3);
        CHECK(t.shown.step == t.shown.config.steps);
    } else if (id == "real-previous") {
        ui::ModelHeads& m = ui.st().view.state<ui::LessonView>().model_heads;
        ui.frame();
        m.job.wait_idle(); // the worker runs the bundled model
        ui.frames(2);
        REQUIRE(m.run.has_value());
        REQUIRE(m.run->error.empty());
        const auto& sc = m.run->scores;
        const auto by_previous = [&](size_t a, size_t b) { return sc[a].previous.value_or(0) < sc[b].previous.value_or(0); };
        std::vector<size_t> order(sc.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), by_previous);
        const int Hm = m.run->heads;
        const auto pick = [&](size_t k) {
            ui.click(ui.item("lesson.model_head." + std::to_string(static_cast<int>(k) / Hm) + "." + std::to_string(static_cast<int>(k) % Hm)));
            ui.frames(2);
            CHECK(m.picked == static_cast<int>(k));
        };
        pick(order.front()); // the head least like a previous-token head
        ui.frames(40);
        CHECK_FALSE(session(ui).status().holds);
        CHECK_FALSE(session(ui).is_done(session(ui).index()));
        pick(order.back());
        CHECK(ui.shows("previous-token score", "Lesson"));
    } else if (id == "find-induction") {
        const int k = best(ui, core::heads::Score::induction);
        CHECK(k / H == 1); // layer 2
        ui.click(ui.item(train_head_item("open", k, H)));
        ui.frames(3); // a new tab shows a frame after it is first submitted
        CHECK(ui.app().workspace() == "explore");
        // Explore's A is the tiny model's own pattern of that head on the example sequence.
        const core::Matrix& A = ui.app().result().heads[0].weights;
        const core::Matrix& model_A = t.shown.patterns[static_cast<size_t>(k)];
        REQUIRE(A.rows() == model_A.rows());
        REQUIRE(A.cols() == model_A.cols());
        CHECK((A - model_A).cwiseAbs().maxCoeff() < 1e-9);
        back_to_learn(ui);
    } else if (id == "break-it") {
        ui.click(ui.item("train.restore_all"));
        ui.frame();
        const int k = best(ui, core::heads::Score::previous);
        CHECK(k / H == 0); // layer 1
        ui.click(ui.item(train_head_item("knock", k, H)));
        ui.frames(2);
        CHECK(t.measured.without.accuracy < 0.5);
    }
    lesson_walk::hold_until_done(ui);
}

// Walks the lesson from its first step to its last with every prediction right or wrong.
void walk_heads_lesson(Ui& ui, bool right) {
    std::string error;
    REQUIRE(ui::start_lesson(ui.st().view, "heads-that-learn", 0, error));
    ui.frames(3);
    CHECK(ui.st().view.open["train"]);
    CHECK(ui.app().workspace() == "learn"); // the Train panel beside the lesson's text
    lesson_walk::walk_to_last_step(ui, right, predict_accuracy, solve_in_train);
    for (const core::learn::Step& s : session(ui).lesson().steps)
        if (s.challenge) CHECK(session(ui).is_done(static_cast<int>(&s - session(ui).lesson().steps.data())));
}

} // namespace

TEST_CASE("ui lesson: heads that learn, trained in the lesson, walked with every prediction right and then wrong") {
    std::optional<core::train::SavedModel> trained;
    {
        StateHome state;
        Ui ui;
        ui.frames(2);
        // The run the lesson trains: the Train panel's default repeat run.
        ui.frame();
        walk_heads_lesson(ui, true);
        trained = train(ui).session->saved();
    }
    // Wrong this time, on the same model opened from a file (Train ▸ Open model… does this load).
    StateHome state;
    Ui ui;
    ui.frames(2);
    headless::menu_click(ui, "View", train_panel);
    ui.frames(2);
    train(ui).session->load(*trained);
    ui.frames(2);
    walk_heads_lesson(ui, false);
}

TEST_CASE("lesson model grid: the bundled model's heads on a text, their previous-token scores as the patterns give them, and a bad model named") {
    const std::string dir = core::asset_path("models/austen-gpt2");
    REQUIRE_FALSE(dir.empty());
    const core::learn::HeadsRun r = core::learn::run_heads(dir, "She read the letter, and then she read it again.", ui::model_grid_cells);
    REQUIRE(r.error.empty());
    CHECK(r.layers == 4);
    CHECK(r.heads == 4);
    const int t = static_cast<int>(r.tokens.size());
    REQUIRE(t > 5);
    REQUIRE(r.patterns.size() == 16u);
    for (size_t k = 0; k < r.patterns.size(); ++k) {
        const core::Matrix& A = r.patterns[k];
        REQUIRE(A.rows() == t);
        double previous = 0.0;
        for (int i = 0; i < t; ++i) {
            CHECK(std::abs(A.row(i).sum() - 1.0) < 1e-5);
            if (i + 1 < t) CHECK(A.row(i).tail(t - i - 1).cwiseAbs().maxCoeff() == 0.0); // causal
            if (i >= 1) previous += A(i, i - 1);
        }
        CHECK(std::abs(*r.scores[k].previous - previous / (t - 1)) < 1e-6);
    }
    const std::string bad = "/tmp/attnviz_lesson_model_" + std::to_string(getpid());
    std::filesystem::create_directories(bad);
    { std::ofstream(bad + "/config.json") << "{\"model_type\": \"gpt2\"}"; }
    const core::learn::HeadsRun failed = core::learn::run_heads(bad, "hi", ui::model_grid_cells);
    CHECK_FALSE(failed.error.empty());
    CHECK(failed.patterns.empty());
    std::filesystem::remove_all(bad);
}

TEST_CASE("ui lesson: heads that learn, resumed at its second step in a fresh app, opens the Train panel, trains and completes the step") {
    StateHome state;
    Ui ui;
    ui.frames(2);
    std::string error;
    REQUIRE(ui::start_lesson(ui.st().view, "heads-that-learn", 2, error)); // 1-based, as --step
    ui.frames(3);
    REQUIRE(session(ui).step().id == "train-it");
    CHECK(ui.st().view.open["train"]);
    CHECK_FALSE(ui.shows("is measured by the Train panel", "Lesson"));
    solve_in_train(ui, "train-it"); // the run was started for the step, with no button pressed
}
