#include "core/explain.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace core {

namespace {

constexpr Eigen::Index max_terms_shown = 8;   // products in one dot product, entries in one vector
constexpr Eigen::Index max_values_shown = 16; // terms in the weighted sum of values
constexpr double max_plain_exponent = 50.0;   // beyond this e^s is shown relative to the row maximum

std::string format_significant(double x) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", x);
    return buf;
}

std::string parenthesised(double x) {
    std::string s = format_number(x);
    return x < 0 && s != "0" && s != "0.000" ? "(" + s + ")" : s;
}

std::string dot_products(const Matrix& Q, const Matrix& K, Eigen::Index i, Eigen::Index j) {
    const Eigen::Index d = Q.cols();
    std::string out;
    auto term = [&](Eigen::Index c) { return parenthesised(Q(i, c)) + "·" + parenthesised(K(j, c)); };
    if (d <= max_terms_shown) {
        for (Eigen::Index c = 0; c < d; ++c) out += (c ? " + " : "") + term(c);
    } else {
        out = term(0) + " + " + term(1) + " + " + term(2) + " + … + " + term(d - 1) + " (" + std::to_string(d) + " terms)";
    }
    return out;
}

// "/ √2", "× 0.0625", or "" when scores are not scaled.
std::string scale_text(const Scenario& s) {
    if (s.scale == ScoreScale::inv_sqrt_d_k) return "/ √" + format_number(static_cast<double>(s.d_k()));
    if (s.scale == ScoreScale::custom) return "× " + format_significant(s.scale_factor);
    return {};
}

// Key j's scaled score: "4 / √2 = 2.828", then the soft-cap "→ 50·tanh(2.828 / 50) = 2.825".
std::string scaled_line(const Scenario& s, const HeadResult& hr, Eigen::Index i, Eigen::Index j) {
    std::string out;
    double x = hr.scores(i, j);
    if (s.scale != ScoreScale::none) {
        x *= s.score_factor();
        out = format_number(hr.scores(i, j)) + " " + scale_text(s) + " = " + format_number(x);
    }
    if (s.softcap_in_use() > 0.0) {
        const std::string cap = format_significant(s.softcap);
        out += (out.empty() ? "" : " → ") + cap + "·tanh(" + format_number(x) + " / " + cap + ") = " + format_number(hr.scaled(i, j));
    }
    return out;
}

// Why key j is hidden from query i, for the line of its scaled score.
std::string masked_line(const Scenario& s, Eigen::Index i, Eigen::Index j) {
    const std::string& qi = s.tokens[static_cast<std::size_t>(i)];
    const std::string& kj = s.tokens[static_cast<std::size_t>(j)];
    if (!outside_window(s, i, j)) return "masked (k_" + kj + " comes after q_" + qi + "): −∞";
    return "outside the sliding window (k_" + kj + " is " + std::to_string(std::abs(i - j)) + " positions " +
           (j < i ? "before" : "after") + " q_" + qi + ", the window is " + std::to_string(s.window) + "): −∞";
}

// The rules of the row's scaled scores: "scores / √2, soft-capped: 50·tanh(x / 50), causal mask, sliding window of 3: keys 2 … 4";
// empty for the articles' rules (1/√d_k or none, causal or not), which the lines show as they are.
std::string setup_line(const Scenario& s, Eigen::Index i) {
    if (s.scale != ScoreScale::custom && s.softcap_in_use() == 0.0 && s.window_in_use() == 0) return {};
    std::string out = s.scale == ScoreScale::none ? "scores not scaled" : "scores " + scale_text(s);
    if (s.scale == ScoreScale::custom) out += " (instead of / √" + format_number(static_cast<double>(s.d_k())) + ")";
    if (s.softcap_in_use() > 0.0) {
        const std::string cap = format_significant(s.softcap);
        out += ", soft-capped: " + cap + "·tanh(x / " + cap + ") keeps them within ±" + cap;
    }
    if (s.causal) out += ", causal mask";
    if (s.window_in_use() > 0) {
        const KeyRange keys = visible_keys(s, i);
        out += ", sliding window of " + std::to_string(s.window) + ": keys " + std::to_string(keys.lo + 1) + " … " +
               std::to_string(keys.hi) + " visible";
    }
    return out;
}

} // namespace

