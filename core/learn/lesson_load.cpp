// core/learn/lesson_load.cpp — TOML to Lesson, and the walk that checks every step on its state.
//
// [SECTION] Reader helpers
// [SECTION] Actions
// [SECTION] Steps and the lesson
// [SECTION] Built-in lessons
#include "core/learn/lesson_load.h"

#include "core/assets.h"
#include "core/learn/question_kinds.h"
#include "core/learn/step_kinds.h"
#include "core/presets.h"
#include "core/io/scenario_io.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace core::learn {

namespace fs = std::filesystem;

//-----------------------------------------------------------------------------
// [SECTION] Reader helpers
//-----------------------------------------------------------------------------

void LessonReader::fail(int at, const std::string& what) const { throw LessonError(at_line(path_, at, what)); }

std::string LessonReader::string(const toml::table& t, const char* key, bool required, int table_line) const {
    const toml::node* n = t.get(key);
    if (!n) {
        if (required) fail(table_line, std::string("missing key \"") + key + "\"");
        return {};
    }
    if (!n->is_string()) fail(line(*n), std::string("\"") + key + "\" must be a string");
    return n->value<std::string>().value_or("");
}

std::vector<std::string> LessonReader::strings(const toml::table& t, const char* key) const {
    std::vector<std::string> out;
    const toml::node* n = t.get(key);
    if (!n) return out;
    if (n->is_string()) return {n->value<std::string>().value_or("")};
    const toml::array* a = n->as_array();
    if (!a) fail(line(*n), std::string("\"") + key + "\" must be a string or a list of strings");
    for (const toml::node& item : *a) {
        if (!item.is_string()) fail(line(item), std::string("every entry of \"") + key + "\" must be a string");
        out.push_back(item.value<std::string>().value_or(""));
    }
    return out;
}

void LessonReader::fail_expr(int at, const Expr& e, const ExprError& err) const {
    fail(at, "in `" + e.text() + "`: " + err.what() + " (column " + std::to_string(err.column) + ")");
}

std::optional<Expr> LessonReader::expression(const toml::table& t, const char* key, bool required, int table_line) const {
    const std::string text = string(t, key, required, table_line);
    if (text.empty() && !t.get(key)) return std::nullopt;
    const int at = line(*t.get(key));
    try {
        return Expr::parse(text);
    } catch (const ExprError& err) {
        fail(at, std::string(key) + " `" + text + "`: " + err.what() + " (column " + std::to_string(err.column) + ")");
    }
}

Value LessonReader::evaluate(const Expr& e, int at, const StepState& state, const Result& r) const {
    try {
        return e.evaluate(state.scenario, r);
    } catch (const ExprError& err) {
        fail_expr(at, e, err);
    }
}

namespace {

// Every key of `t` must be one of `allowed`.
void only_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where, const LessonReader& r) {
    for (const auto& [key, node] : t) {
        if (std::find(allowed.begin(), allowed.end(), std::string(key.str())) != allowed.end()) continue;
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        r.fail(static_cast<int>(key.source().begin.line ? key.source().begin.line : node.source().begin.line),
               "unknown " + where + " \"" + std::string(key.str()) + "\" (known: " + list + ")");
    }
}

std::map<std::string, int> key_lines(const toml::table& t) {
    std::map<std::string, int> lines;
    for (const auto& [key, node] : t) lines[std::string(key.str())] = LessonReader::line(node);
    return lines;
}

//-----------------------------------------------------------------------------
// [SECTION] Actions
//-----------------------------------------------------------------------------

// A named preset, made the first time a lesson asks for it and shared after: "8 heads × 64,
// d_model 512" holds 800,000 random weights, which every load (and every fuzzing input) would
// otherwise draw and copy again.
std::shared_ptr<const Scenario> preset_once(const NamedPreset& p) {
    static std::mutex mutex;
    static std::map<std::string, std::shared_ptr<const Scenario>> made;
    const std::lock_guard<std::mutex> lock(mutex);
    std::shared_ptr<const Scenario>& slot = made[p.id];
    if (!slot) slot = std::make_shared<const Scenario>(p.make());
    return slot;
}

// preset = "…" or file = "…" (relative to the lesson's folder).
std::shared_ptr<const Scenario> scenario_from(const toml::table& t, const LessonReader& r, int table_line) {
    const std::string preset = r.string(t, "preset", false, table_line), file = r.string(t, "file", false, table_line);
    if (!preset.empty() && !file.empty()) r.fail(LessonReader::line(*t.get("file")), "give preset or file, not both");
    if (!preset.empty()) {
        for (const NamedPreset& p : named_presets())
            if (preset == p.id) return preset_once(p);
        std::string list;
        for (const NamedPreset& p : named_presets()) list += (list.empty() ? "" : ", ") + std::string(p.id);
        r.fail(LessonReader::line(*t.get("preset")), "unknown preset \"" + preset + "\" (known: " + list + ")");
    }
    if (file.empty()) return nullptr;
    const fs::path full = fs::path(file).is_absolute() ? fs::path(file) : fs::path(r.path()).parent_path() / file;
    try {
        return std::make_shared<const Scenario>(io::load_scenario_file(full.string()));
    } catch (const ScenarioError& e) {
        r.fail(LessonReader::line(*t.get("file")), std::string("scenario file: ") + e.what());
    }
}

std::optional<bool> boolean(const toml::table& t, const char* key, const LessonReader& r) {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) r.fail(LessonReader::line(*n), std::string("\"") + key + "\" must be true or false");
    return n->value<bool>();
}

