// The Lesson panel and the Learn menu, driven headless through real clicks, drags and typing:
// every built-in lesson from its first step to its last, predictions right and wrong, challenges
// solved with the query arrow, back restoring a step's state, progress resumed from disk.
#include "headless.h"
#include "state_home.h"

#include "core/learn/lesson_load.h"
#include "core/explain.h"
#include "ui/panel_table.h"
#include "ui/panels/explore/heatmap.h"
#include "ui/panels/learn/lesson.h"
#include "ui/panels/explore/query_arrow.h"
#include "ui/panels/learn/review.h"
#include "ui/widgets.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

using headless::Ui;
using core::learn::Value;

namespace {

ui::LessonView& lesson(Ui& ui) { return ui.st().view.state<ui::LessonView>(); }
core::learn::Session& session(Ui& ui) { return *lesson(ui).session; }

void open(Ui& ui, const std::string& id, int step = 0) {
    std::string error;
    REQUIRE(ui::start_lesson(ui.st().view, id, step, error));
    ui.frames(3);
}

void next(Ui& ui) {
    const int at = session(ui).index();
    ui.click(ui.item("lesson_next"));
    ui.frames(2);
    REQUIRE(session(ui).index() == at + 1);
}

// The button of the choice whose text is (or, with `right` false, is not) the live answer.
int choice_index(Ui& ui, bool right) {
    const core::learn::Predict& p = *session(ui).step().predict;
    const std::string actual = session(ui).live_answer(ui.scenario(), ui.app().result())->text();
    const int count = p.choices.empty() ? ui.scenario().n() : static_cast<int>(p.choices.size());
    // Number choices: the nearest is right; any other is wrong.
    int nearest = 0;
    for (int k = 0; k < count; ++k) {
        const Value c = p.choices.empty() ? Value::of_token(ui.scenario().tokens[static_cast<size_t>(k)]) : p.choices[static_cast<size_t>(k)];
        const Value best = p.choices.empty() ? Value::of_token(ui.scenario().tokens[static_cast<size_t>(nearest)]) : p.choices[static_cast<size_t>(nearest)];
        if (c.kind == Value::Kind::token ? c.text() == actual : std::abs(c.number - std::stod(actual)) < std::abs(best.number - std::stod(actual))) nearest = k;
    }
    return right ? nearest : (nearest + 1) % count;
}

// Commits a prediction by clicking a choice (or the heatmap column), checking the lock and the reveal.
void predict_step(Ui& ui, bool right, bool through_heatmap) {
    const int at = session(ui).index();
    ui.click(ui.item("lesson_next")); // locked
    ui.frame();
    CHECK(session(ui).index() == at);
    CHECK_FALSE(session(ui).committed());
    const std::string actual = session(ui).live_answer(ui.scenario(), ui.app().result())->text();
    const int k = choice_index(ui, right);
    std::string chosen;
    if (through_heatmap) {
        const ui::HeatmapView& hv = ui.st().view.state<ui::HeatmapView>();
        ui.click(ImVec2(hv.origin.x + (static_cast<float>(k) + 0.5f) * hv.cell, hv.origin.y + 0.5f * hv.cell));
        chosen = ui.scenario().tokens[static_cast<size_t>(k)];
    } else {
        ui.click(ui.item("lesson_choice_" + std::to_string(k)));
        chosen = session(ui).prediction() ? session(ui).prediction()->answer : "";
    }
    ui.frames(2);
    REQUIRE(session(ui).committed());
    CHECK(session(ui).prediction()->correct == right);
    CHECK(session(ui).prediction()->answer == chosen);
    const std::string verdict = right ? "✓ Right." : "✗ Not this time.";
    CHECK(ui.shows(verdict + " you: " + chosen + " · actual: " + actual, "Lesson"));
    CHECK(ui.shows(session(ui).step().predict->why.substr(0, 40), "Lesson"));
}

// Types q = (x, y) into the query arrow's boxes, as a learner would.
void type_q(Ui& ui, double x, double y) {
    const char* boxes[] = {"q_x", "q_y"};
    const double values[] = {x, y};
    for (int k = 0; k < 2; ++k) {
        ui.type_into(ui.item(boxes[k]), core::format_number(values[k]));
    }
}

void hold_until_done(Ui& ui) {
    ui.frames(40); // 0.67 s at 60 frames per second: more than the half second the goal must hold
    CHECK(session(ui).is_done(session(ui).index()));
    CHECK(ui.shows("✓ Done", "Lesson"));
}

// "Hint", "Another hint", then "Show me": the query arrow moves to the solution.
void solve_with_show_me(Ui& ui) {
    ui.click(ui.item("lesson_hint"));
    ui.frame();
    CHECK(ui.shows("Hint 1:", "Lesson"));
    ui.click(ui.item("lesson_hint"));
    ui.frame();
    CHECK(ui.shows("Hint 2:", "Lesson"));
    ui.click(ui.item("lesson_show_me"));
    ui.frames(80); // 1.2 s of animation
    hold_until_done(ui);
}

// The first words of `text`, as many as fit on one line of the Lesson panel.
std::string first_words(const std::string& text) {
    const size_t cut = text.rfind(' ', 22);
    return text.substr(0, cut == std::string::npos ? text.find(' ') : cut);
}

// What a learner does in the panels to answer an act-in-the-app question: the query arrow's
// boxes, or the switches of the Controls panel.
void act(Ui& ui, const std::string& step) {
    if (step == "check-steer") {
        type_q(ui, -0.4, 1.8); // towards the key of "ate"
    } else {
        const bool mask = step == "check-mask"; // the worked example: the mask; step-by-step: no scaling
        const auto scaled = [&ui] { return ui.scenario().scale == core::ScoreScale::inv_sqrt_d_k; };
        const bool before = mask ? ui.scenario().causal : scaled();
        ui.click(ui.item(mask ? "causal" : "scale"));
        ui.frame();
        REQUIRE((mask ? ui.scenario().causal : scaled()) != before);
    }
}

// Answers a "check yourself" question right or wrong through the Lesson panel; it then counts as done.
void answer_question(Ui& ui, bool right) {
    const core::learn::Step& step = session(ui).step();
    const core::learn::Question& q = *step.question;
    using Form = core::learn::Question::Form;
    if (q.form == Form::single || q.form == Form::multiple) {
        bool wrong_picked = false;
        for (size_t i = 0; i < q.choices.size(); ++i) {
            const bool pick = right ? q.choices[i].correct : !q.choices[i].correct && !wrong_picked;
            wrong_picked = wrong_picked || (pick && !q.choices[i].correct);
            if (pick) ui.click(ui.item("question_choice_" + std::to_string(i)));
        }
    } else if (q.form == Form::number) {
        ui.click(ui.item("question_number"));
        ui.type(core::format_number(right ? q.answer : q.answer + q.tolerance + 2.0));
    } else if (right) {
        act(ui, step.id);
    }
    CHECK_FALSE(session(ui).is_done(session(ui).index()));
    ui.click(ui.item("question_check"));
    ui.frames(2);
    CHECK(ui.shows(right ? "Right." : "Not quite.", "Lesson"));
    CHECK(ui.shows(first_words(q.why), "Lesson"));
    CHECK(session(ui).is_done(session(ui).index()));
}

// Every question of the lesson became a review card, filed with the rating its answer proposed
// (right: Good, wrong: Again) when the learner moved on without choosing one.
void check_cards(Ui& ui, bool right) {
    const core::learn::Lesson& l = session(ui).lesson();
    for (const core::learn::Step& step : l.steps) {
        if (!step.question) continue;
        INFO(step.id);
        const core::learn::ReviewCard* card = ui.st().view.state<ui::ReviewState>().store.deck().find(l.id + "/" + step.id);
        REQUIRE(card != nullptr);
        CHECK(card->log.back().rating == (right ? core::learn::Rating::Good : core::learn::Rating::Again));
    }
}

void explain_back(Ui& ui) {
    ui.click(ui.item("explain_text"));
    ui.type("The query is compared with every key.");
    ui.click(ui.item("explain_check"));
    ui.frames(2);
    CHECK(ui.shows("A model answer", "Lesson"));
    CHECK(session(ui).is_done(session(ui).index()));
}

// Walks a lesson from step 1 to its last; predictions right or wrong (each recorded so), challenges
// solved by `solve`.
template <class Solve>
void walk_lesson(Ui& ui, const std::string& id, bool right, Solve&& solve) {
    open(ui, id, 1);
    bool heatmap_used = false;
    while (true) {
        const core::learn::Step& step = session(ui).step();
        INFO(id << " step " << session(ui).index() + 1 << " " << step.id);
        CHECK(ui.shows(step.title, "Lesson"));
        if (step.predict) {
            const bool click_map = step.predict->choices.empty() && !heatmap_used;
            predict_step(ui, right, click_map);
            heatmap_used = heatmap_used || click_map;
        }
        if (step.challenge) solve(ui, step.id);
        if (step.question) answer_question(ui, right);
        if (step.explain) explain_back(ui);
        if (session(ui).index() + 1 == session(ui).size()) break;
        next(ui);
    }
    CHECK(session(ui).predictions_made() == session(ui).predictions_total());
    for (const auto& [step, rec] : session(ui).progress().predictions) CHECK(rec.correct == right);
    check_cards(ui, right);
}

} // namespace