std::string logit_formula(const Scenario& s, const std::string& scores) {
    std::string x = s.scale == ScoreScale::none ? scores : scores + " " + scale_text(s);
    if (s.softcap_in_use() > 0.0) {
        const std::string cap = format_significant(s.softcap);
        return cap + "·tanh(" + x + " / " + cap + ")";
    }
    return s.scale == ScoreScale::none ? scores + " (not scaled)" : x;
}

std::string softmax_argument(const Scenario& s) {
    if (s.softcap_in_use() <= 0.0 && s.scale == ScoreScale::inv_sqrt_d_k) return "QKᵀ / √d_k";
    if (s.softcap_in_use() <= 0.0 && s.scale == ScoreScale::none) return "QKᵀ";
    return logit_formula(s, "QKᵀ");
}

std::string mask_description(const Scenario& s) {
    const std::string window = s.window_in_use() > 0 ? "outside a sliding window of " + std::to_string(s.window) : "";
    if (s.sees_only_past()) return "masked: −∞ above the diagonal" + (window.empty() ? "" : " and " + window);
    return window.empty() ? "" : "masked: −∞ " + window;
}

std::string format_number(double x) {
    if (std::isinf(x)) return x > 0 ? "∞" : "−∞";
    if (std::isnan(x)) return "NaN";
    char buf[64];
    if (std::abs(x) < 1e15 && x == std::round(x)) std::snprintf(buf, sizeof buf, "%.0f", x == 0 ? 0.0 : x);
    else std::snprintf(buf, sizeof buf, "%.3f", x);
    std::string s = buf;
    return s == "-0.000" ? "0.000" : s;
}

std::string format_vector(const double* v, Eigen::Index size) {
    std::string out = "(";
    const Eigen::Index shown = size <= max_terms_shown ? size : 3;
    for (Eigen::Index c = 0; c < shown; ++c) out += (c ? ", " : "") + format_number(v[c]);
    if (shown < size) out += ", …, " + format_number(v[size - 1]) + "; " + std::to_string(size) + " entries";
    return out + ")";
}

int find_row(const Scenario& s, const std::string& row) {
    for (int i = 0; i < s.n(); ++i)
        if (s.tokens[i] == row) return i;
    if (row.empty() || row.find_first_not_of("0123456789") != std::string::npos || row.size() > 9) return -1;
    const int index = std::stoi(row);
    return index >= 1 && index <= s.n() ? index - 1 : -1;
}

