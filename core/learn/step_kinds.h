// core/learn/step_kinds.h — the table of step kinds, for whoever adds one.
//
// A kind is one row: its name, the keys a step of that kind may have beyond the common ones (id,
// title, text, kind, actions), how to read them and how to check them against the state the step
// opens on. The loader rejects any other kind with FILE:LINE. Read and check functions report
// problems through LessonReader::fail, which adds the file and line.
//
// How to add a step kind:
//   1. Its data: a struct and a std::optional of it in struct Step (core/learn/lesson.h).
//   2. Its read and check functions, and one row in step_kinds() (core/learn/step_kinds.cpp; a
//      family of kinds may have a file of its own, as core/learn/question_kinds.cpp).
//   3. What the learner does with it: Session (core/learn/session.h) when it locks "next" or
//      completes itself; drawn by the Lesson panel (draw_step in ui/panels/learn/lesson.cpp, or
//      ui/panels/learn/lesson_checks.cpp); what other panels must hide goes into View::lesson.
//   4. docs/lessons.md, a step in a lesson under assets/lessons/, tests in tests/test_lessons.cpp
//      and tests/test_ui_lessons.cpp.
// The actions a step runs when it opens have their own table: core/learn/actions.h.
#pragma once

#include "core/learn/lesson_reader.h"

#include <string>
#include <vector>

namespace core::learn {

struct StepKind {
    const char* name;
    std::vector<std::string> keys;
    void (*read)(const toml::table& step, Step& out, const LessonReader& reader);
    void (*check)(const Step& step, const StepState& opening, const LessonReader& reader);
};

const std::vector<StepKind>& step_kinds();

} // namespace core::learn
