// core/learn/lesson_reader.h — what reading a lesson file's tables needs: values by key, each
// problem reported as FILE:LINE (LessonError). The step kinds (core/learn/step_kinds.h) and the
// actions (core/learn/actions.h) read their keys through it.
#pragma once

#include "core/learn/lesson.h"

#include <toml++/toml.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core::learn {

class LessonReader {
public:
    explicit LessonReader(std::string path) : path_(std::move(path)) {}
    const std::string& path() const { return path_; }

    [[noreturn]] void fail(int line, const std::string& what) const;
    static int line(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

    // A string value; "" when absent and not required. Wrong type or missing: fail().
    std::string string(const toml::table& t, const char* key, bool required, int table_line) const;
    // An array of strings (a single string counts as one).
    std::vector<std::string> strings(const toml::table& t, const char* key) const;
    // An expression, parsed; parse errors fail() at the key's line.
    std::optional<Expr> expression(const toml::table& t, const char* key, bool required, int table_line) const;
    // Evaluates `e` (written at `line`) on `state`; an evaluation error fails at that line.
    Value evaluate(const Expr& e, int line, const StepState& state, const Result& r) const;
    [[noreturn]] void fail_expr(int line, const Expr& e, const ExprError& err) const;
    // true or false; absent: nullopt. Another type: fail().
    std::optional<bool> boolean(const toml::table& t, const char* key) const;
    // Every key of `t` must be one of `allowed`; the message says "unknown WHERE "key" (known: …)".
    void only_keys(const toml::table& t, const std::vector<std::string>& allowed, const std::string& where) const;
    // The source line of each key of `t`.
    static std::map<std::string, int> key_lines(const toml::table& t);
    // preset = "…" or file = "…" (relative to the lesson's folder) of `t`; neither: null.
    std::shared_ptr<const Scenario> scenario(const toml::table& t, int table_line) const;

private:
    std::string path_;
};

} // namespace core::learn
