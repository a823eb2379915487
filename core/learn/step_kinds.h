// core/learn/step_kinds.h — the table of step kinds, for whoever adds one.
//
// A kind is one row: its name, the keys a step of that kind may have beyond the common ones (id,
// title, text, kind, actions), how to read them and how to check them against the state the step
// opens on. The loader rejects any other kind with FILE:LINE. Read and check functions report
// problems through LessonReader::fail, which adds the file and line.
#pragma once

#include "core/learn/lesson.h"

#include <toml++/toml.h>

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

private:
    std::string path_;
};

struct StepKind {
    const char* name;
    std::vector<std::string> keys;
    void (*read)(const toml::table& step, Step& out, const LessonReader& reader);
    void (*check)(const Step& step, const StepState& opening, const LessonReader& reader);
};

const std::vector<StepKind>& step_kinds();

} // namespace core::learn
