// core/learn/expr_parse.cpp — the lexer and recursive-descent parser of lesson expressions, into
// the syntax tree of core/learn/expr_node.h.
//
// [SECTION] Names
// [SECTION] Lexer
// [SECTION] Parser
#include "core/learn/expr.h"
#include "core/learn/expr_node.h"

#include "core/scenario.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace core::learn {

//-----------------------------------------------------------------------------
// [SECTION] Names
//-----------------------------------------------------------------------------

namespace {

const char* const matrix_names[] = {"X", "Q", "K", "V", "scores", "scaled", "A", "Z"};
bool is_matrix_name(const std::string& s) {
    return std::find(std::begin(matrix_names), std::end(matrix_names), s) != std::end(matrix_names);
}
const char* const constant_names[] = {"n", "d_model", "d_k", "d_v", "heads"};

struct Function {
    const char* name;
    int arity;
};
const Function functions[] = {{"argmax", 1}, {"argmin", 1}, {"max", 1},  {"min", 1},    {"spread", 1},       {"sum", 1},
                              {"mean", 1},   {"norm", 1},   {"abs", 1},  {"weight", 2}, {"score", 2},        {"cache_rows", 1},
                              {"nocache_rows", 1}, {"previous", 1}, {"duplicate", 1}, {"induction", 1}};

std::string fact_list() {
    std::string out;
    for (const FactName& f : fact_names()) out += (out.empty() ? "" : " ") + std::string(f.name);
    return out;
}


//-----------------------------------------------------------------------------
// [SECTION] Lexer
//-----------------------------------------------------------------------------

struct Lexeme {
    enum class Kind { end, number, string, name, symbol };
    Kind kind = Kind::end;
    std::string text;
    double number = 0.0;
    int column = 1;
};

std::vector<Lexeme> lex(const std::string& s) {
    std::vector<Lexeme> out;
    size_t i = 0;
    while (true) {
        while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
        Lexeme l;
        l.column = static_cast<int>(i) + 1;
        if (i >= s.size()) {
            out.push_back(l);
            return out;
        }
        const char c = s[i];
        if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
            size_t used = 0;
            try {
                l.number = std::stod(s.substr(i), &used);
            } catch (const std::exception&) {
                throw ExprError("a number out of range", l.column);
            }
            l.kind = Lexeme::Kind::number;
            l.text = s.substr(i, used);
            i += used;
        } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            size_t j = i;
            while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
            l.kind = Lexeme::Kind::name;
            l.text = s.substr(i, j - i);
            i = j;
        } else if (c == '"' || c == '\'') {
            const size_t close = s.find(c, i + 1);
            if (close == std::string::npos) throw ExprError(std::string("a quote ") + c + " that is never closed", l.column);
            l.kind = Lexeme::Kind::string;
            l.text = s.substr(i + 1, close - i - 1);
            i = close + 1;
        } else {
            static const char* const two[] = {"==", "!=", "<=", ">="};
            l.kind = Lexeme::Kind::symbol;
            l.text = std::string(1, c);
            for (const char* t : two)
                if (s.compare(i, 2, t) == 0) l.text = t;
            if (l.text.size() == 1 && std::string("()[],:@+-*/<>").find(c) == std::string::npos)
                throw ExprError(std::string("unexpected character '") + c + "'", l.column);
            i += l.text.size();
        }
        out.push_back(l);
    }
}

//-----------------------------------------------------------------------------
// [SECTION] Parser
//-----------------------------------------------------------------------------

// or := and {"or" and};  and := not {"and" not};  not := "not" not | cmp;  cmp := sum [OP sum]
// sum := prod {(+|-) prod};  prod := unary {(*|/) unary};  unary := - unary | postfix
// postfix := primary {"[" index ["," index] "]"};  index := ":" | or
// primary := NUMBER | STRING | NAME ["@" NUMBER] | NAME "(" args ")" | "(" or ")"
class Parser {
public:
    explicit Parser(const std::string& text) : lexemes_(lex(text)) {}

    NodePtr parse_all() {
        NodePtr root = parse_or();
        if (peek().kind != Lexeme::Kind::end) throw ExprError("unexpected '" + peek().text + "'", peek().column);
        return root;
    }

private:
    const Lexeme& peek() const { return lexemes_[pos_]; }
    bool at(const char* symbol) const {
        return (peek().kind == Lexeme::Kind::symbol || peek().kind == Lexeme::Kind::name) && peek().text == symbol;
    }
    Lexeme take() { return lexemes_[pos_ < lexemes_.size() - 1 ? pos_++ : pos_]; }
    void expect(const char* symbol) {
        if (!at(symbol)) {
            const std::string found = peek().kind == Lexeme::Kind::end ? "the end" : "'" + peek().text + "'";
            throw ExprError(std::string("expected '") + symbol + "', found " + found, peek().column);
        }
        take();
    }
    static NodePtr make(Node::Op op, int column, std::string text, std::vector<NodePtr> kids) {
        auto n = std::make_shared<Node>();
        n->op = op;
        n->column = column;
        n->text = std::move(text);
        n->kids = std::move(kids);
        return n;
    }

    // Nesting costs stack: "((((…" or "- - - …" beyond this is refused rather than followed.
    static constexpr int max_depth = 64;
    struct Deeper {
        Deeper(int& d, int column) : depth(d) {
            if (++depth > max_depth) throw ExprError("nested more than " + std::to_string(max_depth) + " deep", column);
        }
        ~Deeper() { --depth; }
        Deeper(const Deeper&) = delete;
        Deeper& operator=(const Deeper&) = delete;
        int& depth;
    };

