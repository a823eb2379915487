#include "core/scenario.h"

#include <cmath>
#include <sstream>

namespace core {

namespace {

bool same(const Matrix& a, const Matrix& b) {
    return a.rows() == b.rows() && a.cols() == b.cols() && (a.size() == 0 || a == b);
}

std::string check_entries(const Matrix& m, const std::string& name) {
    for (Eigen::Index r = 0; r < m.rows(); ++r)
        for (Eigen::Index c = 0; c < m.cols(); ++c) {
            double v = m(r, c);
            if (is_acceptable_value(v)) continue;
            std::ostringstream out;
            out << name << "[" << r << "][" << c << "] is ";
            if (std::isnan(v)) out << "NaN";
            else if (std::isinf(v)) out << (v > 0 ? "infinite" : "-infinite");
            else out << v << ", outside ±1e6";
            return out.str();
        }
    return {};
}

std::string check_shape(const Matrix& m, const std::string& name, Eigen::Index rows,
                        const char* rows_why, Eigen::Index cols, const char* cols_why) {
    std::ostringstream out;
    if (m.rows() != rows)
        out << name << " has " << m.rows() << " rows, expected " << rows << " (" << rows_why << ")";
    else if (m.cols() != cols)
        out << name << " has " << m.cols() << " columns, expected " << cols << " (" << cols_why << ")";
    return out.str();
}

// `what` (X, or Q when they are given) has one row per token: at least one, within the limit, and
// as many as there are names.
std::string check_token_rows(const char* what, Eigen::Index n, std::size_t names) {
    std::ostringstream out;
    if (n < 1) out << what << " has no rows (at least one token is needed)";
    else if (n > Limits::max_tokens) out << what << " has " << n << " rows, more than the limit of " << Limits::max_tokens << " tokens";
    else if (static_cast<Eigen::Index>(names) != n) out << "tokens has " << names << " names, expected " << n << " (the rows of " << what << ")";
    return out.str();
}

// One matrix of head h, with the width the first head set.
struct Expected {
    const Matrix& m;
    const char* name;
    Eigen::Index cols;
    const char* why;
};

// Head h's matrices: `rows` rows each (`rows_why`), 1 … Limits::max_dim columns as expected, every entry acceptable.
std::string check_head(const Scenario& s, std::size_t h, std::initializer_list<Expected> matrices, Eigen::Index rows, const char* rows_why) {
    const std::string prefix = s.heads.size() == 1 ? "" : "heads[" + std::to_string(h) + "].";
    for (const Expected& w : matrices) {
        const std::string name = prefix + w.name;
        if (w.m.cols() < 1) return name + " has no columns";
        if (w.m.cols() > Limits::max_dim)
            return name + " has " + std::to_string(w.m.cols()) + " columns, more than the limit of " + std::to_string(Limits::max_dim);
        if (auto e = check_shape(w.m, name, rows, rows_why, w.cols, w.why); !e.empty()) return e;
        if (auto e = check_entries(w.m, name); !e.empty()) return e;
    }
    return {};
}

} // namespace

bool Head::operator==(const Head& o) const {
    return same(W_Q, o.W_Q) && same(W_K, o.W_K) && same(W_V, o.W_V) && same(Q, o.Q) && same(K, o.K) && same(V, o.V);
}

bool QueryPin::operator==(const QueryPin& o) const {
    return head == o.head && row == o.row && q.size() == o.q.size() && (q.size() == 0 || q == o.q);
}

bool Scenario::operator==(const Scenario& o) const {
    return tokens == o.tokens && same(X, o.X) && heads == o.heads && same(W_O, o.W_O) &&
           causal == o.causal && scale == o.scale && (scale != ScoreScale::custom || scale_factor == o.scale_factor) &&
           window == o.window && softcap == o.softcap && positional == o.positional && pin == o.pin && direct == o.direct &&
           rule == o.rule && beta == o.beta && decay == o.decay;
}

double Scenario::score_factor() const {
    if (scale == ScoreScale::custom) return scale_factor;
    return scale == ScoreScale::inv_sqrt_d_k ? 1.0 / std::sqrt(static_cast<double>(d_k())) : 1.0;
}

Matrix rows(std::initializer_list<std::initializer_list<double>> values) {
    Matrix m(static_cast<Eigen::Index>(values.size()), static_cast<Eigen::Index>(values.begin()->size()));
    Eigen::Index r = 0;
    for (const auto& row : values) {
        if (static_cast<Eigen::Index>(row.size()) != m.cols()) throw std::invalid_argument("rows: rows of different lengths");
        Eigen::Index c = 0;
        for (double v : row) m(r, c++) = v;
        ++r;
    }
    return m;
}

bool is_acceptable_value(double v) { return std::isfinite(v) && std::abs(v) <= Limits::max_abs_value; }

namespace {

// `name` is v, NaN or ±infinite, or out of range: "softcap is -2, expected 0 (off) or a number above 0".
std::string check_positive(double v, const std::string& name, bool zero_allowed) {
    std::ostringstream out;
    out << name << " is ";
    if (std::isnan(v)) out << "NaN";
    else if (std::isinf(v)) out << (v > 0 ? "infinite" : "-infinite");
    else if (v > Limits::max_abs_value) out << v << ", more than 1e6";
    else if (v < 0 || (v == 0 && !zero_allowed)) out << v;
    else return {};
    out << (zero_allowed ? ", expected 0 (off) or a number above 0" : ", expected a number above 0");
    return out.str();
}

} // namespace

std::string check_scale_factor(double v, const std::string& name) { return check_positive(v, name, false); }
std::string check_softcap(double v, const std::string& name) { return check_positive(v, name, true); }

std::string check_unit_interval(double v, const std::string& name) {
    if (v >= 0.0 && v <= 1.0) return {};
    std::ostringstream out;
    out << name << " is ";
    if (std::isnan(v)) out << "NaN";
    else out << v;
    out << ", expected a number from 0 to 1";
    return out.str();
}

const char* rule_name(AttentionRule rule) {
    switch (rule) {
    case AttentionRule::linear: return "linear";
    case AttentionRule::delta: return "delta";
    case AttentionRule::softmax: break;
    }
    return "softmax";
}

std::optional<AttentionRule> rule_of_name(const std::string& name) {
    for (AttentionRule r : {AttentionRule::softmax, AttentionRule::linear, AttentionRule::delta})
        if (name == rule_name(r)) return r;
    return std::nullopt;
}

namespace {

// Direct Q, K, V: every head's three matrices have n rows; Q and K share d_k, V has d_v.
std::string validate_direct(const Scenario& s) {
    std::ostringstream out;
    if (s.X.size() != 0) return "X is given together with Q, K and V; give one or the other";
    if (s.positional == Positional::sinusoidal) return "positional encoding needs X (Q, K and V are given directly)";
    const Eigen::Index n = s.heads[0].Q.rows(), d_k = s.heads[0].Q.cols(), d_v = s.heads[0].V.cols();
    if (auto e = check_token_rows("Q", n, s.tokens.size()); !e.empty()) return e;
    for (size_t h = 0; h < s.heads.size(); ++h) {
        const Head& head = s.heads[h];
        if (head.W_Q.size() || head.W_K.size() || head.W_V.size())
            return (s.heads.size() == 1 ? "" : "heads[" + std::to_string(h) + "].") + "W_Q/W_K/W_V are given together with Q, K and V";
        const std::string e = check_head(s, h,
                                         {{head.Q, "Q", d_k, "d_k, the width of Q"}, {head.K, "K", d_k, "d_k, the width of Q"},
                                          {head.V, "V", d_v, "d_v, the width of V"}},
                                         n, "the number of tokens");
        if (!e.empty()) return e;
    }
    if (s.W_O.size() != 0) {
        const Eigen::Index concat_width = static_cast<Eigen::Index>(s.heads.size()) * d_v;
        if (s.W_O.cols() > Limits::max_dim) return "W_O has more columns than the limit of " + std::to_string(Limits::max_dim);
        if (auto e = check_shape(s.W_O, "W_O", concat_width, "heads × d_v", s.W_O.cols(), ""); !e.empty()) return e;
        if (auto e = check_entries(s.W_O, "W_O"); !e.empty()) return e;
    }
    return {};
}

std::string validate_pin(const Scenario& s) {
    std::ostringstream out;
    const QueryPin& p = *s.pin;
    if (p.head < 0 || p.head >= static_cast<int>(s.heads.size())) {
        out << "pin.head is " << p.head << ", expected 0.." << s.heads.size() - 1;
        return out.str();
    }
    if (p.row < 0 || p.row >= s.n()) {
        out << "pin.row is " << p.row << ", expected 0.." << s.n() - 1;
        return out.str();
    }
    if (p.q.size() != s.d_k()) {
        out << "pin.q has " << p.q.size() << " entries, expected " << s.d_k() << " (d_k)";
        return out.str();
    }
    Matrix q_row = p.q.transpose();
    return check_entries(q_row, "pin.q");
}

std::string validate_projected(const Scenario& s);

} // namespace

std::string validate(const Scenario& s) {
    std::string e;
    if (!s.direct) e = validate_projected(s);
    else if (s.heads.empty()) e = "Q, K and V are missing";
    else if (s.heads.size() > static_cast<size_t>(Limits::max_heads))
        e = "heads has " + std::to_string(s.heads.size()) + " entries, more than the limit of " + std::to_string(Limits::max_heads);
    else e = validate_direct(s);
    if (e.empty() && s.pin) e = validate_pin(s);
    if (e.empty() && s.window < 0) e = "window is " + std::to_string(s.window) + ", expected 0 (off) or a width of at least 1";
    if (e.empty() && s.scale == ScoreScale::custom) e = check_scale_factor(s.scale_factor, "scale");
    if (e.empty()) e = check_softcap(s.softcap, "softcap");
    if (e.empty()) e = check_unit_interval(s.beta, "beta");
    if (e.empty()) e = check_unit_interval(s.decay, "decay");
    return e;
}

namespace {

// X and per-head W_Q, W_K, W_V.
std::string validate_projected(const Scenario& s) {
    std::ostringstream out;
    const Eigen::Index n = s.X.rows(), d_model = s.X.cols();
    if (n < 1 || n > Limits::max_tokens) return check_token_rows("X", n, s.tokens.size());
    if (d_model < 1) return "X has no columns (d_model must be at least 1)";
    if (d_model > Limits::max_dim) {
        out << "X has " << d_model << " columns, more than the limit of " << Limits::max_dim;
        return out.str();
    }
    if (auto e = check_token_rows("X", n, s.tokens.size()); !e.empty()) return e;
    if (auto e = check_entries(s.X, "X"); !e.empty()) return e;
    if (s.heads.empty()) return "heads is empty (at least one head is needed)";
    if (s.heads.size() > static_cast<size_t>(Limits::max_heads)) {
        out << "heads has " << s.heads.size() << " entries, more than the limit of " << Limits::max_heads;
        return out.str();
    }
    const Eigen::Index d_k = s.heads[0].W_Q.cols(), d_v = s.heads[0].W_V.cols();
    for (size_t h = 0; h < s.heads.size(); ++h) {
        const Head& head = s.heads[h];
        const char* why_k = h == 0 ? "d_k, the width of W_Q" : "d_k, the width of heads[0].W_Q";
        const char* why_v = "d_v, the width of heads[0].W_V";
        const std::string e =
            check_head(s, h, {{head.W_Q, "W_Q", d_k, why_k}, {head.W_K, "W_K", d_k, why_k}, {head.W_V, "W_V", d_v, why_v}}, d_model, "the width of X");
        if (!e.empty()) return e;
    }
    const Eigen::Index concat_width = static_cast<Eigen::Index>(s.heads.size()) * d_v;
    if (s.W_O.size() != 0) {
        if (auto e = check_shape(s.W_O, "W_O", concat_width, "heads × d_v", d_model, "d_model, the width of X"); !e.empty())
            return e;
        if (auto e = check_entries(s.W_O, "W_O"); !e.empty()) return e;
    }
    for (const Head& head : s.heads)
        if (head.Q.size() || head.K.size() || head.V.size()) return "Q, K and V are given together with X and the W's; give one or the other";
    return {};
}

} // namespace

void require_valid(const Scenario& s) {
    if (auto e = validate(s); !e.empty()) throw ScenarioError(e);
}

} // namespace core
