// The Train panel, headless: buttons drive the worker, the grid follows, a head opens in the editor
// with the grid's pattern, checkpoints replay, models save and open.
#include "headless.h"
#include "train_fixtures.h"
#include "ui/panels/train/train.h"

#include <algorithm>
#include <cstdio>
#include <unistd.h>

using headless::Ui;

namespace {

const char* const kTrainPanel = "Train a tiny transformer";

const auto tiny_run = train_fixtures::tiny_repeat_run;
using train_fixtures::largest_difference;

// The panel open with a tiny model in place of the default one (set as the controls would, then Reset).
ui::TrainView& open_train(Ui& ui, int steps) {
    ui.frames(2);
    headless::menu_click(ui, "View", "Train a tiny transformer");
    ui.frames(2);
    ui::TrainView& t = ui.st().view.state<ui::TrainView>();
    t.config = tiny_run(steps);
    ui.click(ui.item("train.reset"));
    ui.frame(); // the panel copies the session's view at the start of its frame
    REQUIRE(t.shown.config.model.T == 12);
    return t;
}

// Runs the worker to the end of its steps and shows the result.
void train_to_end(Ui& ui, ui::TrainView& t) {
    ui.click(ui.item("train.start"));
    t.session->wait_idle();
    ui.frames(2);
}


} // namespace

TEST_CASE("ui train: Step takes one step at a time, Start trains, Pause stops within a step") {
    Ui ui;
    ui::TrainView& t = open_train(ui, 100000);
    for (int i = 1; i <= 3; ++i) {
        ui.click(ui.item("train.step"));
        t.session->wait_idle();
        ui.frame();
        CHECK(t.shown.step == i);
    }
    CHECK(t.shown.curve.size() == 3u);
    CHECK(ui.shows("step3/100000", kTrainPanel));
    ui.click(ui.item("train.start"));
    ui.frame();
    CHECK(t.shown.running);
    ui.click(ui.item("train.start")); // now reads Pause
    const int at_pause = t.shown.step;
    t.session->wait_idle();
    ui.frame();
    CHECK_FALSE(t.shown.running);
    CHECK(t.shown.step <= at_pause + 2); // the step it was in, and at most one begun before the frame saw it
    const int stopped = t.shown.step;
    ui.frames(5);
    CHECK(t.shown.step == stopped);
}

TEST_CASE("ui train: the grid labels every head with its scores and stars the best") {
    Ui ui;
    ui::TrainView& t = open_train(ui, 50);
    train_to_end(ui, t);
    CHECK(t.shown.step == 50);
    REQUIRE(t.shown.patterns.size() == 4u);
    CHECK(ui.shows("L2H1", kTrainPanel));
    CHECK(ui.shows("prev·ind·copyatstep50", kTrainPanel));
    // The head with the best induction score carries a star after that score.
    const auto& heads = t.shown.heads;
    const auto best = std::max_element(heads.begin(), heads.end(), [](const auto& a, const auto& b) { return a.induction < b.induction; });
    char text[16];
    std::snprintf(text, sizeof text, "%.2f*", *best->induction);
    CHECK(ui.shows(text + 1, kTrainPanel)); // ".43*": without the leading 0
}

TEST_CASE("ui train: clicking a head opens it in Explore's editor with the grid's pattern as A") {
    Ui ui;
    ui::TrainView& t = open_train(ui, 40);
    train_to_end(ui, t);
    ui.click(ui.item("train.open.1.0"));
    ui.frame();
    const core::Scenario& s = ui.scenario();
    CHECK(s.n() == 12);
    CHECK(s.d_model() == 16);
    CHECK(s.d_k() == 8);
    CHECK(s.causal);
    CHECK(s.tokens[0] == std::to_string(t.session->example().tokens[0]));
    CHECK(largest_difference(ui.head(0).weights, t.shown.patterns[2]) <= 1e-12);

    CHECK(ui.app().workspace() == "explore"); // the head opened there: back to Train for the next
    ui.key('3', true);
    ui.frames(2);

    // From a checkpoint: the scrubber's pattern, and the editor agrees with it.
    ui.click(ui.item("train.live"));
    t.scrub = 1; // step 25
    ui.frame();
    REQUIRE_FALSE(t.live);
    CHECK(t.shown.checkpoint_steps[1] == 25);
    const auto replay = core::train::example_patterns(t.session->checkpoint(1), t.session->example());
    CHECK(largest_difference(t.scrub_patterns[1], replay[1]) == 0.0);
    CHECK(largest_difference(replay[1], t.shown.patterns[1]) > 1e-6); // step 25 is not step 40
    ui.click(ui.item("train.open.0.1"));
    ui.frame();
    CHECK(largest_difference(ui.head(0).weights, replay[1]) <= 1e-12);
}