    // A left-associative level: operands parsed by `next`, joined by any of `ops`.
    NodePtr parse_left(NodePtr (Parser::*next)(), std::initializer_list<const char*> ops) {
        NodePtr left = (this->*next)();
        while (std::any_of(ops.begin(), ops.end(), [this](const char* op) { return at(op); })) {
            const Lexeme op = take();
            left = make(Node::Op::binary, op.column, op.text, {left, (this->*next)()});
        }
        return left;
    }
    NodePtr parse_or() {
        const Deeper deeper(depth_, peek().column);
        return parse_left(&Parser::parse_and, {"or"});
    }
    NodePtr parse_and() { return parse_left(&Parser::parse_not, {"and"}); }
    // A prefix operator `op` (of kind `kind`) before its own level, or the `next` level without one.
    NodePtr parse_prefix(const char* op, Node::Op kind, NodePtr (Parser::*self)(), NodePtr (Parser::*next)()) {
        if (!at(op)) return (this->*next)();
        const int col = take().column;
        const Deeper deeper(depth_, col);
        return make(kind, col, op, {(this->*self)()});
    }
    NodePtr parse_not() { return parse_prefix("not", Node::Op::logical_not, &Parser::parse_not, &Parser::parse_comparison); }
    NodePtr parse_comparison() {
        NodePtr left = parse_sum();
        for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
            if (!at(op)) continue;
            const int col = take().column;
            return make(Node::Op::binary, col, op, {left, parse_sum()});
        }
        return left;
    }
    NodePtr parse_sum() { return parse_left(&Parser::parse_product, {"+", "-"}); }
    NodePtr parse_product() { return parse_left(&Parser::parse_unary, {"*", "/"}); }
    NodePtr parse_unary() { return parse_prefix("-", Node::Op::negate, &Parser::parse_unary, &Parser::parse_postfix); }
    NodePtr parse_index() {
        if (at(":")) {
            take();
            return nullptr;
        }
        return parse_or();
    }
    NodePtr parse_postfix() {
        NodePtr e = parse_primary();
        while (at("[")) {
            const int col = take().column;
            if (e->op != Node::Op::matrix) throw ExprError("only a matrix can be indexed with [ ]", col);
            NodePtr row = parse_index(), column;
            const bool two = at(",");
            if (two) {
                take();
                column = parse_index();
            }
            expect("]");
            if (!two && !row) throw ExprError("A[:] names the whole matrix: write A", col);
            e = make(Node::Op::index, col, "[]", {e, row, column});
        }
        return e;
    }
    NodePtr parse_call(const Lexeme& name) {
        const auto f = std::find_if(std::begin(functions), std::end(functions), [&](const Function& fn) { return name.text == fn.name; });
        if (f == std::end(functions)) throw ExprError("unknown function \"" + name.text + "\"", name.column);
        take(); // (
        std::vector<NodePtr> args;
        if (!at(")")) {
            args.push_back(parse_or());
            while (at(",")) {
                take();
                args.push_back(parse_or());
            }
        }
        expect(")");
        if (static_cast<int>(args.size()) != f->arity)
            throw ExprError(name.text + " takes " + std::to_string(f->arity) + " argument" + (f->arity == 1 ? "" : "s") + ", not " +
                                std::to_string(args.size()),
                            name.column);
        return make(Node::Op::call, name.column, name.text, std::move(args));
    }
    NodePtr parse_name(const Lexeme& name) {
        if (at("(")) return parse_call(name);
        if (is_matrix_name(name.text)) {
            auto m = std::make_shared<Node>();
            m->op = Node::Op::matrix;
            m->column = name.column;
            m->text = name.text;
            if (at("@")) {
                take();
                const Lexeme h = take();
                if (h.kind != Lexeme::Kind::number || h.number < 1 || h.number > Limits::max_heads || h.number != std::floor(h.number))
                    throw ExprError("@ takes a head number from 1 to " + std::to_string(Limits::max_heads), h.column);
                m->head = static_cast<int>(h.number);
            }
            return m;
        }
        if (std::find(std::begin(constant_names), std::end(constant_names), name.text) != std::end(constant_names) || is_fact_name(name.text))
            return make(Node::Op::name, name.column, name.text, {});
        throw ExprError("unknown name \"" + name.text + "\" (matrices: X Q K V scores scaled A Z; names: n d_model d_k d_v heads; facts: " +
                            fact_list() + ")",
                        name.column);
    }
    NodePtr parse_primary() {
        const Lexeme l = take();
        switch (l.kind) {
        case Lexeme::Kind::number: {
            auto n = std::make_shared<Node>();
            n->op = Node::Op::number;
            n->column = l.column;
            n->number = l.number;
            n->text = l.text; // as written, for the describer
            return n;
        }
        case Lexeme::Kind::string: return make(Node::Op::string, l.column, l.text, {});
        case Lexeme::Kind::name:
            if (l.text == "and" || l.text == "or" || l.text == "not") break;
            return parse_name(l);
        case Lexeme::Kind::symbol:
            if (l.text != "(") break;
            {
                NodePtr inner = parse_or();
                expect(")");
                return inner;
            }
        case Lexeme::Kind::end: throw ExprError("the expression ends too early", l.column);
        }
        throw ExprError("unexpected '" + l.text + "'", l.column);
    }

    std::vector<Lexeme> lexemes_;
    size_t pos_ = 0;
    int depth_ = 0;
};

} // namespace

bool is_fact_name(const std::string& name) {
    const auto& f = fact_names();
    return std::any_of(f.begin(), f.end(), [&](const FactName& n) { return name == n.name; });
}

NodePtr parse_expression(const std::string& text) { return Parser(text).parse_all(); }

} // namespace core::learn
