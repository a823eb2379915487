// Walking a built-in lesson headless, step by step, as a learner does: shared by the lessons' UI tests.
#pragma once

#include "headless.h"

#include "ui/panels/learn/lesson.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

namespace lesson_walk {

inline core::learn::Session& session(headless::Ui& ui) { return *ui.st().view.state<ui::LessonView>().session; }

// Next, clicked: the following step opens.
inline void next(headless::Ui& ui) {
    const int at = session(ui).index();
    ui.click(ui.item("lesson_next"));
    ui.frames(2);
    REQUIRE(session(ui).index() == at + 1);
}

// The choice nearest the live answer of a prediction with number choices.
inline int nearest_choice(const core::learn::Predict& p, const core::learn::Value& live) {
    int nearest = 0;
    for (size_t k = 0; k < p.choices.size(); ++k)
        if (std::abs(p.choices[k].number - live.number) < std::abs(p.choices[static_cast<size_t>(nearest)].number - live.number)) nearest = static_cast<int>(k);
    return nearest;
}

// Commits the open prediction through a choice button: the nearest choice to the live answer when
// `right`, else the one after it; the verdict and the choice show.
inline void commit_choice(headless::Ui& ui, bool right) {
    const core::learn::Predict& p = *session(ui).step().predict;
    const std::optional<core::learn::Value> live = session(ui).live_answer(ui.scenario(), ui.app().result());
    REQUIRE(live.has_value());
    const int nearest = nearest_choice(p, *live);
    const int k = right ? nearest : (nearest + 1) % static_cast<int>(p.choices.size());
    ui.click(ui.item("lesson_choice_" + std::to_string(k)));
    ui.frames(2);
    REQUIRE(session(ui).committed());
    CHECK(session(ui).prediction()->correct == right);
    CHECK(ui.shows(std::string(right ? "✓ Right." : "✗ Not this time.") + " you: " + p.choices[static_cast<size_t>(k)].text(), "Lesson"));
}

// The open challenge, once its goal has held long enough, is done.
inline void hold_until_done(headless::Ui& ui) {
    ui.frames(40); // more than the half second a goal must hold
    CHECK(session(ui).is_done(session(ui).index()));
    CHECK(ui.shows("✓ Done", "Lesson"));
}

// The open question answered through its choices or its number box, right or wrong, and checked.
inline void answer_question(headless::Ui& ui, bool right) {
    const core::learn::Question& q = *session(ui).step().question;
    if (q.form == core::learn::Question::Form::number) {
        char typed[32];
        std::snprintf(typed, sizeof typed, "%g", right ? q.answer : q.answer + q.tolerance + 2);
        ui.type_into(ui.item("question_number"), typed);
    }
    for (size_t i = 0; i < q.choices.size(); ++i)
        if (q.choices[i].correct == right) {
            ui.click(ui.item("question_choice_" + std::to_string(i)));
            break;
        }
    ui.click(ui.item("question_check"));
    ui.frames(2);
    CHECK(ui.shows(right ? "Right." : "Not quite.", "Lesson"));
    CHECK(session(ui).is_done(session(ui).index()));
}

// Walks the open lesson from its current step to its last, as a learner does: every step's title
// shows, its prediction is made (predict(ui, right)), its challenge solved (solve(ui, id)) and its
// question answered, right or wrong; the lesson asks for four predictions.
template <class Predict, class Solve>
void walk_to_last_step(headless::Ui& ui, bool right, Predict predict, Solve solve) {
    while (true) {
        const core::learn::Step& step = session(ui).step();
        INFO("step " << session(ui).index() + 1 << " " << step.id << (right ? " right" : " wrong"));
        CHECK(ui.shows(step.title, "Lesson"));
        if (step.predict) predict(ui, right);
        if (step.challenge) solve(ui, step.id);
        if (step.question) answer_question(ui, right);
        if (session(ui).index() + 1 == session(ui).size()) break;
        next(ui);
    }
    CHECK(session(ui).predictions_made() == 4);
}

} // namespace lesson_walk