TEST_CASE("lesson panel: a fresh start at the second step (--step 2) opens the state the lesson has there") {
    StateHome state;
    Ui ui;
    open(ui, "every-token", 2);
    CHECK(session(ui).index() == 1);
    CHECK(ui.scenario().tokens.size() == 7);
    CHECK(ui.scenario().tokens[static_cast<size_t>(ui.st().view.selected_row)] == "it");
    next(ui);
}

TEST_CASE("lesson panel: every-token, predictions right, challenges solved by dragging and typing q") {
    StateHome state;
    Ui ui;
    ui.frame();
    walk_lesson(ui, "every-token", true, [](Ui& u, const std::string& id) {
        REQUIRE(u.scenario().pin);
        if (id == "steer-ate") {
            // The goal as a sentence, with the live values beside it.
            CHECK(u.shows("Goal: the row of “it” in A has its largest weight", "Lesson"));
            CHECK(u.shows("now: “cat” · the weight “it” gives “ate”", "Lesson"));
            type_q(u, -0.5, 2.0); // towards the key of "ate"
            u.frame();
            CHECK(u.shows("now: “ate” · the weight “it” gives “ate”", "Lesson"));
        } else if (id == "steer-zero") {
            type_q(u, 0, 0);
        } else { // steer-long: drag the tip of q far out along its own direction
            const ui::ArrowView& av = u.st().view.state<ui::ArrowView>();
            for (int k = 0; k < 8 && core::compute(u.scenario()).heads[0].weights.row(4).maxCoeff() <= 0.95; ++k) {
                const ImVec2 tip = av.q_tip;
                u.drag(tip, ImVec2(av.origin.x + (tip.x - av.origin.x) * 1.6f, av.origin.y + (tip.y - av.origin.y) * 1.6f));
                u.frames(2); // the plane rescales to the longer q
            }
        }
        hold_until_done(u);
    });
    CHECK(ui.shows("5 of 5 made", "Lesson"));
    const core::learn::LessonProgress& p = session(ui).progress();
    CHECK(p.predictions.size() == 5);
    CHECK(p.done.count("steer-ate") == 1);
    CHECK(p.done.count("steer-zero") == 1);
    CHECK(p.done.count("steer-long") == 1);
}