TEST_CASE("ui train: Save model writes a file that Open model reads back, and a bad file changes nothing") {
    Ui ui;
    ui::TrainView& t = open_train(ui, 30);
    train_to_end(ui, t);
    const std::string path = "/tmp/attnviz-ui-train-" + std::to_string(::getpid()) + ".safetensors";
    // Save model… and Open model… go through the file dialog: a path typed into its box, Enter.
    const auto through_dialog = [&](const char* button, const std::string& file) {
        ui.click(ui.item(button));
        ui.frames(2);
        REQUIRE(ui.st().dialog.open());
        ui.type(file);
        ui.key(headless::key_enter);
        ui.frame();
    };
    through_dialog("train.save", path);
    CHECK_FALSE(ui.st().dialog.open());
    REQUIRE(headless::file_exists(path.c_str()));
    CHECK(t.path == path);
    const std::vector<double> trained = t.session->saved().model.params;
    ui.click(ui.item("train.reset"));
    ui.frame();
    CHECK(t.shown.step == 0);
    through_dialog("train.open", path);
    CHECK(t.shown.step == 30);
    CHECK(t.session->saved().model.params == trained);

    const std::string bad = path + ".bad";
    std::FILE* f = std::fopen(bad.c_str(), "wb");
    std::fputs("not a model", f);
    std::fclose(f);
    through_dialog("train.open", bad);
    CHECK(ui.st().dialog.open()); // it stays, saying why
    CHECK(ui.st().dialog.error().find(bad) != std::string::npos);
    ui.key(headless::key_escape);
    CHECK(t.shown.step == 30);
    std::remove(path.c_str());
    std::remove(bad.c_str());
}

TEST_CASE("ui train: clicking out on a head knocks it out, and the repeat accuracy beside it is the core's") {
    Ui ui;
    ui::TrainView& t = open_train(ui, 150);
    train_to_end(ui, t);
    const core::train::Model model = t.session->saved().model;
    const core::train::Batch repeat = core::train::held_out_sequences(t.shown.config).repeat;
    const double intact = core::train::evaluate(model, repeat).accuracy;
    char text[96];
    std::snprintf(text, sizeof text, "repeat accuracy %.2f intact", intact);
    CHECK(ui.shows(text, kTrainPanel));

    ui.click(ui.item("train.knock.0.1"));
    ui.frame();
    REQUIRE(t.knockouts.heads.size() == 1u);
    CHECK(t.knockouts.heads[0] == core::heads::HeadRef{0, 1});
    core::heads::Knockouts one{{{0, 1}}, core::heads::Ablation::zero};
    const double without = core::train::evaluate(model, repeat, one).accuracy;
    CHECK(t.measured.without.accuracy == without);
    std::snprintf(text, sizeof text, "repeat accuracy %.2f with 1 knocked out · %.2f intact", without, intact);
    CHECK(ui.shows(text, kTrainPanel));
    CHECK(ui.shows("in", kTrainPanel)); // the head's button now puts it back

    // Mean mode, then a second head: both follow at once.
    t.knockouts.ablation = core::heads::Ablation::mean; // as the combo sets it
    ui.click(ui.item("train.knock.1.0"));
    ui.frame();
    core::heads::Knockouts two{{{0, 1}, {1, 0}}, core::heads::Ablation::mean};
    CHECK(t.measured.without.accuracy == core::train::evaluate(model, repeat, two).accuracy);
    CHECK(t.measured.without.loss == core::train::evaluate(model, repeat, two).loss);

    // In again, and restore all.
    ui.click(ui.item("train.knock.0.1"));
    ui.frame();
    REQUIRE(t.knockouts.heads.size() == 1u);
    ui.click(ui.item("train.restore_all"));
    ui.frame();
    CHECK(t.knockouts.heads.empty());
    std::snprintf(text, sizeof text, "repeat accuracy %.2f intact", intact);
    CHECK(ui.shows(text, kTrainPanel));
}
