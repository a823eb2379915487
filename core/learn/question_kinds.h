// core/learn/question_kinds.h — reading and checking the "question", "explain" and "recap" steps
// of a lesson file (rows of the step-kind table in core/learn/step_kinds.cpp).
#pragma once

#include "core/learn/lesson_reader.h"

namespace core::learn {

void read_question(const toml::table& t, Step& s, const LessonReader& r);
void check_question(const Step& s, const StepState& opening, const LessonReader& r);
void read_explain(const toml::table& t, Step& s, const LessonReader& r);
void read_recap(const toml::table& t, Step& s, const LessonReader& r);
// Nothing to check on the scenario for these two.
void check_nothing(const Step& s, const StepState& opening, const LessonReader& r);

// After the whole lesson is read: every recap line links to a step of the lesson.
void check_recap_links(const Lesson& lesson, const LessonReader& r);

} // namespace core::learn