TEST_CASE("lesson panel: every-token, predictions wrong, challenges by hints and show me — progress resumes") {
    StateHome state;
    {
        Ui ui;
        ui.frame();
        walk_lesson(ui, "every-token", false, [](Ui& u, const std::string&) { solve_with_show_me(u); });
        ui.click(ui.item("lesson_back"));
        ui.frames(2);
    }
    REQUIRE(std::filesystem::exists(state.dir + "/attnviz/progress.json"));
    Ui again;
    again.frame();
    open(again, "every-token"); // 0: resume
    CHECK(session(again).index() == session(again).size() - 2);
    CHECK(session(again).predictions_made() == 5);
    CHECK(session(again).is_done(10));
    // Answered questions and the checked explanation count as done, on disk and in the step list.
    std::ifstream saved(state.dir + "/attnviz/progress.json");
    const nlohmann::json progress = nlohmann::json::parse(saved);
    const auto& lesson_steps = session(again).lesson().steps;
    for (size_t k = 0; k < lesson_steps.size(); ++k) {
        const core::learn::Step& step = lesson_steps[k];
        if (!step.question && !step.explain) continue;
        INFO(step.id);
        CHECK(session(again).is_done(static_cast<int>(k)));
        const auto& done = progress["lessons"]["every-token"]["done"];
        CHECK(std::find(done.begin(), done.end(), step.id) != done.end());
    }
    again.click(again.item("lesson_steps"));
    again.frames(2);
    CHECK(again.shows("✓ 14. Check yourself · 1 of 6", "##Combo_00"));
    CHECK(again.shows("✓ 21. Explain it back", "##Combo_00"));
    again.key(headless::key_escape);
    // A committed prediction stays committed: its step shows the reveal, and next is open.
    open(again, "every-token", 5);
    CHECK(session(again).can_next());
    CHECK(again.shows("✗ Not this time.", "Lesson"));
}

