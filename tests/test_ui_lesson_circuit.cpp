// The fifth lesson, "reading a circuit", walked headless on the bundled Austen GPT-2: every
// prediction right and then wrong while its maps keep the deciding numbers back, both challenges
// solved by clicking heads, every question answered; the maps' numbers against full forwards.
#include "headless.h"
#include "lesson_walk.h"
#include "state_home.h"

#include "core/assets.h"
#include "core/learn/lesson_load.h"
#include "core/model/circuits/composition.h"
#include "core/model/circuits/patching.h"
#include "core/model/format/checkpoint.h"
#include "core/model/tokenizer/tokenizer.h"
#include "ui/panel_table.h"
#include "ui/panels/learn/lesson.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

using headless::Ui;

namespace {

using lesson_walk::session;
ui::LessonView& lesson_view(Ui& ui) { return ui.st().view.state<ui::LessonView>(); }

template <class Job>
void wait_for(Ui& ui, Job& job) {
    ui.frame();
    job.wait_idle(); // the worker runs the bundled model
    ui.frames(2);
}

std::string lesson_head_item(const char* map, int k, int H) { return std::string("lesson.") + map + "." + std::to_string(k / H) + "." + std::to_string(k % H); }

// The circuit maps once done, checked against full forwards of the corrupted prompt with one head
// patched (core::model::patched_metric) and against the model's own ranking of the answer.
const core::learn::PatchRun& maps(Ui& ui) {
    ui::CircuitMaps& m = lesson_view(ui).circuit;
    wait_for(ui, m.job);
    REQUIRE(m.run.has_value());
    REQUIRE(m.run->error.empty());
    return m.run->maps;
}

void check_against_forwards(const core::learn::PatchRun& r, const core::learn::Step& step) {
    const core::model::OpenedModel m = core::model::open_model(step.actions.model);
    const core::model::Tokenizer tok = core::model::load_tokenizer(m.dir);
    const std::vector<int> clean = tok.encode_ids(step.actions.model_text), corrupt = tok.encode_ids(step.actions.patch->corrupt);
    const core::model::PatchMetric metric{tok.encode_ids(step.actions.patch->answer, false)[0], tok.encode_ids(step.actions.patch->vs, false)[0], false};
    REQUIRE(r.layers == 4);
    REQUIRE(r.heads == 4);
    CHECK(r.clean_metric > 0.0);
    CHECK(r.corrupt_metric < 0.0);
    for (const auto& [l, h] : {std::pair{3, 2}, std::pair{0, 1}, std::pair{2, 3}}) {
        const double patched = core::model::patched_metric(*m.model, clean, corrupt, metric, {{l, h}});
        CHECK(r.recovery(l, h) == doctest::Approx((patched - r.corrupt_metric) / (r.clean_metric - r.corrupt_metric)).epsilon(1e-4));
    }
    // The lens's last row is the model's output: the answer's rank among the real logits.
    const core::model::ForwardResult f = m.model->forward(clean, {});
    const auto last = f.logits.row(f.logits.rows() - 1);
    int rank = 1;
    for (Eigen::Index j = 0; j < last.size(); ++j) rank += last(j) > last(metric.answer) ? 1 : 0;
    CHECK(r.lens_rank.back() == rank);
    CHECK(r.clean_metric == doctest::Approx(last(metric.answer) - last(metric.vs)).epsilon(1e-4));
}

// The reader's K-composition map against core's scores, and its strongest score at the last token
// against the head's own q · k / √d_head from a forward that keeps them (GPT-2: no rotation).
void check_reader(const core::learn::PatchRun& r, const core::learn::Step& step) {
    const core::model::OpenedModel m = core::model::open_model(step.actions.model);
    const std::vector<int> clean = core::model::load_tokenizer(m.dir).encode_ids(step.actions.model_text);
    const int rl = r.reader / r.heads, rh = r.reader % r.heads;
    Eigen::Index bl = 0, bh = 0;
    r.recovery.bottomRows(r.layers - 1).maxCoeff(&bl, &bh);
    CHECK(rl == bl + 1);
    CHECK(rh == bh);
    const core::model::CompositionScores c = core::model::composition_scores(*m.model, core::model::CompositionKind::k);
    for (int l = 0; l < r.layers; ++l)
        for (int h = 0; h < r.heads; ++h) {
            if (l < rl) CHECK(r.k_composition(l, h) == doctest::Approx(c.at(l, h, rl, rh)).epsilon(1e-12));
            else CHECK(std::isnan(r.k_composition(l, h)));
        }
    core::model::ForwardOptions o;
    o.capture_qkv = true;
    const core::model::ForwardResult f = m.model->forward(clean, o);
    const core::model::HeadCapture& cap = f.captures[static_cast<size_t>(r.reader)];
    const Eigen::Index i = cap.q.rows() - 1;
    Eigen::Index j = 0;
    const double best = (cap.k.topRows(i + 1) * cap.q.row(i).transpose()).cast<double>().maxCoeff(&j) / std::sqrt(static_cast<double>(cap.q.cols()));
    CHECK(r.query == i);
    CHECK(r.key == j);
    CHECK(r.score == doctest::Approx(best).epsilon(1e-4));
    REQUIRE(r.qk_pairs.size() == 3);
}

// Commits the prediction through a choice button: the nearest choice to the live answer, or another.
// Until then the map the answer reads is grey, with "?" for its numbers.
void predict_circuit(Ui& ui, bool right) {
    const core::learn::Predict& p = *session(ui).step().predict;
    const core::learn::PatchRun& r = maps(ui);
    check_against_forwards(r, session(ui).step());
    const bool composition = p.answer.text() == "composition_layer";
    if (composition) check_reader(r, session(ui).step());
    CHECK(ui.shows(ui::reveal_hint, ui::lesson_model_window));
    const std::string shown_before = ui.screen_text(ui::lesson_model_window); // the maps, beside the text
    lesson_walk::commit_choice(ui, right);
    CHECK_FALSE(ui.shows(ui::reveal_hint, ui::lesson_model_window));
    char best[16];
    std::snprintf(best, sizeof best, "%+.2f", r.recovery.maxCoeff());
    if (p.answer.text() == "best_recovery") {
        CHECK(shown_before.find(best) == std::string::npos); // kept back, then shown
        CHECK(ui.shows(best, ui::lesson_model_window));
    }
    if (composition) { // the map's largest entry and the top pair, kept back, then shown
        std::snprintf(best, sizeof best, "%+.2f", r.k_composition.topRows(r.reader / r.heads).maxCoeff());
        CHECK(shown_before.find(best) == std::string::npos);
        CHECK(ui.shows(best, ui::lesson_model_window));
        CHECK(shown_before.find(r.qk_pairs[0]) == std::string::npos);
        CHECK(ui.shows(r.qk_pairs[0], ui::lesson_model_window));
    }
}

void pick(Ui& ui, const char* map, int k, int H, int& picked) {
    ui.click(ui.item(lesson_head_item(map, k, H)));
    ui.frames(2);
    CHECK(picked == k);
}

// Picks the head least like the goal first (the goal does not hold), then the one that meets it.
void solve_circuit(Ui& ui, const std::string& id) {
    if (id == "find-induction") {
        ui::ModelHeads& m = lesson_view(ui).model_heads;
        wait_for(ui, m.job);
        REQUIRE(m.run.has_value());
        std::vector<int> order(m.run->scores.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](int a, int b) { return m.run->scores[static_cast<size_t>(a)].induction.value_or(0) < m.run->scores[static_cast<size_t>(b)].induction.value_or(0); });
        pick(ui, "model_head", order.front(), m.run->heads, m.picked);
        ui.frames(40);
        CHECK_FALSE(session(ui).is_done(session(ui).index()));
        pick(ui, "model_head", order.back(), m.run->heads, m.picked);
        CHECK(m.run->scores[static_cast<size_t>(order.back())].induction.value() > 0.5);
        CHECK(ui.shows("induction score", "Lesson"));
    } else if (id == "pick-best") {
        ui::CircuitMaps& m = lesson_view(ui).circuit;
        const core::learn::PatchRun& r = maps(ui);
        Eigen::Index l = 0, h = 0, wl = 0, wh = 0;
        r.recovery.maxCoeff(&l, &h);
        r.recovery.minCoeff(&wl, &wh);
        pick(ui, "attribution", static_cast<int>(wl * r.heads + wh), r.heads, m.picked); // either map picks
        ui.frames(40);
        CHECK_FALSE(session(ui).is_done(session(ui).index()));
        pick(ui, "recovery", static_cast<int>(l * r.heads + h), r.heads, m.picked);
        CHECK(l >= 2); // the copy is carried late
        CHECK(ui.shows("L" + std::to_string(l + 1) + " H" + std::to_string(h + 1) + ": recovery", ui::lesson_model_window));
    }
    lesson_walk::hold_until_done(ui);
}

