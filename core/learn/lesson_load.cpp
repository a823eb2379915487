// core/learn/lesson_load.cpp — TOML to Lesson, and the walk that checks every step on its state.
//
// [SECTION] Steps and the lesson
// [SECTION] Built-in lessons
#include "core/learn/lesson_load.h"

#include "core/assets.h"
#include "core/io/files.h"
#include "core/learn/actions.h"
#include "core/learn/question_kinds.h"
#include "core/learn/step_kinds.h"
#include "core/presets.h"

#include <algorithm>
#include <filesystem>
#include <optional>

namespace core::learn {

namespace fs = std::filesystem;

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Steps and the lesson
//-----------------------------------------------------------------------------

const StepKind* kind_named(const std::string& name) {
    for (const StepKind& k : step_kinds())
        if (name == k.name) return &k;
    return nullptr;
}

Step read_step(const toml::node& node, int index, const LessonReader& r) {
    const toml::table* t = node.as_table();
    if (!t) r.fail(LessonReader::line(node), "each [[step]] must be a table");
    Step s;
    s.line = LessonReader::line(node);
    s.lines = LessonReader::key_lines(*t);
    s.kind = r.string(*t, "kind", false, s.line);
    const StepKind* kind = s.kind.empty() ? nullptr : kind_named(s.kind);
    if (!s.kind.empty() && !kind) {
        std::string list;
        for (const StepKind& k : step_kinds()) list += (list.empty() ? "" : ", ") + std::string(k.name);
        r.fail(s.lines["kind"], "unknown kind \"" + s.kind + "\" (known: " + list + ")");
    }
    std::vector<std::string> allowed = {"id", "title", "text", "kind", "actions"};
    if (kind) allowed.insert(allowed.end(), kind->keys.begin(), kind->keys.end());
    r.only_keys(*t, allowed, kind ? "key for a " + s.kind + " step" : std::string("key in a step"));
    s.id = r.string(*t, "id", false, s.line);
    if (s.id.empty()) s.id = "step-" + std::to_string(index + 1);
    s.title = r.string(*t, "title", true, s.line);
    s.text = r.string(*t, "text", !kind, s.line);
    s.blocks = parse_markdown(s.text);
    if (const toml::node* a = t->get("actions")) s.actions = read_actions(*a, r);
    if (kind) kind->read(*t, s, r);
    return s;
}

// Follows the lesson from its start, checking each step's actions and kind on the state it opens on.
void check_walk(const Lesson& lesson, const LessonReader& r) {
    StepState st;
    st.scenario = lesson.start;
    for (const Step& step : lesson.steps) {
        apply_checked(step.actions, st, r);
        if (const StepKind* kind = kind_named(step.kind)) kind->check(step, st, r);
    }
}

} // namespace

Lesson parse_lesson(const std::string& text, const std::string& path) {
    const LessonReader r(path);
    toml::table root;
    try {
        root = toml::parse(text, path);
    } catch (const toml::parse_error& e) {
        r.fail(static_cast<int>(e.source().begin.line), std::string("invalid TOML: ") + std::string(e.description()));
    }
    r.only_keys(root, {"id", "title", "summary", "order", "preset", "file", "step"}, "key");
    Lesson lesson;
    lesson.path = path;
    lesson.id = r.string(root, "id", false, 1);
    if (lesson.id.empty()) lesson.id = fs::path(path).stem().string();
    lesson.title = r.string(root, "title", true, 1);
    lesson.summary = r.string(root, "summary", false, 1);
    if (const toml::node* o = root.get("order")) {
        if (!o->is_integer()) r.fail(LessonReader::line(*o), "\"order\" must be a whole number");
        lesson.order = static_cast<int>(std::clamp<int64_t>(o->value<int64_t>().value_or(100), -1000000, 1000000));
    }
    const std::shared_ptr<const Scenario> start = r.scenario(root, 1);
    lesson.start = start ? *start : preset_three_tokens();
    const toml::array* steps = root["step"].as_array();
    if (!steps || steps->empty()) r.fail(root.get("step") ? LessonReader::line(*root.get("step")) : 1, "a lesson needs at least one [[step]]");
    for (const toml::node& node : *steps) {
        lesson.steps.push_back(read_step(node, static_cast<int>(lesson.steps.size()), r));
        const Step& added = lesson.steps.back();
        for (size_t k = 0; k + 1 < lesson.steps.size(); ++k)
            if (lesson.steps[k].id == added.id) r.fail(added.lines.count("id") ? added.lines.at("id") : added.line, "two steps have the id \"" + added.id + "\"");
    }
    check_walk(lesson, r);
    check_recap_links(lesson, r);
    return lesson;
}

Lesson load_lesson_file(const std::string& path) {
    const std::optional<std::string> text = core::io::read_whole_file(path);
    if (!text) throw LessonError(path + ": cannot read the file");
    if (text->size() > max_lesson_bytes) throw LessonError(path + ": larger than 4 MB; a lesson is text");
    return parse_lesson(*text, path);
}

//-----------------------------------------------------------------------------
// [SECTION] Built-in lessons
//-----------------------------------------------------------------------------

std::vector<Lesson> builtin_lessons() {
    std::vector<Lesson> out;
    const std::string dir = asset_path("lessons");
    std::error_code ec;
    if (dir.empty() || !fs::is_directory(dir, ec)) return out;
    std::vector<std::string> files;
    for (const auto& entry : fs::directory_iterator(dir, ec))
        if (entry.path().extension() == ".toml") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) out.push_back(load_lesson_file(f));
    std::stable_sort(out.begin(), out.end(), [](const Lesson& a, const Lesson& b) { return a.order != b.order ? a.order < b.order : a.title < b.title; });
    return out;
}

Lesson find_lesson(const std::string& name) {
    if (name.find('/') != std::string::npos || (name.size() > 5 && name.compare(name.size() - 5, 5, ".toml") == 0)) return load_lesson_file(name);
    const std::string file = asset_path("lessons/" + name + ".toml");
    std::error_code ec;
    if (!file.empty() && fs::is_regular_file(file, ec)) return load_lesson_file(file);
    std::string list;
    for (Lesson& l : builtin_lessons()) {
        if (l.id == name) return std::move(l);
        list += (list.empty() ? "" : ", ") + l.id;
    }
    throw LessonError(name + ": no such lesson (built-in: " + (list.empty() ? "none found" : list) + "; or give a path to a .toml file)");
}

} // namespace core::learn
