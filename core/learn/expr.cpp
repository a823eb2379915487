// core/learn/expr.cpp — the evaluator of lesson expressions (their parser is expr_parse.cpp).
//
// [SECTION] Matrices and places
// [SECTION] Evaluation
// [SECTION] Expr
#include "core/learn/expr.h"
#include "core/learn/expr_node.h"

#include "core/decoder.h"
#include "core/explain.h"
#include "core/heads/scores.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <map>

namespace core::learn {

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Matrices and places
//-----------------------------------------------------------------------------

const Matrix& matrix_of(const Result& r, const std::string& name, int head) {
    if (name == "X") return r.X_in;
    const HeadResult& h = r.heads[static_cast<size_t>(head)];
    if (name == "Q") return h.Q;
    if (name == "K") return h.K;
    if (name == "V") return h.V;
    if (name == "scores") return h.scores;
    if (name == "scaled") return h.scaled;
    if (name == "A") return h.weights;
    return h.output; // "Z"
}

// Columns of the n × n matrices are keys (tokens); the others' columns are dimensions.
bool columns_are_tokens(const std::string& name) { return name == "scores" || name == "scaled" || name == "A"; }

int token_row(const Scenario& s, const std::string& token, int column) {
    const auto it = std::find(s.tokens.begin(), s.tokens.end(), token);
    if (it != s.tokens.end()) return static_cast<int>(it - s.tokens.begin());
    std::string list;
    for (size_t k = 0; k < s.tokens.size() && k < 12; ++k) list += (k ? ", " : "") + s.tokens[k];
    throw ExprError("no token \"" + token + "\" in the scenario (its tokens: " + list + (s.tokens.size() > 12 ? ", …" : "") + ")", column);
}

} // namespace

std::string Value::text() const {
    switch (kind) {
    case Kind::number: return format_number(number);
    case Kind::token: return token;
    case Kind::boolean: return boolean ? "true" : "false";
    }
    return {};
}

bool Value::operator==(const Value& o) const {
    if (kind != o.kind) return false;
    if (kind == Kind::token) return token == o.token;
    if (kind == Kind::boolean) return boolean == o.boolean;
    return std::abs(number - o.number) <= 1e-9 * std::max({1.0, std::abs(number), std::abs(o.number)});
}

std::string Labelled::text() const {
    std::string out;
    for (size_t k = 0; k < values.size(); ++k) out += (k ? " · " : "") + labels[k] + " " + format_number(values[k]);
    return out;
}

Labelled numbers_at(const MatrixPlace& p, const Scenario& s, const Result& r) {
    const Matrix& m = matrix_of(r, p.matrix, p.head);
    const bool token_cols = columns_are_tokens(p.matrix);
    auto col_label = [&](Eigen::Index j) { return token_cols ? s.tokens[j] : "d" + std::to_string(j + 1); };
    Labelled out;
    for (Eigen::Index i = 0; i < m.rows(); ++i) {
        if (p.row >= 0 && i != p.row) continue;
        for (Eigen::Index j = 0; j < m.cols(); ++j) {
            if (p.col >= 0 && j != p.col) continue;
            out.labels.push_back(p.row >= 0 || p.col < 0 ? col_label(j) : s.tokens[i]);
            out.values.push_back(m(i, j));
        }
    }
    if (p.row < 0 && p.col >= 0) // a column: one entry per query row
        for (size_t k = 0; k < out.labels.size(); ++k) out.labels[k] = s.tokens[k];
    return out;
}

//-----------------------------------------------------------------------------
// [SECTION] Evaluation
//-----------------------------------------------------------------------------

namespace {

// What a sub-expression evaluates to: a plain value, or numbers from a place in a matrix.
struct Val {
    enum class Kind { scalar, numbers };
    Kind kind = Kind::scalar;
    Value scalar;
    Labelled numbers;
    bool token_labels = false; // numbers: labelled by tokens (argmax gives a token)
    MatrixPlace place;
};

class Evaluator {
public:
    Evaluator(const Scenario& s, const Result& r, const Facts* facts = nullptr) : s_(s), r_(r), facts_(facts) {}

