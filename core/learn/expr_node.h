// core/learn/expr_node.h — the syntax tree of a lesson expression, for the files that read it
// (the parser in expr_parse.cpp, the evaluator in expr.cpp, the describer in expr_describe.cpp).
// Not for the UI.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace core::learn {

struct Node {
    enum class Op { number, string, name, matrix, index, call, negate, logical_not, binary };
    Op op = Op::number;
    int column = 1;
    double number = 0.0;
    std::string text; // the string, name, matrix, function or operator
    int head = 1;     // matrix: 1-based head
    std::vector<std::shared_ptr<const Node>> kids; // index: matrix, row, col (null = ':' or absent)
};
using NodePtr = std::shared_ptr<const Node>;

// The tree of `text`; throws ExprError naming the column.
NodePtr parse_expression(const std::string& text);
// Whether `name` is one of fact_names().
bool is_fact_name(const std::string& name);

} // namespace core::learn
