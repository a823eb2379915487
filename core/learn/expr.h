// core/learn/expr.h — the small expression language lessons use to ask about the live Result.
//
// One expression is parsed once (when the lesson loads) and evaluated as often as needed (every
// frame for a challenge). It reads the scenario and its Result, never a stored answer, so an
// answer follows the learner's edits. Vocabulary (see docs/lessons.md):
//
//   matrices   X Q K V scores scaled A Z            head 1; A@2 is head 2's A
//   rows       A["it"]  A[5]                        by token name or 1-based index
//   cells      A["it", "cat"]   columns  A[:, "cat"]   (columns of Q, K, V, Z, X are dimensions: numbers)
//   functions  argmax argmin max min spread sum mean norm abs   weight(q, k) score(q, k)
//              cache_rows(t) nocache_rows(t): rows of K computed at decoding step t with / without a KV cache
//              previous(h) duplicate(h) induction(h): head h's score on the scenario's tokens
//   names      n d_model d_k d_v heads
//   facts      repeat_accuracy knocked_out …: measured outside the scenario (see fact_names)
//   operators  + - * /   == != < <= > >=   and or not   ( )
//
// A value is a number, a token name or a true/false; argmax of a row over tokens is a token name,
// over dimensions a 1-based index.
#pragma once

#include "core/attention.h"

#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace core::learn {

// A parse or evaluation problem; `column` is 1-based within the expression text.
// `awaiting`: a fact the lesson's panels have not measured yet, which the message tells the learner
// how to measure: a step still to take, not a fault.
struct ExprError : std::runtime_error {
    ExprError(const std::string& what, int col, bool waiting = false) : std::runtime_error(what), column(col), awaiting(waiting) {}
    int column;
    bool awaiting;
};

struct Value {
    enum class Kind { number, token, boolean };
    Kind kind = Kind::number;
    double number = 0.0;
    std::string token;
    bool boolean = false;

    static Value of(double x) { return Value{Kind::number, x, {}, false}; }
    static Value of_token(std::string t) { return Value{Kind::token, 0.0, std::move(t), false}; }
    static Value of_bool(bool b) { return Value{Kind::boolean, 0.0, {}, b}; }
    // "cat", "0.673", "4", "true"
    std::string text() const;
    bool operator==(const Value& o) const;
};

// A place in a matrix an expression (or a highlight) points at, resolved against a scenario.
struct MatrixPlace {
    std::string matrix; // "A", "Q", …
    int head = 0;       // 0-based
    int row = -1;       // 0-based; -1 = every row
    int col = -1;       // 0-based; -1 = every column
};

// The numbers one place holds, labelled: "the 0.187 · cat 0.045 · sat 0.768".
struct Labelled {
    std::vector<std::string> labels;
    std::vector<double> values;
    std::string text() const;
};

// What a lesson reads beyond the scenario, measured in the window (the Train panel's tiny model, the
// head the learner picked in a lesson's grid of a model's heads): by name.
using Facts = std::map<std::string, double>;
struct FactName {
    const char* name;
    const char* meaning;     // a phrase: "the repeat accuracy with the heads knocked out"
    const char* measured_by; // what to do for it to exist: "open the Train panel (…)"
};
// Every name a fact may have; an expression may read no other.
const std::vector<FactName>& fact_names();

struct Node;

class Expr {
public:
    // Throws ExprError for a syntax error, an unknown name or a wrong number of arguments.
    static Expr parse(const std::string& text);
    // Throws ExprError for a token not in the scenario, an index out of range, a head that does
    // not exist, or a value of the wrong kind (a whole row where a number is needed, …).
    // A fact it reads and `facts` lacks (or no facts at all) throws ExprError naming who measures it.
    Value evaluate(const Scenario& s, const Result& r, const Facts* facts = nullptr) const;

    const std::string& text() const { return text_; }
    // The expression is exactly a matrix, a row, a column or a cell (what a highlight names).
    bool is_place() const;
    MatrixPlace place(const Scenario& s, const Result& r) const; // requires is_place(); throws ExprError
    // The first row, column or cell the expression reads (e.g. A["it"] in argmax(A["it"])), with
    // its live numbers: what a reveal shows beside the answer. Empty when it reads none.
    std::optional<Labelled> evidence(const Scenario& s, const Result& r) const;
    // For a comparison "left OP right" at the top, the value of `left` (what a challenge shows).
    std::optional<Value> left_value(const Scenario& s, const Result& r, const Facts* facts = nullptr) const;
    // It reads a fact: only the panel that measures it can evaluate it (loading does not).
    bool reads_facts() const;
    // Every place the expression reads (weight(q, k) and score(q, k) read q's row of A or of the
    // scores), resolved on `s`: what a panel must not show before a prediction is committed.
    std::vector<MatrixPlace> places_read(const Scenario& s, const Result& r) const;
    // It calls cache_rows or nocache_rows: the decoder's counts decide it.
    bool reads_decoder() const;
    // The names (n d_model d_k d_v heads) it reads.
    std::vector<std::string> names_read() const;
    // The expression as an English sentence or phrase (core/learn/expr_describe.cpp):
    // argmax(A["it"]) == "ate" → the row of “it” in A has its largest weight on “ate”.
    std::string describe() const;

private:
    std::string text_;
    std::shared_ptr<const Node> root_;
};

// The labelled numbers of a place (a whole matrix gives its rows one after another).
Labelled numbers_at(const MatrixPlace& p, const Scenario& s, const Result& r);

} // namespace core::learn