    Val eval(const Node& n) const {
        switch (n.op) {
        case Node::Op::number: return scalar(Value::of(n.number));
        case Node::Op::string: token_row(s_, n.text, n.column); return scalar(Value::of_token(n.text));
        case Node::Op::name: return scalar(Value::of(is_fact_name(n.text) ? fact(n) : constant(n.text)));
        case Node::Op::matrix:
        case Node::Op::index: return numbers(place_of(n));
        case Node::Op::call: return call(n);
        case Node::Op::negate: return scalar(Value::of(-number(*n.kids[0])));
        case Node::Op::logical_not: return scalar(Value::of_bool(!boolean(*n.kids[0])));
        case Node::Op::binary: return binary(n);
        }
        throw ExprError("cannot evaluate", n.column);
    }

    MatrixPlace place_of(const Node& n) const {
        const Node& m = n.op == Node::Op::index ? *n.kids[0] : n;
        MatrixPlace p{m.text, m.head - 1, -1, -1};
        if (m.head > static_cast<int>(r_.heads.size()))
            throw ExprError("head " + std::to_string(m.head) + " does not exist (the scenario has " + std::to_string(r_.heads.size()) + ")", m.column);
        if (n.op != Node::Op::index) return p;
        const Matrix& mat = matrix_of(r_, p.matrix, p.head);
        if (n.kids[1]) p.row = index_into(*n.kids[1], static_cast<int>(mat.rows()), true);
        if (n.kids[2]) {
            if (!columns_are_tokens(p.matrix) && n.kids[2]->op == Node::Op::string)
                throw ExprError("the columns of " + p.matrix + " are dimensions: give a number from 1 to " + std::to_string(mat.cols()), n.kids[2]->column);
            p.col = index_into(*n.kids[2], static_cast<int>(mat.cols()), columns_are_tokens(p.matrix));
        }
        return p;
    }

    Value value(const Node& n) const {
        const Val v = eval(n);
        if (v.kind == Val::Kind::scalar) return v.scalar;
        if (v.numbers.values.size() == 1) return Value::of(v.numbers.values[0]);
        throw ExprError("this names " + std::to_string(v.numbers.values.size()) + " numbers where one value is needed (use max, sum, … or a cell)", n.column);
    }

private:
    static Val scalar(Value v) { return Val{Val::Kind::scalar, std::move(v), {}, false, {}}; }
    Val numbers(const MatrixPlace& p) const {
        const bool by_token = (p.row >= 0 && p.col < 0) ? columns_are_tokens(p.matrix) : (p.row < 0 && p.col >= 0);
        return Val{Val::Kind::numbers, {}, numbers_at(p, s_, r_), by_token, p};
    }

    double fact(const Node& n) const {
        const auto it = facts_ ? facts_->find(n.text) : Facts::const_iterator{};
        if (!facts_ || it == facts_->end()) {
            const auto& names = fact_names();
            const auto f = std::find_if(names.begin(), names.end(), [&](const FactName& x) { return n.text == x.name; });
            std::string meaning = f->meaning; // a learner reads it: the phrase, not the name
            meaning[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(meaning[0])));
            throw ExprError(meaning + " " + f->measured_by, n.column, true);
        }
        return it->second;
    }

    // Head h's score on the scenario's tokens (equal names are the same token); 0 when no row qualifies.
    double head_score(const std::string& f, const Node& arg) const {
        const double h = number(arg);
        if (h != std::floor(h) || h < 1 || h > static_cast<double>(r_.heads.size()))
            throw ExprError("head " + format_number(h) + " does not exist: give 1 to " + std::to_string(r_.heads.size()), arg.column);
        std::map<std::string, int> ids;
        std::vector<int> seq;
        for (const std::string& t : s_.tokens) seq.push_back(ids.emplace(t, static_cast<int>(ids.size())).first->second);
        const core::heads::HeadScores sc = core::heads::head_scores(r_.heads[static_cast<size_t>(h) - 1].weights, core::heads::score_index(seq));
        const std::optional<double>& v = f == "previous" ? sc.previous : f == "duplicate" ? sc.duplicate : sc.induction;
        return v.value_or(0.0);
    }

