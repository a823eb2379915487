#include "app/cli/cli_lessons.h"

#include "core/error_text.h"
#include "core/learn/lesson_load.h"
#include "core/learn/session.h"

#include <ostream>

namespace app {

int run_lesson_mode(const Options& o, std::ostream& out, std::ostream& err) {
    try {
        if (o.mode == Options::Mode::lessons) {
            out << core::learn::lessons_json(core::learn::builtin_lessons());
            return 0;
        }
        const core::learn::Lesson lesson = core::learn::find_lesson(o.lesson);
        if (o.mode == Options::Mode::lesson_answers) {
            out << core::learn::answers_json(lesson);
            return 0;
        }
        out << lesson.path << ": ok, " << lesson.steps.size() << " steps (" << lesson.count("predict") << " predictions, "
            << lesson.count("challenge") << " challenges)\n";
        return 0;
    } catch (const std::exception& e) {
        err << "attnviz: " << core::error_text(e) << "\n";
        return 2;
    }
}

bool lesson_loads(const Options& o, std::ostream& err) {
    try {
        const core::learn::Lesson lesson = core::learn::find_lesson(o.lesson);
        if (o.lesson_step > static_cast<int>(lesson.steps.size())) {
            err << "attnviz: " << lesson.path << ": no step " << o.lesson_step << " (the lesson has " << lesson.steps.size() << ")\n";
            return false;
        }
        return true;
    } catch (const std::exception& e) {
        err << "attnviz: " << core::error_text(e) << "\n";
        return false;
    }
}

} // namespace app
