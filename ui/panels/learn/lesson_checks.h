// ui/panels/learn/lesson_checks.h — the Lesson panel's "question", "explain" and "recap" steps: check
// yourself (the answer becomes a review card), explain it back, and the recap with its links.
#pragma once

#include "core/learn/lesson.h"
#include "core/learn/question.h"
#include "core/learn/review_deck.h"
#include "ui/view.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ui {

// What the learner has done on one step of these kinds, in this run of the window.
struct LessonCheck {
    // question
    std::vector<int> picked;
    std::string typed;                     // number
    std::optional<core::learn::Verdict> verdict;
    std::string problem;                   // "type a number", or a goal that cannot be evaluated
    bool filed = false;                    // its review card has its first review
    // explain
    std::string text;
    std::vector<bool> ticked;              // the learner's own ticks (the found ideas tick themselves)
    bool checked = false;
};

struct LessonChecksView {
    std::map<std::string, LessonCheck> steps; // by "lesson_id/step_id"
    // An answer checked but not yet filed: filed with the proposed rating once its step is left.
    std::optional<core::learn::ReviewCard> pending;
    core::learn::Rating pending_rating = core::learn::Rating::Good;
    int pending_frame = 0; // the last frame its step was drawn
};

// Draws a step of kind question, explain or recap under its text. Returns the index of the step a
// recap link asks to open, or -1. Returns -1 and draws nothing for other kinds.
int draw_lesson_check(View& v, const core::learn::Lesson& lesson, const core::learn::Step& step,
                      const core::Scenario& s, const core::Result& r);

// Whether the learner has finished this step of kind question (answered and checked) or explain
// (checked) in this run: the Lesson panel then marks it done.
bool lesson_check_finished(View& v, const core::learn::Lesson& lesson, const core::learn::Step& step);

// Call once a frame (the menu bar does): files an answer whose step is no longer shown.
void settle_pending_answer(View& v);

} // namespace ui