    double constant(const std::string& name) const {
        if (name == "n") return s_.n();
        if (name == "d_model") return s_.d_model();
        if (name == "d_k") return s_.d_k();
        if (name == "d_v") return s_.d_v();
        return static_cast<double>(s_.heads.size());
    }

    // A row or column given as a token (rows, and the key columns) or a whole 1-based number.
    int index_into(const Node& n, int count, bool tokens_allowed) const {
        const Value v = value(n);
        if (v.kind == Value::Kind::token) {
            if (!tokens_allowed) throw ExprError("give a number here, not a token", n.column);
            return token_row(s_, v.token, n.column);
        }
        if (v.kind != Value::Kind::number || v.number != std::floor(v.number) || v.number < 1 || v.number > count)
            throw ExprError("index " + v.text() + " is out of range: give 1 to " + std::to_string(count), n.column);
        return static_cast<int>(v.number) - 1;
    }

    double number(const Node& n) const {
        const Value v = value(n);
        if (v.kind != Value::Kind::number) throw ExprError("expected a number here, found " + v.text(), n.column);
        return v.number;
    }
    bool boolean(const Node& n) const {
        const Value v = value(n);
        if (v.kind != Value::Kind::boolean) throw ExprError("expected a comparison (true or false) here, found " + v.text(), n.column);
        return v.boolean;
    }
    int token_arg(const Node& n) const {
        const Value v = value(n);
        if (v.kind == Value::Kind::token) return token_row(s_, v.token, n.column);
        return index_into(n, s_.n(), true);
    }
    int decode_step_arg(const Node& n) const {
        const double t = number(n);
        if (t != std::floor(t) || t < 1 || t > s_.n()) throw ExprError("decoding step " + format_number(t) + " is out of range: give 1 to " + std::to_string(s_.n()), n.column);
        return static_cast<int>(t);
    }

    Val call(const Node& n) const {
        const std::string& f = n.text;
        if (f == "weight" || f == "score") {
            const MatrixPlace p{f == "weight" ? "A" : "scores", 0, token_arg(*n.kids[0]), token_arg(*n.kids[1])};
            return scalar(Value::of(matrix_of(r_, p.matrix, 0)(p.row, p.col)));
        }
        if (f == "cache_rows" || f == "nocache_rows") {
            const int t = decode_step_arg(*n.kids[0]);
            Decoder decoder(s_);
            DecodeStep step;
            for (int k = 0; k < t; ++k) step = decoder.step();
            return scalar(Value::of(f == "cache_rows" ? step.new_kv_rows : step.kv_rows_without_cache));
        }
        if (f == "abs") return scalar(Value::of(std::abs(number(*n.kids[0]))));
        if (f == "previous" || f == "duplicate" || f == "induction") return scalar(Value::of(head_score(f, *n.kids[0])));
        const Val arg = eval(*n.kids[0]);
        if (arg.kind != Val::Kind::numbers) throw ExprError(f + " needs a matrix, a row or a column, found " + arg.scalar.text(), n.kids[0]->column);
        return reduce(f, arg, n.column);
    }

    static Val reduce(const std::string& f, const Val& arg, int column) {
        const std::vector<double>& x = arg.numbers.values;
        double lo = std::numeric_limits<double>::infinity(), hi = -lo, total = 0.0, squares = 0.0;
        size_t lo_at = 0, hi_at = 0, finite = 0;
        for (size_t k = 0; k < x.size(); ++k) {
            if (!std::isfinite(x[k])) continue; // masked scores
            ++finite;
            if (x[k] < lo) lo = x[k], lo_at = k;
            if (x[k] > hi) hi = x[k], hi_at = k;
            total += x[k];
            squares += x[k] * x[k];
        }
        if (finite == 0) throw ExprError(f + " of numbers that are all masked", column);
        if (f == "argmax" || f == "argmin") {
            const size_t at = f == "argmax" ? hi_at : lo_at;
            if (arg.token_labels) return scalar(Value::of_token(arg.numbers.labels[at]));
            return scalar(Value::of(static_cast<double>(at + 1)));
        }
        if (f == "max") return scalar(Value::of(hi));
        if (f == "min") return scalar(Value::of(lo));
        if (f == "spread") return scalar(Value::of(hi - lo));
        if (f == "sum") return scalar(Value::of(total));
        if (f == "mean") return scalar(Value::of(total / static_cast<double>(finite)));
        return scalar(Value::of(std::sqrt(squares))); // norm
    }

