// core/learn/expr_describe.cpp — a lesson expression read out as English, so a challenge's goal
// reads "the row of “it” in A has its largest weight on “ate”" rather than argmax(A["it"]) == "ate".
//
// [SECTION] Places
// [SECTION] Terms and sentences
#include "core/learn/expr.h"
#include "core/learn/expr_node.h"

#include "core/explain.h"

namespace core::learn {

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Places
//-----------------------------------------------------------------------------

std::string quoted(const std::string& token) { return "“" + token + "”"; }

// A row or column index as written: a token is quoted, a number stays a number.
std::string index_text(const Node& n) {
    if (n.op == Node::Op::string) return quoted(n.text);
    if (n.op == Node::Op::number) return n.text;
    return "(" + n.text + ")";
}

std::string matrix_text(const Node& m) { return m.head > 1 ? m.text + " of head " + std::to_string(m.head) : m.text; }

// What one entry of a matrix is called.
std::string entry_word(const std::string& matrix) {
    if (matrix == "A") return "weight";
    if (matrix == "scores" || matrix == "scaled") return "score";
    return "entry";
}

// A[“it”] → the row of “it” in A;  A[:, “cat”] → the column of “cat” in A;  A[“it”, “cat”] → the weight “it” gives “cat”.
std::string place_text(const Node& n) {
    if (n.op == Node::Op::matrix) return matrix_text(n);
    const Node& m = *n.kids[0];
    const Node* row = n.kids[1].get();
    const Node* col = n.kids[2].get();
    const std::string in = " in " + matrix_text(m);
    if (row && col) {
        if (m.text == "A") return "the weight " + index_text(*row) + " gives " + index_text(*col) + (m.head > 1 ? in : "");
        return "the " + entry_word(m.text) + " at row " + index_text(*row) + ", column " + index_text(*col) + in;
    }
    if (row) return (row->op == Node::Op::string ? "the row of " : "row ") + index_text(*row) + in;
    return (col->op == Node::Op::string ? "the column of " : "column ") + index_text(*col) + in;
}

std::string matrix_of_place(const Node& n) { return n.op == Node::Op::index ? n.kids[0]->text : n.text; }

bool is_place(const Node& n) { return n.op == Node::Op::matrix || n.op == Node::Op::index; }

//-----------------------------------------------------------------------------
// [SECTION] Terms and sentences
//-----------------------------------------------------------------------------

std::string term(const Node& n);

std::string name_text(const std::string& name) {
    for (const FactName& f : fact_names())
        if (name == f.name) return f.meaning;
    if (name == "n") return "the number of tokens";
    if (name == "heads") return "the number of heads";
    if (name == "d_k") return "the length of a query (d_k)";
    if (name == "d_v") return "the length of a value (d_v)";
    return "the length of an embedding (d_model)";
}

std::string call_text(const Node& n) {
    const std::string& f = n.text;
    if (f == "weight") return "the weight " + term(*n.kids[0]) + " gives " + term(*n.kids[1]);
    if (f == "score") return "the score of " + term(*n.kids[0]) + " against " + term(*n.kids[1]);
    if (f == "cache_rows") return "the new rows of K at decoding step " + term(*n.kids[0]) + " with a KV cache";
    if (f == "nocache_rows") return "the rows of K at decoding step " + term(*n.kids[0]) + " without a KV cache";
    if (f == "abs") return "the size of " + term(*n.kids[0]);
    if (f == "previous" || f == "duplicate" || f == "induction") return "head " + term(*n.kids[0]) + "'s " + f + (f == "previous" ? "-token" : "") + " score";
    const Node& arg = *n.kids[0];
    const std::string word = is_place(arg) ? entry_word(matrix_of_place(arg)) : "value";
    const std::string of = term(arg);
    if (f == "argmax") return "where " + of + " is largest";
    if (f == "argmin") return "where " + of + " is smallest";
    if (f == "max") return "the largest " + word + " in " + of;
    if (f == "min") return "the smallest " + word + " in " + of;
    if (f == "spread") return "the gap between the largest and smallest " + word + " in " + of;
    if (f == "sum") return "the sum of " + of;
    if (f == "mean") return "the mean of " + of;
    return "the length of " + of; // norm
}

std::string binary_term(const Node& n) {
    static const std::pair<const char*, const char*> words[] = {{"+", " plus "}, {"-", " minus "}, {"*", " times "}, {"/", " divided by "}};
    for (const auto& [op, word] : words)
        if (n.text == op) return term(*n.kids[0]) + word + term(*n.kids[1]);
    return n.text;
}

std::string comparison(const Node& n);

std::string term(const Node& n) {
    switch (n.op) {
    case Node::Op::number: return n.text.empty() ? format_number(n.number) : n.text;
    case Node::Op::string: return quoted(n.text);
    case Node::Op::name: return name_text(n.text);
    case Node::Op::matrix:
    case Node::Op::index: return place_text(n);
    case Node::Op::call: return call_text(n);
    case Node::Op::negate: return "minus " + term(*n.kids[0]);
    case Node::Op::logical_not: return "it is not so that " + comparison(*n.kids[0]);
    case Node::Op::binary: return n.text == "and" || n.text == "or" || n.text.find_first_of("=<>!") != std::string::npos ? comparison(n) : binary_term(n);
    }
    return n.text;
}

// argmax(P) == "tok" → P has its largest weight on “tok”; other comparisons: left IS-BELOW right, ….
std::string comparison(const Node& n) {
    if (n.op != Node::Op::binary) return term(n);
    if (n.text == "and" || n.text == "or") return comparison(*n.kids[0]) + ", " + n.text + " " + comparison(*n.kids[1]);
    static const std::pair<const char*, const char*> verbs[] = {{"==", " is "}, {"!=", " is not "}, {"<", " is below "},
                                                                {"<=", " is at most "}, {">", " is above "}, {">=", " is at least "}};
    const Node& left = *n.kids[0];
    const Node& right = *n.kids[1];
    const bool arg = left.op == Node::Op::call && (left.text == "argmax" || left.text == "argmin") && is_place(*left.kids[0]);
    if (arg && (n.text == "==" || n.text == "!=")) {
        const Node& p = *left.kids[0];
        const std::string which = left.text == "argmax" ? "largest " : "smallest ";
        return place_text(p) + (n.text == "==" ? " has its " : " does not have its ") + which + entry_word(matrix_of_place(p)) + " on " + term(right);
    }
    for (const auto& [op, verb] : verbs)
        if (n.text == op) return term(left) + verb + term(right);
    return term(n);
}

} // namespace

std::string Expr::describe() const { return comparison(*root_); }

} // namespace core::learn
