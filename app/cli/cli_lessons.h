// app/cli/cli_lessons.h — the lesson modes of the command line: --lessons, --lesson X --check, --answers.
#pragma once

#include "app/options.h"

#include <iosfwd>

namespace app {

// --lessons: the built-in lessons as JSON. --lesson X --check: 0, or 2 with "attnviz: FILE:LINE: reason".
// --lesson X --answers: each prediction's answer and each challenge's goal as JSON.
int run_lesson_mode(const Options& options, std::ostream& out, std::ostream& err);
// Whether options.lesson loads; if not, one line "attnviz: FILE:LINE: reason" on `err`.
bool lesson_loads(const Options& options, std::ostream& err);

} // namespace app