// Reopening a walked lesson resumes at its last step, with every prediction and done mark kept.
void check_resumed(const std::string& id, int predictions) {
    Ui again;
    again.frame();
    open(again, id); // 0: resume
    CHECK(session(again).index() == session(again).size() - 1);
    CHECK(session(again).predictions_made() == predictions);
    for (int k = 0; k < session(again).size(); ++k) {
        const core::learn::Step& step = session(again).lesson().steps[static_cast<size_t>(k)];
        INFO(step.id);
        if (step.kind != "" && step.kind != "recap") CHECK(session(again).is_done(k)); // read steps count once left
    }
}

TEST_CASE("lesson panel: the worked example, predictions right, its challenge solved by typing q — resumed") {
    StateHome state;
    {
        Ui ui;
        ui.frame();
        walk_lesson(ui, "worked-example", true, [](Ui& u, const std::string& id) {
            CHECK(id == "steer-sat");
            type_q(u, -2.0, 3.0); // towards the key of "cat", (0, 1)
            hold_until_done(u);
        });
        CHECK(ui.shows("3 of 3 made", "Lesson"));
    }
    check_resumed("worked-example", 3);
}

TEST_CASE("lesson panel: the worked example, predictions wrong, its challenge by hints and show me") {
    StateHome state;
    Ui ui;
    ui.frame();
    walk_lesson(ui, "worked-example", false, [](Ui& u, const std::string&) { solve_with_show_me(u); });
}

// The sixth lesson's challenges, solved in Controls as a learner does: the window typed in, the β
// slider clicked at its middle.
void solve_beyond_softmax(Ui& ui, const std::string& id) {
    if (id == "try-window") {
        CHECK(ui.scenario().window == 2);
        ui.type_into(ui.item("window"), "3");
        CHECK(ui.scenario().window == 3);
    } else {
        CHECK(id == "try-beta");
        REQUIRE(ui.scenario().rule == core::AttentionRule::delta);
        const ImRect& r = ui.st().view.items.at("beta"); // the slider's frame is 7 em wide, its label after it
        ui.click(ImVec2(r.Min.x + 3.5f * ui::em(), r.GetCenter().y));
        ui.frames(2);
        CHECK(ui.scenario().beta == doctest::Approx(0.5).epsilon(0.05));
        CHECK(ui.app().result().heads[0].weights.row(2).minCoeff() > 0.0);
    }
    hold_until_done(ui);
}

TEST_CASE("lesson panel: beyond softmax, predictions right, challenges solved in Controls — resumed — five lessons' progress kept") {
    StateHome state;
    // A progress file as the five earlier lessons leave it.
    std::filesystem::create_directories(state.dir + "/attnviz");
    std::ofstream(state.dir + "/attnviz/progress.json")
        << R"({"version": 1, "lessons": {"worked-example": {"current": 3, "done": ["scores"], "predictions": {}},)"
           R"( "every-token": {"current": 5, "done": [], "predictions": {}}}})";
    {
        Ui ui;
        ui.frame();
        walk_lesson(ui, "beyond-softmax", true, solve_beyond_softmax);
        CHECK(ui.shows("4 of 4 made", "Lesson"));
        // Under the delta rule the heatmap draws M, and the State panel the state at "sat".
        CHECK(ui.scenario().rule == core::AttentionRule::delta);
        CHECK(ui.shows("M of the delta rule: Z = M V", "Attention heatmap"));
    }
    check_resumed("beyond-softmax", 4);
    std::ifstream saved(state.dir + "/attnviz/progress.json");
    const nlohmann::json progress = nlohmann::json::parse(saved);
    CHECK(progress["lessons"]["worked-example"]["current"] == 3);
    CHECK(progress["lessons"]["every-token"]["current"] == 5);
}

TEST_CASE("lesson panel: beyond softmax, predictions wrong, challenges after both hints") {
    StateHome state;
    Ui ui;
    ui.frame();
    walk_lesson(ui, "beyond-softmax", false, [](Ui& u, const std::string& id) {
        u.click(u.item("lesson_hint"));
        u.frame();
        u.click(u.item("lesson_hint"));
        u.frame();
        CHECK(u.shows("Hint 2:", "Lesson"));
        solve_beyond_softmax(u, id);
    });
}

