// The Model workspace's "Why this score" panel driven headless: a click on a cell of the head map
// attributes that query's score against that key on a worker, and the panel shows core's pairs (whose
// sum plus bias is the forward's own q · k times the scale) and their words; the composition map
// shows core's scores, the selected head's strongest writers, and a click selects the reader.
#include "headless.h"
#include "tests/model_ui.h"

#include "tests/checkpoint_fixtures.h"
#include "core/background.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_map.h"
#include "ui/panels/model/model_why.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

namespace {

using model_ui::ModelWorkspace;
using model_ui::until;

} // namespace

TEST_CASE_FIXTURE(ModelWorkspace, "model why: a click on a head map cell attributes its score on a worker, as core and the forward give it") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat and the cat");
    show_panel_on_head("model_why", "model grid 1.0"); // head 2.1
    const auto& map = v.state<ui::ModelMapView>();
    const std::vector<int> ids = encoded_prompt();
    const int t = static_cast<int>(ids.size()), i = t - 1, j = 2;
    ui.click(ImVec2(map.cell_min(i, j).x + map.cell / 2, map.cell_min(i, j).y + map.cell / 2));
    ui.frame();
    CHECK(m.query_position() == i);
    CHECK(m.key == j);
    const auto& st = v.state<ui::ModelWhyView>();
    until(ui, [&] { return st.shown && st.shown->cell == st.asked; });
    const auto opened = own_model();
    const core::model::QkAttribution expected = core::model::qk_attribution(core::model::qk_stream(*opened.model, ids, 1), 0, i, j);
    const core::model::QkAttribution& shown = st.shown->attribution;
    CHECK(shown.components == expected.components);
    CHECK(shown.score == doctest::Approx(expected.score).epsilon(1e-12));
    CHECK(st.top == core::model::top_pairs_in_words(expected, 6));
    core::model::ForwardOptions o;
    o.capture_qkv = true;
    const core::model::ForwardResult r = opened.model->forward(ids, o);
    const core::model::HeadCapture& cap = r.captures[static_cast<std::size_t>(1 * r.heads + 0)];
    const double forward = cap.q.row(i).cast<double>().dot(cap.k.row(j).cast<double>()) / std::sqrt(static_cast<double>(cap.q.cols()));
    CHECK(shown.pairs.sum() + shown.bias == doctest::Approx(forward).epsilon(1e-5));
}

TEST_CASE_FIXTURE(ModelWorkspace, "model why: the composition map is core's, with the selected head's writers, and a click selects the reader") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat");
    v.open["model_why"] = true;
    ui.click(ui.item("model grid 1.1")); // head 2.2
    const auto& st = v.state<ui::ModelWhyView>();
    until(ui, [&] { return st.scores.has_value(); });
    ui.frames(2);
    const auto opened = own_model();
    const core::model::CompositionScores expected = core::model::composition_scores(*opened.model, core::model::CompositionKind::k);
    REQUIRE(st.scores->scores.size() == expected.scores.size());
    CHECK(st.scores->at(0, 1, 1, 0) == doctest::Approx(expected.at(0, 1, 1, 0)).epsilon(1e-12));
    const bool first = expected.at(0, 0, 1, 1) >= expected.at(0, 1, 1, 1);
    char text[48];
    std::snprintf(text, sizeof text, "head 1.%d  %.3f", first ? 1 : 2, std::max(expected.at(0, 0, 1, 1), expected.at(0, 1, 1, 1)));
    REQUIRE(st.writers.size() == 2);
    CHECK(st.writers[0] == text);
    CHECK(st.readers.empty()); // nothing after the last layer
    ui.click(ui.grid_cell("composition", 1, 2)); // head 1.2 writes, head 2.1 reads
    ui.frames(2);
    CHECK(m.layer == 1);
    CHECK(m.head == 0);
}

TEST_CASE("model why: a job dropped with its view is stopped, and the program's wait at exit sees it end") {
    core::background::wait_all();
    auto saw_stop = std::make_shared<std::atomic<bool>>(false), started = std::make_shared<std::atomic<bool>>(false);
    {
        core::Worker<int> job;
        job.start([saw_stop, started](const core::TaskControl& c) {
            started->store(true);
            while (!c.stopped()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            saw_stop->store(true);
            return 0;
        });
        CHECK(core::background::running() == 1);
        while (!started->load()) std::this_thread::yield(); // dropped while it runs (one dropped before it starts never runs)
    }
    core::background::wait_all();
    CHECK(saw_stop->load());
    CHECK(core::background::running() == 0);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model why: a click on a head map cell opens Why this score on that query and key, as the tooltip says") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat and the cat");
    REQUIRE_FALSE(v.open["model_why"]);
    const auto& map = v.state<ui::ModelMapView>();
    const int i = m.shown->t() - 1, j = 2;
    const ImVec2 cell(map.cell_min(i, j).x + map.cell / 2, map.cell_min(i, j).y + map.cell / 2);
    ui.move(cell);
    ui.frame();
    CHECK(ui.shows("click: why this query attends to this key", "##Tooltip_00"));
    ui.click(cell);
    ui.frames(2);
    CHECK(v.open["model_why"]);
    const auto& st = v.state<ui::ModelWhyView>();
    until(ui, [&] { return st.shown && st.shown->cell == st.asked; });
    std::string text = ui.screen_text("Why this score");
    text.erase(std::remove(text.begin(), text.end(), '\n'), text.end());
    CHECK(text.find("Whyquery" + std::to_string(i + 1) + "(" + m.shown->labels[static_cast<std::size_t>(i)] + ")attendstokey3(" +
                    m.shown->labels[2] + ")inhead1.1") != std::string::npos);
}
