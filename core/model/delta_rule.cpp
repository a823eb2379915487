// core/model/delta_rule.cpp — the gated delta rule and its matrix (delta_rule.h).
#include "core/model/delta_rule.h"

#include <algorithm>
#include <cmath>

namespace core::model::delta_rule {

namespace {

using RowMap = Eigen::Map<const Eigen::RowVectorXf>;
using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Head h's rows of q or k (t, d_k), v (t, d_v), and its β and g (t), copied out of the layer's rows.
struct Head {
    Matrix q, k, v;
    Eigen::VectorXf beta, g;
};

Head head_of(const Inputs& in, const Shape& s, int h, bool with_values) {
    const int kh = s.key_head(h), qk_row = s.k_heads * s.d_k, v_row = s.v_heads * s.d_v;
    Head x{Matrix(in.t, s.d_k), Matrix(in.t, s.d_k), Matrix(with_values ? in.t : 0, s.d_v), Eigen::VectorXf(in.t), Eigen::VectorXf(in.t)};
    for (int i = 0; i < in.t; ++i) {
        x.q.row(i) = RowMap(in.q + static_cast<std::ptrdiff_t>(i) * qk_row + kh * s.d_k, s.d_k);
        x.k.row(i) = RowMap(in.k + static_cast<std::ptrdiff_t>(i) * qk_row + kh * s.d_k, s.d_k);
        if (with_values) x.v.row(i) = RowMap(in.v + static_cast<std::ptrdiff_t>(i) * v_row + h * s.d_v, s.d_v);
        x.beta(i) = in.beta[static_cast<std::ptrdiff_t>(i) * s.v_heads + h];
        x.g(i) = in.g[static_cast<std::ptrdiff_t>(i) * s.v_heads + h];
    }
    return x;
}

void put_head(const Matrix& o, const Shape& s, int h, MatrixF& out) { // o (t, d_v) into out's columns of head h
    out.middleCols(h * s.d_v, s.d_v) = o;
}

// One chunk [c0, c0 + n) of a head, the state S (d_k, d_v) carried in and out: the UT form of the
// n steps, as the chunked kernel writes it.
void chunk_step(const Head& x, int c0, int n, Matrix& S, Matrix& o) {
    Eigen::VectorXf cum(n); // (n) log of the decay from the chunk's start to each position
    for (int i = 0; i < n; ++i) cum(i) = (i ? cum(i - 1) : 0.0f) + x.g(c0 + i);
    Matrix decay = Matrix::Zero(n, n); // (n, n) exp(cum_i − cum_j) for j ≤ i
    for (int i = 0; i < n; ++i)
        for (int j = 0; j <= i; ++j) decay(i, j) = std::exp(cum(i) - cum(j));
    const auto q = x.q.middleRows(c0, n), k = x.k.middleRows(c0, n), v = x.v.middleRows(c0, n);
    const Eigen::VectorXf beta = x.beta.segment(c0, n);
    Matrix ut = ((beta.asDiagonal() * k) * k.transpose()).cwiseProduct(decay);  // (n, n) the UT system, unit diagonal taken
    Matrix intra = (q * k.transpose()).cwiseProduct(decay);                     // (n, n)
    Matrix values = beta.asDiagonal() * v;                                       // (n, d_v) β v, solved below
    Matrix keys = (beta.array() * cum.array().exp()).matrix().asDiagonal() * k;  // (n, d_k) β exp(cum) k, solved below
    for (int i = 1; i < n; ++i) // forward substitution with (I + strictly lower part of ut)
        for (int j = 0; j < i; ++j) {
            values.row(i) -= ut(i, j) * values.row(j);
            keys.row(i) -= ut(i, j) * keys.row(j);
        }
    const Matrix v_new = values - keys * S;                                      // (n, d_v) what the chunk writes
    const Matrix q_decayed = cum.array().exp().matrix().asDiagonal() * q;        // (n, d_k)
    o.middleRows(c0, n) = q_decayed * S + intra * v_new;
    const Eigen::VectorXf to_end = (cum(n - 1) - cum.array()).exp().matrix();    // (n) decay from each position to the chunk's end
    S = S * std::exp(cum(n - 1)) + (to_end.asDiagonal() * k).transpose() * v_new;
}

} // namespace

namespace {

// Head h's state (d_k, d_v): from `state` when given, else zeros.
Matrix start_state(const Shape& s, int h, const float* state) {
    if (!state) return Matrix::Zero(s.d_k, s.d_v);
    return Eigen::Map<const Matrix>(state + static_cast<std::ptrdiff_t>(h) * s.d_k * s.d_v, s.d_k, s.d_v);
}

void keep_state(const Shape& s, int h, const Matrix& S, float* state) {
    if (state) Eigen::Map<Matrix>(state + static_cast<std::ptrdiff_t>(h) * s.d_k * s.d_v, s.d_k, s.d_v) = S;
}

} // namespace

MatrixF recurrent(const Inputs& in, const Shape& s, float* state) {
    MatrixF out = MatrixF::Zero(in.t, s.v_heads * s.d_v); // (t, v_heads · d_v)
    for (int h = 0; h < s.v_heads; ++h) {
        const Head x = head_of(in, s, h, true);
        Matrix S = start_state(s, h, state), o(in.t, s.d_v); // (d_k, d_v), (t, d_v)
        for (int i = 0; i < in.t; ++i) {
            step(S, x.k.row(i), x.v.row(i), x.beta(i), std::exp(x.g(i)));
            o.row(i) = x.q.row(i) * S;
        }
        put_head(o, s, h, out);
        keep_state(s, h, S, state);
    }
    return out;
}

MatrixF chunked(const Inputs& in, const Shape& s, int chunk, float* state) {
    MatrixF out = MatrixF::Zero(in.t, s.v_heads * s.d_v); // (t, v_heads · d_v)
    for (int h = 0; h < s.v_heads; ++h) {
        const Head x = head_of(in, s, h, true);
        Matrix S = start_state(s, h, state), o(in.t, s.d_v); // (d_k, d_v), (t, d_v)
        for (int c0 = 0; c0 < in.t; c0 += chunk) chunk_step(x, c0, std::min(chunk, in.t - c0), S, o);
        put_head(o, s, h, out);
        keep_state(s, h, S, state);
    }
    return out;
}

namespace {

// Carries head h's W through positions 0 … r1 − 1 and writes row i of M (i ≥ r0) to row_at(i),
// then calls done(i).
template <class RowAt, class Done>
void carry(const Inputs& in, const Shape& s, int h, int r0, int r1, RowAt row_at, Done done) {
    const Head x = head_of(in, s, h, false);
    Matrix W = Matrix::Zero(std::max(r1, 1), s.d_k); // (r1, d_k) row j: column j of W, what value j's weight is read through
    for (int i = 0; i < r1; ++i) {
        auto earlier = W.topRows(i);                                   // (i, d_k)
        earlier *= std::exp(x.g(i));                                   // the decay
        const Eigen::VectorXf read = earlier * x.k.row(i).transpose(); // (i) what the state held of each value along k_i
        earlier -= x.beta(i) * read * x.k.row(i);                      // the erase: (I − β k kᵀ) on each column
        W.row(i) = x.beta(i) * x.k.row(i);                             // the write of value i
        if (i < r0) continue;
        float* row = row_at(i);
        std::fill(row, row + in.t, 0.0f);
        Eigen::Map<Eigen::RowVectorXf>(row, i + 1) = x.q.row(i) * W.topRows(i + 1).transpose();
        done(i);
    }
}

} // namespace

void matrix_rows(const Inputs& in, const Shape& s, int h, int r0, int r1, float* dst) {
    carry(in, s, h, r0, r1, [&](int i) { return dst + static_cast<std::ptrdiff_t>(i - r0) * in.t; }, [](int) {});
}

void matrix_blocks(const Inputs& in, const Shape& s, int h, int block, const std::function<void(int i0, int i1, const float* rows)>& each) {
    std::vector<float> rows(static_cast<std::size_t>(block) * static_cast<std::size_t>(in.t)); // (block, t)
    carry(
        in, s, h, 0, in.t, [&](int i) { return rows.data() + static_cast<std::ptrdiff_t>(i % block) * in.t; },
        [&](int i) {
            if ((i + 1) % block == 0 || i + 1 == in.t) each(i / block * block, i + 1, rows.data());
        });
}

Split split(const Inputs& in, const Shape& s, int h, int t, int key) {
    Split out;
    if (key > t) return out;
    std::vector<float> row(static_cast<std::size_t>(in.t)); // (t) row t of M
    matrix_rows(in, s, h, t, t + 1, row.data());
    const int kh = h / s.group(), qk_row = s.k_heads * s.d_k;
    const float* q = in.q + static_cast<std::ptrdiff_t>(t) * qk_row + kh * s.d_k;
    const float* k = in.k + static_cast<std::ptrdiff_t>(key) * qk_row + kh * s.d_k;
    for (int c = 0; c < s.d_k; ++c) out.qk += static_cast<double>(q[c]) * k[c];
    double log_decay = 0; // Σ g over the steps after the write, up to t
    for (int r = key + 1; r <= t; ++r) log_decay += in.g[static_cast<std::ptrdiff_t>(r) * s.v_heads + h];
    out.entry = row[static_cast<std::size_t>(key)];
    out.beta = in.beta[static_cast<std::ptrdiff_t>(key) * s.v_heads + h];
    out.decay = std::exp(log_decay);
    out.direct = out.beta * out.qk * out.decay;
    out.correction = out.entry - out.direct;
    return out;
}

MatrixF state(const Inputs& in, const Shape& s, int h, int at) {
    const Head x = head_of(in, s, h, true);
    Matrix S = Matrix::Zero(s.d_k, s.d_v); // (d_k, d_v)
    for (int i = 0; i <= at && i < in.t; ++i) {
        S *= std::exp(x.g(i));
        const Eigen::RowVectorXf delta = x.beta(i) * (x.v.row(i) - x.k.row(i) * S); // (d_v)
        S += x.k.row(i).transpose() * delta;
    }
    return S;
}

} // namespace core::model::delta_rule
