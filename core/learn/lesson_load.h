// core/learn/lesson_load.h — reading lesson files (TOML, through toml++) and finding the built-in ones.
//
// Loading checks everything a lesson can get wrong before a learner sees it, and reports the first
// problem as "FILE:LINE: what is wrong": invalid TOML, unknown keys, kinds, actions or panels,
// expressions that do not parse, tokens the scenario lacks (each step's expressions are evaluated
// on the state the step opens on), missing scenario files, a challenge already met or whose
// solution does not meet it.
#pragma once

#include "core/learn/lesson.h"

#include <string>
#include <vector>

namespace core::learn {

// `path` names the file in messages; scenario files are read relative to its folder.
Lesson parse_lesson(const std::string& text, const std::string& path);
// Throws LessonError ("FILE: cannot read: …" when the file cannot be read).
Lesson load_lesson_file(const std::string& path);

// The shipped lessons (share/attnviz/lessons/*.toml), by order then title. A shipped lesson that
// fails to load throws: the tests keep them valid.
std::vector<Lesson> builtin_lessons();
// A built-in lesson's id, or a path to a lesson file (anything with a '/' or ending in .toml).
// Throws LessonError: "ID: no such lesson (built-in: …)" or the file's own problem.
Lesson find_lesson(const std::string& id_or_file);

constexpr std::size_t max_lesson_bytes = 4u << 20;

} // namespace core::learn
