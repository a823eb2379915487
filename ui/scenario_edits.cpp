#include "ui/scenario_edits.h"

#include <algorithm>

namespace ui::edit {

namespace {

int clamp_dim(int d) { return std::clamp(d, 1, core::Limits::max_dim); }

// Keeps the top-left corner, fills the rest with zeros.
void resize_keep(core::Matrix& m, Eigen::Index rows, Eigen::Index cols) {
    core::Matrix out = core::Matrix::Zero(rows, cols);
    const Eigen::Index r = std::min(rows, m.rows()), c = std::min(cols, m.cols());
    out.topLeftCorner(r, c) = m.topLeftCorner(r, c);
    m = std::move(out);
}

} // namespace

std::string unused_token_name(const core::Scenario& s) {
    for (int k = s.n() + 1;; ++k) {
        std::string name = "t" + std::to_string(k);
        if (std::find(s.tokens.begin(), s.tokens.end(), name) == s.tokens.end()) return name;
    }
}

void add_token(core::Scenario& s, const std::string& name) {
    if (s.n() >= core::Limits::max_tokens) return;
    resize_keep(s.X, s.X.rows() + 1, s.X.cols());
    s.tokens.push_back(name);
}

bool remove_token(core::Scenario& s, int row) {
    const int n = s.n();
    if (n <= 1 || row < 0 || row >= n) return false;
    core::Matrix X(n - 1, s.X.cols());
    X.topRows(row) = s.X.topRows(row);
    X.bottomRows(n - 1 - row) = s.X.bottomRows(n - 1 - row);
    s.X = std::move(X);
    s.tokens.erase(s.tokens.begin() + row);
    if (s.pin) {
        if (s.pin->row == row) s.pin.reset();
        else if (s.pin->row > row) --s.pin->row;
    }
    return true;
}

bool move_token(core::Scenario& s, int row, int by) {
    const int other = row + by;
    if (row < 0 || row >= s.n() || other < 0 || other >= s.n() || row == other) return false;
    s.X.row(row).swap(s.X.row(other));
    std::swap(s.tokens[row], s.tokens[other]);
    // The pin belongs to a token, so it moves with it.
    if (s.pin) {
        if (s.pin->row == row) s.pin->row = other;
        else if (s.pin->row == other) s.pin->row = row;
    }
    return true;
}

void set_d_model(core::Scenario& s, int d_model) {
    d_model = clamp_dim(d_model);
    resize_keep(s.X, s.X.rows(), d_model);
    for (core::Head& h : s.heads) {
        resize_keep(h.W_Q, d_model, h.W_Q.cols());
        resize_keep(h.W_K, d_model, h.W_K.cols());
        resize_keep(h.W_V, d_model, h.W_V.cols());
    }
    if (s.W_O.size() != 0) resize_keep(s.W_O, s.W_O.rows(), d_model);
}

void set_d_k(core::Scenario& s, int d_k) {
    d_k = clamp_dim(d_k);
    for (core::Head& h : s.heads) {
        resize_keep(h.W_Q, h.W_Q.rows(), d_k);
        resize_keep(h.W_K, h.W_K.rows(), d_k);
    }
    if (s.pin) {
        core::Vector q = core::Vector::Zero(d_k);
        const Eigen::Index keep = std::min<Eigen::Index>(d_k, s.pin->q.size());
        q.head(keep) = s.pin->q.head(keep);
        s.pin->q = std::move(q);
    }
}

void set_d_v(core::Scenario& s, int d_v) {
    d_v = clamp_dim(d_v);
    const int old = s.d_v();
    for (core::Head& h : s.heads) resize_keep(h.W_V, h.W_V.rows(), d_v);
    if (s.W_O.size() == 0) return;
    // W_O stacks one block of d_v rows per head: resize each block, not the whole matrix.
    const Eigen::Index heads = static_cast<Eigen::Index>(s.heads.size());
    core::Matrix W_O = core::Matrix::Zero(heads * d_v, s.W_O.cols());
    const int keep = std::min(old, d_v);
    for (Eigen::Index h = 0; h < heads; ++h) W_O.middleRows(h * d_v, keep) = s.W_O.middleRows(h * old, keep);
    s.W_O = std::move(W_O);
}

} // namespace ui::edit