TEST_CASE("lesson panel: the step-by-step lesson, predictions right and wrong — resumed — 8 heads × 64") {
    {
        StateHome state;
        {
            Ui ui;
            ui.frame();
            walk_lesson(ui, "step-by-step", true, [](Ui&, const std::string&) { FAIL("no challenges here"); });
        }
        check_resumed("step-by-step", 4);
    }
    StateHome state;
    Ui ui;
    ui.frame();
    walk_lesson(ui, "step-by-step", false, [](Ui&, const std::string&) { FAIL("no challenges here"); });
    const auto& steps = session(ui).lesson().steps;
    const auto heads_step = std::find_if(steps.begin(), steps.end(), [](const core::learn::Step& st) { return st.id == "predict-heads"; });
    REQUIRE(heads_step != steps.end());
    open(ui, "step-by-step", static_cast<int>(heads_step - steps.begin()) + 1);
    CHECK(ui.scenario().heads.size() == 8); // 8 heads × 64, d_model 512
    CHECK(ui.scenario().d_k() == 64);
    CHECK(ui.shows("✗ Not this time.", "Lesson")); // committed: the reveal shows
}

TEST_CASE("lesson panel: the first hint comes by itself after 30 s — show me moves q to the solution") {
    StateHome state;
    Ui ui;
    ui.frame();
    open(ui, "every-token", 11); // steer-ate
    REQUIRE(session(ui).step().id == "steer-ate");
    ui.frames(60);
    CHECK_FALSE(ui.shows("Hint 1:", "Lesson"));
    ImGui::GetIO().DeltaTime = 0.5f;
    ui.frames(60); // 30 s more
    ImGui::GetIO().DeltaTime = 1.0f / 60.0f;
    CHECK(ui.shows("Hint 1:", "Lesson"));
    CHECK_FALSE(ui.shows("Hint 2:", "Lesson"));
    ui.click(ui.item("lesson_hint"));
    ui.frame();
    CHECK(ui.shows("Hint 2:", "Lesson"));
    const core::Vector before = ui.scenario().pin->q;
    ui.click(ui.item("lesson_show_me"));
    ui.frames(30); // half-way through the 1.2 s animation: between where q was and the solution
    const core::Vector solution = Eigen::Map<const core::Vector>(session(ui).step().challenge->solution->data(), 2);
    const double partway = (ui.scenario().pin->q - solution).norm();
    CHECK(partway > 1e-3);
    CHECK(partway < (before - solution).norm());
    ui.frames(60);
    CHECK((ui.scenario().pin->q - solution).norm() < 1e-9);
    hold_until_done(ui);
}

TEST_CASE("lesson panel: back restores the state a step opened on — the learner's edit stays undoable") {
    StateHome state;
    Ui ui;
    ui.frame();
    open(ui, "every-token", 1);
    next(ui);
    const core::Scenario opened = ui.scenario();
    type_q(ui, 3, 3); // an edit: pins the query of "it"
    REQUIRE(ui.scenario().pin);
    next(ui);
    ui.click(ui.item("lesson_back"));
    ui.frames(2);
    CHECK(session(ui).index() == 1);
    CHECK(ui.scenario() == opened);
    ui.key('Z', true); // undo: back to the learner's edit
    REQUIRE(ui.scenario().pin);
    CHECK(ui.scenario().pin->q[0] == 3.0);
    // Closing the lesson leaves the scenario as it is.
    const core::Scenario before = ui.scenario();
    ui.click(ui.item("lesson_close"));
    ui.frames(2);
    CHECK_FALSE(lesson(ui).session.has_value());
    CHECK_FALSE(ui.st().view.open["lesson"]);
    CHECK(ui.scenario() == before);
}

TEST_CASE("lesson panel: every lesson id a step may open is a panel of the table") {
    for (const std::string& id : core::learn::panel_ids()) {
        INFO(id);
        CHECK(ui::find_panel(id) != nullptr);
    }
}

TEST_CASE("lesson panel: at 1280 × 800 every recap link fits the panel (long titles wrap)") {
    StateHome state;
    Ui ui(core::preset_three_tokens(), ImVec2(1280, 800));
    ui.frame();
    for (const core::learn::Lesson& l : core::learn::builtin_lessons()) {
        const auto recap = std::find_if(l.steps.begin(), l.steps.end(), [](const core::learn::Step& s) { return s.recap.has_value(); });
        REQUIRE(recap != l.steps.end());
        open(ui, l.id, static_cast<int>(recap - l.steps.begin()) + 1);
        const ImGuiWindow* body = ImGui::FindWindowByName("Lesson");
        REQUIRE(body != nullptr);
        for (size_t i = 0; i < recap->recap->lines.size(); ++i) {
            INFO(l.id << " recap line " << i + 1);
            const ImRect& link = ui.st().view.items.at("recap_link_" + std::to_string(i));
            CHECK(link.Max.x <= body->InnerClipRect.Max.x);
        }
    }
}