    Val binary(const Node& n) const {
        const std::string& op = n.text;
        if (op == "and") return scalar(Value::of_bool(boolean(*n.kids[0]) && boolean(*n.kids[1])));
        if (op == "or") return scalar(Value::of_bool(boolean(*n.kids[0]) || boolean(*n.kids[1])));
        if (op == "==" || op == "!=") {
            const Value a = value(*n.kids[0]), b = value(*n.kids[1]);
            if (a.kind != b.kind) throw ExprError("cannot compare " + a.text() + " with " + b.text(), n.column);
            return scalar(Value::of_bool((a == b) == (op == "==")));
        }
        const double a = number(*n.kids[0]), b = number(*n.kids[1]);
        if (op == "<") return scalar(Value::of_bool(a < b));
        if (op == "<=") return scalar(Value::of_bool(a <= b));
        if (op == ">") return scalar(Value::of_bool(a > b));
        if (op == ">=") return scalar(Value::of_bool(a >= b));
        if (op == "+") return scalar(Value::of(a + b));
        if (op == "-") return scalar(Value::of(a - b));
        if (op == "*") return scalar(Value::of(a * b));
        if (b == 0.0) throw ExprError("division by zero", n.column);
        return scalar(Value::of(a / b));
    }

    const Scenario& s_;
    const Result& r_;
    const Facts* facts_;
};

