// core/learn/lesson_reader.cpp — see lesson_reader.h.
#include "core/learn/lesson_reader.h"

#include "core/io/scenario_io.h"
#include "core/presets.h"

#include <algorithm>
#include <filesystem>
#include <mutex>

namespace core::learn {

namespace fs = std::filesystem;

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
    // Facts are measured in the window, not here: each stands in as 0, so that kinds still check.
    static const Facts zeros = [] {
        Facts f;
        for (const FactName& n : fact_names()) f[n.name] = 0.0;
        return f;
    }();
    try {
        return e.evaluate(state.scenario, r, &zeros);
    } catch (const ExprError& err) {
        fail_expr(at, e, err);
    }
}


std::optional<bool> LessonReader::boolean(const toml::table& t, const char* key) const {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) fail(line(*n), std::string("\"") + key + "\" must be true or false");
    return n->value<bool>();
}

void LessonReader::only_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where) const {
    for (const auto& [key, node] : t) {
        if (std::find(allowed.begin(), allowed.end(), std::string(key.str())) != allowed.end()) continue;
        std::string list;
        for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(static_cast<int>(key.source().begin.line ? key.source().begin.line : node.source().begin.line),
             "unknown " + where + " \"" + std::string(key.str()) + "\" (known: " + list + ")");
    }
}

std::map<std::string, int> LessonReader::key_lines(const toml::table& t) {
    std::map<std::string, int> lines;
    for (const auto& [key, node] : t) lines[std::string(key.str())] = line(node);
    return lines;
}

namespace {

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

} // namespace

// preset = "…" or file = "…" (relative to the lesson's folder).
std::shared_ptr<const Scenario> LessonReader::scenario(const toml::table& t, int table_line) const {
    const std::string preset = string(t, "preset", false, table_line), file = string(t, "file", false, table_line);
    if (!preset.empty() && !file.empty()) fail(line(*t.get("file")), "give preset or file, not both");
    if (!preset.empty()) {
        for (const NamedPreset& p : named_presets())
            if (preset == p.id) return preset_once(p);
        std::string list;
        for (const NamedPreset& p : named_presets()) list += (list.empty() ? "" : ", ") + std::string(p.id);
        fail(line(*t.get("preset")), "unknown preset \"" + preset + "\" (known: " + list + ")");
    }
    if (file.empty()) return nullptr;
    const fs::path full = fs::path(file).is_absolute() ? fs::path(file) : fs::path(path_).parent_path() / file;
    try {
        return std::make_shared<const Scenario>(io::load_scenario_file(full.string()));
    } catch (const ScenarioError& e) {
        fail(line(*t.get("file")), std::string("scenario file: ") + e.what());
    }
}

} // namespace core::learn