namespace {

// Softmax: each visible key's score, its exponential (after the row maximum when scores are large)
// and its weight, the exponential over their sum.
void softmax_keys(const Scenario& s, const HeadResult& hr, Eigen::Index i, HeadExplanation& he) {
    const Eigen::Index n = s.n();
    const std::string& qi = s.tokens[static_cast<size_t>(i)];
    // Exponentials: plain e^s when small enough to read, otherwise relative to the row maximum,
    // which is what the softmax computes anyway and leaves the weights unchanged.
    double top = -INFINITY;
    for (Eigen::Index j = 0; j < n; ++j)
        if (!is_masked(s, i, j)) top = std::max(top, hr.scaled(i, j));
    const double shift = top > max_plain_exponent ? top : 0.0;
    if (shift != 0.0)
        he.shift_note = "scores are large, so each exponential is taken after subtracting the row maximum " +
                        format_number(shift) + " (the weights are the same)";
    double sum = 0.0;
    for (Eigen::Index j = 0; j < n; ++j)
        if (!is_masked(s, i, j)) sum += std::exp(hr.scaled(i, j) - shift);
    const std::string sum_text = format_significant(sum);
    for (Eigen::Index j = 0; j < n; ++j) {
        KeyLine k;
        k.key = static_cast<int>(j);
        k.masked = is_masked(s, i, j);
        const std::string& kj = s.tokens[static_cast<size_t>(j)];
        k.score = "q_" + qi + " · k_" + kj + " = " + dot_products(hr.Q, hr.K, i, j) + " = " + format_number(hr.scores(i, j));
        if (k.masked) {
            k.scaled = masked_line(s, i, j);
            k.exp = "e^−∞ = 0";
            k.weight = "w_" + kj + " = 0 (masked)";
        } else {
            k.scaled = scaled_line(s, hr, i, j);
            const double ex = std::exp(hr.scaled(i, j) - shift);
            const std::string exponent = shift != 0.0 ? "(" + format_number(hr.scaled(i, j)) + " − " + format_number(shift) + ")"
                                                      : format_number(hr.scaled(i, j));
            k.exp = "e^" + exponent + " ≈ " + format_significant(ex);
            k.weight = "w_" + kj + " = " + format_significant(ex) + " / " + sum_text + " = " + format_number(hr.weights(i, j));
        }
        he.keys.push_back(std::move(k));
    }
    he.exp_sum = "Σ ≈ " + sum_text;
}

// Linear attention: the same scores, and each weight the scaled score itself.
void linear_keys(const Scenario& s, const HeadResult& hr, Eigen::Index i, HeadExplanation& he) {
    const std::string& qi = s.tokens[static_cast<size_t>(i)];
    he.rule_line = "linear attention: no softmax, each weight m is the scaled score as it is (it can be negative, "
                   "and a row need not add up to 1)";
    for (Eigen::Index j = 0; j < s.n(); ++j) {
        KeyLine k;
        k.key = static_cast<int>(j);
        k.masked = is_masked(s, i, j);
        const std::string& kj = s.tokens[static_cast<size_t>(j)];
        k.score = "q_" + qi + " · k_" + kj + " = " + dot_products(hr.Q, hr.K, i, j) + " = " + format_number(hr.scores(i, j));
        k.scaled = k.masked ? masked_line(s, i, j) : scaled_line(s, hr, i, j);
        k.weight = "m_" + kj + " = " + (k.masked ? std::string("0 (masked)") : format_number(hr.weights(i, j)));
        he.keys.push_back(std::move(k));
    }
}

// The delta rule: what each earlier key wrote, what decay and the later erases left of it at the query
// (w_j, from delta_columns), and the query's reading of it.
void delta_keys(const Scenario& s, const HeadResult& hr, Eigen::Index i, HeadExplanation& he) {
    const std::string& qi = s.tokens[static_cast<size_t>(i)];
    const Matrix W = delta_columns(s, hr, static_cast<int>(i)); // (d_k, i + 1)
    he.rule_line = "delta rule, β = " + format_number(s.beta) + ", decay " + format_number(s.decay) +
                   " per step: each key and query is divided by its length" +
                   (s.scale == ScoreScale::none ? "" : ", the query then " + scale_text(s)) + ": q'_" + qi + " = " +
                   format_vector(hr.q_hat.row(i).data(), hr.q_hat.cols()) +
                   ". Each token writes β k' into the state; every later step multiplies what is there by the decay "
                   "and erases β of it along its own key before it writes.";
    for (Eigen::Index j = 0; j < s.n(); ++j) {
        KeyLine k;
        k.key = static_cast<int>(j);
        k.masked = j > i;
        const std::string& kj = s.tokens[static_cast<size_t>(j)];
        if (k.masked) {
            k.score = "k_" + kj + " comes after q_" + qi + ": not written yet";
            k.weight = "m_" + kj + " = 0 (not written yet)";
        } else {
            const Eigen::RowVectorXd written = s.beta * hr.k_hat.row(j); // (d_k)
            const Eigen::RowVectorXd left = W.col(j).transpose();        // (d_k)
            k.score = "k'_" + kj + " = " + format_vector(hr.k_hat.row(j).data(), hr.k_hat.cols()) + ", wrote β k'_" + kj + " = " +
                      format_vector(written.data(), written.size());
            k.scaled = j == i ? "w_" + kj + " = " + format_vector(left.data(), left.size()) + " (just written)"
                              : "w_" + kj + " = " + format_vector(left.data(), left.size()) + " after " + std::to_string(i - j) +
                                    (i - j == 1 ? " step" : " steps") + " of decay and erase";
            Matrix pair(2, left.size()); // (2, d_k) q' over w_j, for the dot product
            pair << hr.q_hat.row(i), left;
            k.weight = "m_" + kj + " = q'_" + qi + " · w_" + kj + " = " + dot_products(pair, pair, 0, 1) + " = " + format_number(hr.weights(i, j));
        }
        he.keys.push_back(std::move(k));
    }
}

} // namespace