std::vector<double> numbers(const toml::node& n, const char* key, const LessonReader& r) {
    const toml::array* a = n.as_array();
    if (!a || a->empty()) r.fail(LessonReader::line(n), std::string("\"") + key + "\" must be a list of numbers, like [0.5, 1]");
    std::vector<double> out;
    for (const toml::node& item : *a) {
        const std::optional<double> v = item.value<double>();
        if (!v || !is_acceptable_value(*v)) r.fail(LessonReader::line(item), std::string("every entry of \"") + key + "\" must be a finite number");
        out.push_back(*v);
    }
    return out;
}

void read_pin(const toml::table& t, Actions& a, const LessonReader& r) {
    if (const toml::node* pin = t.get("pin")) {
        if (pin->is_boolean()) a.pin = pin->value<bool>().value_or(false) ? Actions::Pin::pin : Actions::Pin::release;
        else if (pin->is_string()) {
            a.pin = Actions::Pin::pin;
            a.pin_row = pin->value<std::string>().value_or("");
        } else r.fail(LessonReader::line(*pin), "\"pin\" must be a token (pin its query), true (the selected row) or false (release)");
    }
    if (const toml::node* q = t.get("q")) {
        if (a.pin != Actions::Pin::pin) r.fail(LessonReader::line(*q), "\"q\" sets a pinned query: add pin = \"TOKEN\"");
        a.q = numbers(*q, "q", r);
    }
}

Actions read_actions(const toml::node& node, const LessonReader& r) {
    const toml::table* t = node.as_table();
    if (!t) r.fail(LessonReader::line(node), "\"actions\" must be a table, like actions = { select = \"it\" }");
    only_keys(*t, {"preset", "file", "causal", "scale", "head", "select", "pin", "q", "open", "highlight"}, "action", r);
    Actions a;
    a.lines = key_lines(*t);
    const int at = LessonReader::line(node);
    a.load = scenario_from(*t, r, at);
    a.causal = boolean(*t, "causal", r);
    a.scale = boolean(*t, "scale", r);
    if (const toml::node* h = t->get("head")) {
        const std::optional<int64_t> v = h->value<int64_t>();
        if (!h->is_integer() || !v || *v < 1 || *v > Limits::max_heads) r.fail(LessonReader::line(*h), "\"head\" must be a head number from 1");
        a.head = static_cast<int>(*v);
    }
    if (const toml::node* s = t->get("select")) {
        if (s->is_integer()) a.select = std::to_string(s->value<int64_t>().value_or(0));
        else a.select = r.string(*t, "select", false, at);
    }
    read_pin(*t, a, r);
    a.open = r.strings(*t, "open");
    for (const std::string& p : a.open)
        if (std::find(panel_ids().begin(), panel_ids().end(), p) == panel_ids().end()) {
            std::string list;
            for (const std::string& id : panel_ids()) list += (list.empty() ? "" : ", ") + id;
            r.fail(a.lines["open"], "unknown panel \"" + p + "\" (known: " + list + ")");
        }
    for (const std::string& h : r.strings(*t, "highlight")) {
        try {
            Expr e = Expr::parse(h);
            if (!e.is_place()) r.fail(a.lines["highlight"], "highlight `" + h + "` must name a matrix, a row or a cell, like A[\"it\"]");
            a.highlight.push_back(std::move(e));
        } catch (const ExprError& err) {
            r.fail(a.lines["highlight"], "highlight `" + h + "`: " + err.what() + " (column " + std::to_string(err.column) + ")");
        }
    }
    return a;
}

// Applies the actions to the state the lesson reaches: tokens and places must exist there.
void apply_checked(const Actions& a, StepState& st, const LessonReader& r) {
    const std::vector<std::string> problems = apply(a, st);
    if (problems.empty()) return;
    const std::string& p = problems.front();
    const char* key = p.rfind("highlight", 0) == 0 ? "highlight" : p.find("to select") != std::string::npos ? "select"
                    : p.find("head") != std::string::npos ? "head" : p.rfind("q has", 0) == 0 ? "q" : "pin";
    const auto it = a.lines.find(key);
    r.fail(it != a.lines.end() ? it->second : 0, p);
}

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
    s.lines = key_lines(*t);
    s.kind = r.string(*t, "kind", false, s.line);
    const StepKind* kind = s.kind.empty() ? nullptr : kind_named(s.kind);
    if (!s.kind.empty() && !kind) {
        std::string list;
        for (const StepKind& k : step_kinds()) list += (list.empty() ? "" : ", ") + std::string(k.name);
        r.fail(s.lines["kind"], "unknown kind \"" + s.kind + "\" (known: " + list + ")");
    }
    std::vector<std::string> allowed = {"id", "title", "text", "kind", "actions"};
    if (kind) allowed.insert(allowed.end(), kind->keys.begin(), kind->keys.end());
    only_keys(*t, allowed, kind ? "key for a " + s.kind + " step" : std::string("key in a step"), r);
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
    only_keys(root, {"id", "title", "summary", "order", "preset", "file", "step"}, "key", r);
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
    const std::shared_ptr<const Scenario> start = scenario_from(root, r, 1);
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
    std::ifstream in(path, std::ios::binary);
    if (!in) throw LessonError(path + ": cannot read the file");
    std::ostringstream text;
    text << in.rdbuf();
    if (text.str().size() > max_lesson_bytes) throw LessonError(path + ": larger than 4 MB; a lesson is text");
    return parse_lesson(text.str(), path);
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
