// libFuzzer target for the lesson loader (TOML, Markdown, expressions, the walk that checks each
// step). Every input must either load, or be refused with a LessonError whose message starts with
// the file name; a loaded lesson's answers must then compute.
#include "core/learn/lesson_load.h"
#include "core/learn/session.h"

#include <cstdint>
#include <cstdlib>
#include <string>

// The seeds (tests/corpus_lesson: the built-in lessons cut into pieces of a few steps, their long
// texts shortened) are about 1 KB; a longer input only repeats the paths a short one takes, at the
// cost of parsing it and checking every step on its scenario.
constexpr std::size_t max_input = 4096;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size > max_input) return 0;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::string path = "/nonexistent-fuzz-dir/lesson.toml"; // scenario files never load
    core::learn::Lesson lesson;
    try {
        lesson = core::learn::parse_lesson(text, path);
    } catch (const core::learn::LessonError& e) {
        if (std::string(e.what()).rfind(path + ":", 0) != 0) std::abort();
        return 0;
    }
    if (lesson.steps.empty()) std::abort();
    (void)core::learn::answers_json(lesson); // checked when loading: must not throw
    return 0;
}