StepTitles step_titles(AttentionRule rule) {
    switch (rule) {
    case AttentionRule::linear: return {"1. Scores", nullptr, "2. Weights: the scaled scores as they are", "3. Weighted sum of values"};
    case AttentionRule::delta:
        return {"1. What each token wrote, and what is left of it", nullptr, "2. Weights: the query reads each write",
                "3. Weighted sum of values (= q' S, the state read along the query)"};
    case AttentionRule::softmax: break;
    }
    return {"1. Scores", "2. Exponentials", "3. Weights", "4. Weighted sum of values"};
}

RowExplanation explain_row(const Scenario& s, const Result& r, int i) {
    RowExplanation e;
    e.row = i;
    e.token = s.tokens[i];
    const Eigen::Index n = s.n();
    const std::string& qi = s.tokens[i];
    for (size_t h = 0; h < r.heads.size(); ++h) {
        const HeadResult& hr = r.heads[h];
        HeadExplanation he;
        std::ostringstream title;
        if (r.heads.size() > 1) title << "Head " << h + 1 << " · ";
        title << "query \"" << qi << "\" (row " << i + 1 << ") · d_k = " << s.d_k();
        if (s.pin && s.pin->head == static_cast<int>(h) && s.pin->row == i) title << " · q pinned by the query arrow";
        he.title = title.str();
        he.setup = s.rule == AttentionRule::delta ? std::string() : setup_line(s, i);
        he.rule = s.rule;
        if (s.rule == AttentionRule::softmax) softmax_keys(s, hr, i, he);
        else if (s.rule == AttentionRule::linear) linear_keys(s, hr, i, he);
        else delta_keys(s, hr, i, he);

        std::string terms;
        Eigen::Index shown = 0, skipped = 0;
        for (Eigen::Index j = 0; j < n; ++j) {
            if (is_masked(s, i, j)) continue;
            if (shown == max_values_shown) { ++skipped; continue; }
            terms += (shown ? " + " : "") + parenthesised(hr.weights(i, j)) + "·" + format_vector(hr.V.row(j).data(), hr.V.cols());
            ++shown;
        }
        if (skipped) terms += " + … (" + std::to_string(skipped) + " more terms)";
        he.weighted_sum = "z_" + qi + " = " + terms + " = " + format_vector(hr.output.row(i).data(), hr.output.cols());
        e.heads.push_back(std::move(he));
    }
    if (r.heads.size() > 1 || s.W_O.size() != 0) {
        e.final_output = std::string(s.W_O.size() != 0 ? "output = concat · W_O" : "output = concat") + " = " +
                         format_vector(r.output.row(i).data(), r.output.cols());
    }
    return e;
}

std::string to_text(const RowExplanation& e) {
    std::ostringstream out;
    for (size_t h = 0; h < e.heads.size(); ++h) {
        const HeadExplanation& he = e.heads[h];
        const StepTitles titles = step_titles(he.rule);
        if (h) out << "\n";
        out << he.title << "\n";
        if (!he.setup.empty()) out << he.setup << "\n";
        if (!he.rule_line.empty()) out << he.rule_line << "\n";
        out << "\n" << titles.scores << "\n";
        for (const KeyLine& k : he.keys) {
            out << "  " << k.score;
            if (!k.scaled.empty()) out << "    " << k.scaled;
            out << "\n";
        }
        if (titles.exps) {
            out << "\n" << titles.exps << "\n";
            if (!he.shift_note.empty()) out << "  (" << he.shift_note << ")\n";
            for (const KeyLine& k : he.keys) out << "  " << k.exp << "\n";
            out << "  " << he.exp_sum << "\n";
        }
        out << "\n" << titles.weights << "\n";
        for (const KeyLine& k : he.keys) out << "  " << k.weight << "\n";
        out << "\n" << titles.sum << "\n  " << he.weighted_sum << "\n";
    }
    if (!e.final_output.empty()) out << "\n" << e.final_output << "\n";
    return out.str();
}

} // namespace core
