// core/learn/actions.h — the table of step actions (actions = { select = "it", pin = "it", … }),
// for whoever adds one, as core/learn/step_kinds.h is for step kinds.
//
// An action is one row: the keys it reads from a step's `actions` table, how to read them into
// Actions (problems through LessonReader::fail, with FILE:LINE), and how to apply them to the
// state a step opens on (a problem, such as a token the learner renamed, is skipped and reported).
// Rows apply in table order: a scenario loads before a token of it is selected.
//
// How to add an action:
//   1. A field for it in struct Actions (core/learn/lesson.h), and in StepState if it changes
//      something beyond the scenario and the selection.
//   2. One row in action_kinds() (core/learn/actions.cpp): its keys, read and apply.
//   3. If StepState gained a field, carry it into the window where the Lesson panel applies a step
//      (apply_pending in ui/panels/learn/lesson.cpp).
//   4. Document the key in docs/lessons.md and test it in tests/test_lessons.cpp.
#pragma once

#include "core/learn/lesson_reader.h"

#include <string>
#include <vector>

namespace core::learn {

// Something an action could not do on the state it applied to, and the key it came from.
struct ActionProblem {
    std::string key;
    std::string text; // "no token \"dog\" to select"
};

struct ActionKind {
    std::vector<std::string> keys;
    void (*read)(const toml::table& actions, Actions& out, const LessonReader& reader);
    void (*apply)(const Actions& a, StepState& state, std::vector<ActionProblem>& problems);
};

const std::vector<ActionKind>& action_kinds();

// A step's `actions` table; unknown keys and bad values fail() with their line.
Actions read_actions(const toml::node& node, const LessonReader& r);
// Applies `a` to the state the lesson reaches when it is read: every token and place must exist
// there, or fail() names the key's line.
void apply_checked(const Actions& a, StepState& st, const LessonReader& r);

} // namespace core::learn
