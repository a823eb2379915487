#include "core/edits.h"

#include "core/presets.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace core::edits {

namespace {

int clamp_dim(int d) { return std::clamp(d, 1, Limits::max_dim); }

// Keeps the top-left corner, fills the rest with zeros.
void resize_keep(Matrix& m, Eigen::Index rows, Eigen::Index cols) {
    Matrix out = Matrix::Zero(rows, cols);
    const Eigen::Index r = std::min(rows, m.rows()), c = std::min(cols, m.cols());
    out.topLeftCorner(r, c) = m.topLeftCorner(r, c);
    m = std::move(out);
}

// The matrices with one row per token: X, or every head's Q, K and V when they are given directly.
std::vector<Matrix*> token_rows(Scenario& s) {
    if (!s.direct) return {&s.X};
    std::vector<Matrix*> out;
    for (Head& h : s.heads)
        for (Matrix* m : {&h.Q, &h.K, &h.V}) out.push_back(m);
    return out;
}

// The width of the output without W_O: d_model, or H·d_v when Q, K and V are given.
Eigen::Index output_width(const Scenario& s) {
    return s.direct ? static_cast<Eigen::Index>(s.heads.size()) * s.d_v() : s.d_model();
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] Tokens
//-----------------------------------------------------------------------------

void add_token(Scenario& s, const std::string& name) {
    if (s.n() >= Limits::max_tokens) return;
    for (Matrix* m : token_rows(s)) resize_keep(*m, m->rows() + 1, m->cols());
    s.tokens.push_back(name);
}

std::string unused_token_name(const Scenario& s) {
    for (int k = s.n() + 1;; ++k) {
        std::string name = "t" + std::to_string(k);
        if (std::find(s.tokens.begin(), s.tokens.end(), name) == s.tokens.end()) return name;
    }
}

bool remove_token(Scenario& s, int row) {
    const int n = s.n();
    if (n <= 1 || row < 0 || row >= n) return false;
    for (Matrix* m : token_rows(s)) {
        Matrix kept(n - 1, m->cols()); // (n − 1, width)
        kept.topRows(row) = m->topRows(row);
        kept.bottomRows(n - 1 - row) = m->bottomRows(n - 1 - row);
        *m = std::move(kept);
    }
    s.tokens.erase(s.tokens.begin() + row);
    if (s.pin) {
        if (s.pin->row == row) s.pin.reset();
        else if (s.pin->row > row) --s.pin->row;
    }
    return true;
}

bool rename_token(Scenario& s, int row, std::string name) {
    if (row < 0 || row >= s.n()) return false;
    s.tokens[static_cast<std::size_t>(row)] = std::move(name);
    return true;
}

bool move_token(Scenario& s, int row, int by) {
    const int other = row + by;
    if (row < 0 || row >= s.n() || other < 0 || other >= s.n() || row == other) return false;
    for (Matrix* m : token_rows(s)) m->row(row).swap(m->row(other));
    std::swap(s.tokens[row], s.tokens[other]);
    // The pin belongs to a token, so it moves with it.
    if (s.pin) {
        if (s.pin->row == row) s.pin->row = other;
        else if (s.pin->row == other) s.pin->row = row;
    }
    return true;
}

void permute_tokens(Scenario& s, const std::vector<int>& perm) {
    const Scenario old = s;
    for (Matrix* m : token_rows(s)) {
        const Matrix before = *m;
        for (int i = 0; i < old.n(); ++i) m->row(i) = before.row(perm[i]);
    }
    for (int i = 0; i < old.n(); ++i) {
        s.tokens[i] = old.tokens[perm[i]];
        if (old.pin && old.pin->row == perm[i]) s.pin->row = i;
    }
}

std::vector<int> random_permutation(int n, std::uint64_t seed) {
    std::vector<int> perm(static_cast<size_t>(n));
    std::iota(perm.begin(), perm.end(), 0);
    if (n < 2) return perm;
    std::mt19937_64 rng(seed);
    do {
        for (int i = n - 1; i > 0; --i) std::swap(perm[i], perm[rng() % static_cast<std::uint64_t>(i + 1)]);
    } while (std::is_sorted(perm.begin(), perm.end()));
    return perm;
}

void set_positions(Scenario& s, bool sinusoidal) { s.positional = sinusoidal ? Positional::sinusoidal : Positional::none; }

//-----------------------------------------------------------------------------
// [SECTION] Entries and switches
//-----------------------------------------------------------------------------

namespace {

// The matrix `which` of `s`, const when `s` is: the one place that knows where each matrix lives.
template <class S>
auto find_matrix(S& s, Which which, int head) -> decltype(&s.X) {
    if (which == Which::X) return s.direct ? nullptr : &s.X;
    if (which == Which::W_O) return s.W_O.size() != 0 ? &s.W_O : nullptr;
    if (head < 0 || head >= static_cast<int>(s.heads.size())) return nullptr;
    auto& h = s.heads[static_cast<std::size_t>(head)];
    switch (which) {
    case Which::W_Q: return s.direct ? nullptr : &h.W_Q;
    case Which::W_K: return s.direct ? nullptr : &h.W_K;
    case Which::W_V: return s.direct ? nullptr : &h.W_V;
    case Which::Q: return s.direct ? &h.Q : nullptr;
    case Which::K: return s.direct ? &h.K : nullptr;
    case Which::V: return s.direct ? &h.V : nullptr;
    default: return nullptr;
    }
}

// A number of the scenario set only where its check (core/scenario.h, the one the readers use too)
// finds nothing wrong; false leaves it as it was.
bool set_checked(double& field, double value, std::string (*check)(double, const std::string&), const char* name) {
    if (!check(value, name).empty()) return false;
    field = value;
    return true;
}

} // namespace

const Matrix* matrix_of(const Scenario& s, Which which, int head) { return find_matrix(s, which, head); }

bool set_cell(Scenario& s, Which which, int head, int r, int c, double value) {
    Matrix* m = find_matrix(s, which, head);
    if (!m || r < 0 || c < 0 || r >= m->rows() || c >= m->cols() || !is_acceptable_value(value)) return false;
    (*m)(r, c) = value;
    return true;
}

void set_causal(Scenario& s, bool causal) { s.causal = causal; }
void set_scale(Scenario& s, ScoreScale scale) { s.scale = scale; }

bool set_scale_factor(Scenario& s, double factor) {
    if (!set_checked(s.scale_factor, factor, check_scale_factor, "scale")) return false;
    s.scale = ScoreScale::custom;
    return true;
}

bool set_window(Scenario& s, int window) {
    if (window < 0) return false;
    s.window = window;
    return true;
}

bool set_softcap(Scenario& s, double cap) { return set_checked(s.softcap, cap, check_softcap, "softcap"); }

void set_rule(Scenario& s, AttentionRule rule) { s.rule = rule; }

bool set_beta(Scenario& s, double beta) { return set_checked(s.beta, beta, check_unit_interval, "beta"); }
bool set_decay(Scenario& s, double decay) { return set_checked(s.decay, decay, check_unit_interval, "decay"); }

//-----------------------------------------------------------------------------
// [SECTION] Widths
//-----------------------------------------------------------------------------

void set_d_model(Scenario& s, int d_model) {
    if (s.direct) return; // no X: Q, K and V are the inputs
    d_model = clamp_dim(d_model);
    resize_keep(s.X, s.X.rows(), d_model);
    for (Head& h : s.heads) {
        resize_keep(h.W_Q, d_model, h.W_Q.cols());
        resize_keep(h.W_K, d_model, h.W_K.cols());
        resize_keep(h.W_V, d_model, h.W_V.cols());
    }
    if (s.W_O.size() != 0) resize_keep(s.W_O, s.W_O.rows(), d_model);
}

void set_d_k(Scenario& s, int d_k) {
    d_k = clamp_dim(d_k);
    for (Head& h : s.heads)
        for (Matrix* m : s.direct ? std::vector<Matrix*>{&h.Q, &h.K} : std::vector<Matrix*>{&h.W_Q, &h.W_K}) resize_keep(*m, m->rows(), d_k);
    if (s.pin) {
        Vector q = Vector::Zero(d_k); // (d_k)
        const Eigen::Index keep = std::min<Eigen::Index>(d_k, s.pin->q.size());
        q.head(keep) = s.pin->q.head(keep);
        s.pin->q = std::move(q);
    }
}

void set_d_v(Scenario& s, int d_v) {
    d_v = clamp_dim(d_v);
    const int old = s.d_v();
    for (Head& h : s.heads) {
        Matrix& v = s.direct ? h.V : h.W_V;
        resize_keep(v, v.rows(), d_v);
    }
    if (s.W_O.size() == 0) return;
    // W_O stacks one block of d_v rows per head: resize each block, not the whole matrix.
    const Eigen::Index heads = static_cast<Eigen::Index>(s.heads.size());
    Matrix W_O = Matrix::Zero(heads * d_v, s.W_O.cols()); // (H·d_v, d_model)
    const int keep = std::min(old, d_v);
    for (Eigen::Index h = 0; h < heads; ++h) W_O.middleRows(h * d_v, keep) = s.W_O.middleRows(h * old, keep);
    s.W_O = std::move(W_O);
}

//-----------------------------------------------------------------------------
// [SECTION] Heads and the output projection
//-----------------------------------------------------------------------------

bool add_head(Scenario& s, std::uint64_t seed) {
    if (static_cast<int>(s.heads.size()) >= Limits::max_heads) return false;
    if (s.direct) { // random Q, K, V of unit variance; W_O grows by zero rows: the new head adds nothing yet
        const Scenario donor = numpy_random_qkv(seed, s.n(), std::max(s.d_k(), s.d_v()));
        Head h;
        h.Q = donor.heads[0].Q.leftCols(s.d_k());
        h.K = donor.heads[0].K.leftCols(s.d_k());
        h.V = donor.heads[0].V.leftCols(s.d_v());
        s.heads.push_back(std::move(h));
        if (s.W_O.size() != 0) resize_keep(s.W_O, s.W_O.rows() + s.d_v(), s.W_O.cols());
        return true;
    }
    const Scenario donor = random_scenario(Shape{}.with_tokens(1).with_d_model(s.d_model()).with_d_k(s.d_k()).with_d_v(s.d_v()).with_W_O(s.W_O.size() != 0), seed);
    s.heads.push_back(donor.heads[0]);
    if (s.W_O.size() != 0) {
        Matrix grown(s.W_O.rows() + s.d_v(), s.W_O.cols()); // ((H+1)·d_v, d_model)
        grown << s.W_O, donor.W_O;
        s.W_O = std::move(grown);
    }
    return true;
}

bool remove_head(Scenario& s, int h) {
    if (s.heads.size() <= 1 || h < 0 || h >= static_cast<int>(s.heads.size())) return false;
    const Eigen::Index d_v = s.d_v();
    s.heads.erase(s.heads.begin() + h);
    if (s.W_O.size() != 0) {
        Matrix shrunk(s.W_O.rows() - d_v, s.W_O.cols()); // ((H−1)·d_v, d_model)
        shrunk << s.W_O.topRows(h * d_v), s.W_O.bottomRows(s.W_O.rows() - (h + 1) * d_v);
        s.W_O = std::move(shrunk);
    }
    if (s.pin && s.pin->head == h) s.pin.reset();
    else if (s.pin && s.pin->head > h) --s.pin->head;
    return true;
}

void identity_W_O(Scenario& s) {
    s.W_O = Matrix::Identity(static_cast<Eigen::Index>(s.heads.size()) * s.d_v(), output_width(s)); // (H·d_v, d_model)
}

void random_W_O(Scenario& s, std::uint64_t seed) {
    s.W_O = random_scenario(Shape{}.with_tokens(1).with_d_model(static_cast<int>(output_width(s))).with_d_v(s.d_v()).with_heads(static_cast<int>(s.heads.size())).with_W_O(), seed).W_O; // (H·d_v, d_model)
}

void remove_W_O(Scenario& s) { s.W_O.resize(0, 0); }

//-----------------------------------------------------------------------------
// [SECTION] The pinned query
//-----------------------------------------------------------------------------

void pin_query(Scenario& s, int head, int row, Vector q) {
    for (Eigen::Index k = 0; k < q.size(); ++k) q[k] = std::clamp(q[k], -Limits::max_abs_value, Limits::max_abs_value);
    s.pin = QueryPin{head, row, std::move(q)};
}

void unpin_query(Scenario& s) { s.pin.reset(); }

//-----------------------------------------------------------------------------
// [SECTION] A whole new scenario
//-----------------------------------------------------------------------------

void replace_scenario(Scenario& s, Scenario next) {
    require_valid(next);
    s = std::move(next);
}

} // namespace core::edits