// The first row, column or cell in reading order (a cell stands for its whole row).
const Node* first_place(const Node& n) {
    if (n.op == Node::Op::index) return &n;
    for (const NodePtr& k : n.kids)
        if (k)
            if (const Node* found = first_place(*k)) return found;
    return nullptr;
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Expr
//-----------------------------------------------------------------------------

Expr Expr::parse(const std::string& text) {
    Expr e;
    e.text_ = text;
    e.root_ = parse_expression(text);
    return e;
}

const std::vector<FactName>& fact_names() {
    static const char* const train = "is measured by the Train panel (View ▸ Train a tiny transformer): open it";
    static const char* const grid = "comes from the lesson's grid of the model's heads: pick a head there";
    static const char* const maps = "comes from the lesson's circuit maps of the model: wait for them";
    static const char* const picked = "comes from the lesson's circuit maps: pick a head there";
    static const std::vector<FactName> names = {
        {"repeat_accuracy", "the tiny model's repeat accuracy with its heads knocked out", train},
        {"intact_accuracy", "the tiny model's repeat accuracy with every head in place", train},
        {"knocked_out", "the number of heads knocked out", train},
        {"induction_layer", "the layer of the tiny model's best induction head", train},
        {"previous_layer", "the layer of the tiny model's best previous-token head", train},
        {"best_previous", "the best previous-token score of the tiny model's heads", train},
        {"best_induction", "the best induction score of the tiny model's heads", train},
        {"without_induction_head", "the repeat accuracy without the best induction head", train},
        {"without_previous_head", "the repeat accuracy without the best previous-token head", train},
        {"picked_previous", "the previous-token score of the head picked in the model's grid", grid},
        {"model_best_previous", "the best previous-token score of the model's heads", grid},
        {"picked_induction", "the induction score of the head picked in the model's grid", grid},
        {"model_best_induction", "the best induction score of the model's heads", grid},
        {"best_recovery", "the largest recovery of one head's patch", maps},
        {"recovery_layer", "the layer of the head whose patch recovers most", maps},
        {"attribution_layer", "the layer of the head that writes most toward the answer", maps},
        {"lens_layer", "the first layer after which the logit lens ranks the answer first", maps},
        {"reader_layer", "the layer of the best-recovering head past the first layer (the reader)", maps},
        {"composition_layer", "the layer of the earlier head whose output K-composes most into the reader", maps},
        {"picked_recovery", "the recovery of the picked head's patch", picked},
        {"picked_attribution", "the picked head's direct attribution to the logit difference", picked},
        {"picked_composition", "the picked head's K-composition into the reader", picked},
    };
    return names;
}

Value Expr::evaluate(const Scenario& s, const Result& r, const Facts* facts) const {
    const Value v = Evaluator(s, r, facts).value(*root_);
    if (v.kind == Value::Kind::number && !std::isfinite(v.number)) throw ExprError("the value is not a finite number", root_->column);
    return v;
}

bool Expr::is_place() const { return root_->op == Node::Op::matrix || root_->op == Node::Op::index; }

MatrixPlace Expr::place(const Scenario& s, const Result& r) const { return Evaluator(s, r).place_of(*root_); }

std::optional<Labelled> Expr::evidence(const Scenario& s, const Result& r) const {
    const Node* n = first_place(*root_);
    if (!n) {
        // weight(q, k) and score(q, k) read q's row of A or of the scores.
        if (root_->op == Node::Op::call && (root_->text == "weight" || root_->text == "score")) {
            const int row = find_row(s, Evaluator(s, r).value(*root_->kids[0]).text());
            if (row >= 0) return numbers_at(MatrixPlace{root_->text == "weight" ? "A" : "scores", 0, row, -1}, s, r);
        }
        return std::nullopt;
    }
    MatrixPlace p = Evaluator(s, r).place_of(*n);
    if (p.row >= 0 && p.col >= 0) p.col = -1;
    return numbers_at(p, s, r);
}

namespace {

void collect_places(const Node& n, const Evaluator& ev, const Scenario& s, std::vector<MatrixPlace>& out) {
    if (n.op == Node::Op::matrix || n.op == Node::Op::index) {
        out.push_back(ev.place_of(n));
        return;
    }
    if (n.op == Node::Op::call && (n.text == "weight" || n.text == "score")) {
        const int row = find_row(s, ev.value(*n.kids[0]).text());
        if (row >= 0) out.push_back(MatrixPlace{n.text == "weight" ? "A" : "scores", 0, row, -1});
    }
    for (const NodePtr& k : n.kids)
        if (k) collect_places(*k, ev, s, out);
}

bool calls_decoder(const Node& n) {
    if (n.op == Node::Op::call && (n.text == "cache_rows" || n.text == "nocache_rows")) return true;
    return std::any_of(n.kids.begin(), n.kids.end(), [](const NodePtr& k) { return k && calls_decoder(*k); });
}

void collect_names(const Node& n, std::vector<std::string>& out) {
    if (n.op == Node::Op::name) out.push_back(n.text);
    for (const NodePtr& k : n.kids)
        if (k) collect_names(*k, out);
}

} // namespace

std::vector<std::string> Expr::names_read() const {
    std::vector<std::string> out;
    collect_names(*root_, out);
    return out;
}

std::vector<MatrixPlace> Expr::places_read(const Scenario& s, const Result& r) const {
    std::vector<MatrixPlace> out;
    collect_places(*root_, Evaluator(s, r), s, out);
    return out;
}

bool Expr::reads_decoder() const { return calls_decoder(*root_); }

bool Expr::reads_facts() const {
    const std::vector<std::string> names = names_read();
    return std::any_of(names.begin(), names.end(), is_fact_name);
}

std::optional<Value> Expr::left_value(const Scenario& s, const Result& r, const Facts* facts) const {
    static const char* const comparisons[] = {"==", "!=", "<", "<=", ">", ">="};
    if (root_->op != Node::Op::binary || std::find(std::begin(comparisons), std::end(comparisons), root_->text) == std::end(comparisons))
        return std::nullopt;
    return Evaluator(s, r, facts).value(*root_->kids[0]);
}

} // namespace core::learn