// The Learn menu lists the five lessons; the walk right starts there, the walk wrong from --lesson's call.
void open_lesson(Ui& ui, bool from_menu) {
    if (from_menu) {
        headless::menu_click(ui, "Learn", "Reading a circuit");
    } else {
        std::string error;
        REQUIRE(ui::start_lesson(ui.st().view, "reading-a-circuit", 0, error));
    }
    ui.frames(3);
    REQUIRE(lesson_view(ui).session.has_value());
    CHECK(session(ui).lesson().id == "reading-a-circuit");
}

void walk_circuit_lesson(Ui& ui, bool right) {
    open_lesson(ui, right);
    CHECK(ui.app().workspace() == "learn");
    lesson_walk::walk_to_last_step(ui, right, predict_circuit, solve_circuit);
    for (const core::learn::Step& s : session(ui).lesson().steps)
        if (s.challenge || s.question) CHECK(session(ui).is_done(static_cast<int>(&s - session(ui).lesson().steps.data())));
}

} // namespace

TEST_CASE("ui lesson: reading a circuit, on the bundled model, walked with every prediction right and then wrong") {
    for (const bool right : {true, false}) {
        StateHome state;
        Ui ui;
        ui.frames(2);
        walk_circuit_lesson(ui, right);
    }
}

TEST_CASE("ui lesson: a step on the real model at 1366×768 — its grid fills the screen beside the text, the toy panels close, and no internal name shows") {
    StateHome state;
    Ui ui(core::preset_three_tokens(), ImVec2(1366, 768));
    ui::View& v = ui.st().view;
    ui.frames(2);
    std::string error;
    REQUIRE(ui::start_lesson(v, "reading-a-circuit", 2, error)); // "Challenge: an induction head in a real model"
    ui.frames(3);
    wait_for(ui, lesson_view(ui).model_heads.job);
    ui.frames(2);
    for (const char* toy : {"matrices", "heatmap", "query_arrow", "calculation"}) {
        CAPTURE(toy);
        CHECK_FALSE(v.open[toy]);
    }
    const ImGuiWindow* lesson = ImGui::FindWindowByName(ui::find_panel("lesson")->title);
    const ImGuiWindow* model = ImGui::FindWindowByName(ui::lesson_model_window);
    REQUIRE(lesson);
    REQUIRE(model);
    CHECK(model->Pos.x == doctest::Approx(lesson->Pos.x + lesson->Size.x));
    CHECK(model->Size.x >= 0.6f * 1366);
    CHECK(model->Pos.x + model->Size.x == doctest::Approx(1366));
    CHECK(model->Size.y == doctest::Approx(lesson->Size.y));
    const std::string item = "lesson.model_head.3.2"; // a head of the last layer, in the model's window
    REQUIRE(v.items.count(item) == 1);
    CHECK(model->InnerClipRect.Contains(v.items.at(item)));
    CHECK_FALSE(ui.shows("picked_induction"));
    CHECK(ui.shows("The induction score of the head picked", "Lesson"));
    // A lesson on the toy example brings its panels back.
    REQUIRE(ui::start_lesson(v, "worked-example", 1, error));
    ui.frames(3);
    CHECK(v.open["matrices"]);
    CHECK(v.open["heatmap"]);
    CHECK(ImGui::FindWindowByName(ui::lesson_model_window)->Active == false);
}

TEST_CASE("ui lesson: the Learn menu lists the six built-in lessons") {
    StateHome state;
    Ui ui;
    ui.frames(2);
    const float bar_y = 0.5f * ImGui::GetFrameHeight();
    ui.click(headless::find_item(ui, "##MainMenuBar", {"##menubar", "Learn"}, ImVec2(0, bar_y), ImVec2(800, bar_y)));
    const std::vector<core::learn::Lesson> lessons = core::learn::builtin_lessons();
    REQUIRE(lessons.size() == 6);
    for (const core::learn::Lesson& l : lessons) CHECK(ui.shows(l.title, "##Menu_00"));
}
