// core/model/delta_rule.cpp — the gated delta rule and its matrix (delta_rule.h).
#include "core/model/delta_rule.h"

#include "core/model/ops.h"
#include "core/parallel.h"

#include <algorithm>
#include <cmath>

namespace core::model::delta_rule {

namespace {

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
        std::copy_n(in.q + static_cast<std::ptrdiff_t>(i) * qk_row + kh * s.d_k, s.d_k, x.q.data() + static_cast<std::ptrdiff_t>(i) * s.d_k);
        std::copy_n(in.k + static_cast<std::ptrdiff_t>(i) * qk_row + kh * s.d_k, s.d_k, x.k.data() + static_cast<std::ptrdiff_t>(i) * s.d_k);
        if (with_values) std::copy_n(in.v + static_cast<std::ptrdiff_t>(i) * v_row + h * s.d_v, s.d_v, x.v.data() + static_cast<std::ptrdiff_t>(i) * s.d_v);
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

namespace {

// The chunked rule's heads, shared between the cores: each head reads its own columns of the inputs
// and writes its own columns of out and its own state, the same bits whichever core runs it.
struct ChunkedHeads {
    const Inputs* in;
    const Shape* s;
    int chunk;
    float* state;
    MatrixF* out; // (t, v_heads · d_v)
    static void head(void* context, std::ptrdiff_t task) {
        const ChunkedHeads& v = *static_cast<const ChunkedHeads*>(context);
        const int h = static_cast<int>(task), t = v.in->t;
        const Head x = head_of(*v.in, *v.s, h, true);
        Matrix S = start_state(*v.s, h, v.state), o(t, v.s->d_v); // (d_k, d_v), (t, d_v)
        for (int c0 = 0; c0 < t; c0 += v.chunk) chunk_step(x, c0, std::min(v.chunk, t - c0), S, o);
        put_head(o, *v.s, h, *v.out);
        keep_state(*v.s, h, S, v.state);
    }
};

} // namespace

MatrixF chunked(const Inputs& in, const Shape& s, int chunk, float* state) {
    MatrixF out = MatrixF::Zero(in.t, s.v_heads * s.d_v); // (t, v_heads · d_v)
    ChunkedHeads heads{&in, &s, chunk, state, &out};
    core::parallel::for_each(s.v_heads, &ChunkedHeads::head, &heads);
    return out;
}

namespace {

// The build whose gemm M's products of 64 × d_k blocks run on: the kernel level's, but for x86-64-v4's,
// whose oneDNN call cost 5 times the CPU time of x86-64-v3's chain_gemm.h on them (a head's M at
// t = 1024, d_k = 128: 36 against 7 ms).
const ops::Set& small_products() {
    const ops::Set& level = ops::active();
#ifdef ATTNVIZ_X86_KERNELS
    if (&level == ops::x86_64_v4()) return *ops::x86_64_v3();
#endif
    return level;
}

// C = A · B, or A · Bᵀ with b_transposed (+= with accumulate), single-threaded: the same shapes give
// the same bits, wherever the rows were asked from.
void gemm(const ops::Set& on, const Matrix& A, const Matrix& B, bool b_transposed, Matrix& C, bool accumulate) {
    const ops::Index m = A.rows(), k = A.cols(), n = b_transposed ? B.rows() : B.cols();
    if (!accumulate) C.resize(m, n);
    on.gemm({A.data(), k, B.data(), B.cols(), b_transposed, C.data(), n, m, k, n, accumulate}, false);
}

// What M's rows are rebuilt from, for one chunk [c0, c0 + n) of a head, from its own q, k, β and g
// alone (delta_rule.h's UT form). With cum_i the log of the decay from the chunk's start through i,
// F = (I + L)⁻¹ diag(β) for L the strictly lower part of (β_i k_i · k_j e^(cum_i − cum_j)):
//   M on the chunk's own columns = ((q_i · k_j) e^(cum_i − cum_j), j ≤ i) · F;
//   row i of M on the earlier columns = carried_i · W (the columns of W before the chunk, d_k × c0),
//     carried = diag(e^cum) Q − (M's diagonal block) · diag(e^cum) K;
//   W at the chunk's end on its own columns = Kᵀ diag(e^(cum_end − cum)) F (written, transposed);
//   the chunk takes the earlier columns of W through decay · I − written · diag(e^cum) K.
// So a row of a later chunk reads an earlier chunk's columns as r · writtenᵀ, where r is its carried
// row taken back through the chunks between (r ← decay · r + (r · writtenᵀ) · erase).
struct Chunk {
    int c0 = 0, n = 0;
    Matrix diagonal; // (n, n) M on the chunk's own columns, lower-triangular
    Matrix carried;  // (n, d_k) each row's query carried back to the state before the chunk
    Matrix written;  // (n, d_k) row j: column c0 + j of W at the chunk's end
    Matrix erase;    // (n, d_k) −e^(cum_j) k_j
    float decay = 1; // e^(cum_end)
};

Chunk chunk_of(const ops::Set& on, const Head& x, int c0, int n) {
    Chunk c{c0, n, {}, {}, {}, {}, 1.0f};
    Eigen::VectorXf cum(n); // (n)
    for (int i = 0; i < n; ++i) cum(i) = (i ? cum(i - 1) : 0.0f) + x.g(c0 + i);
    const Matrix q = x.q.middleRows(c0, n), k = x.k.middleRows(c0, n); // (n, d_k) each
    Matrix intra, keys, F = Matrix::Zero(n, n);                          // (n, n) each
    gemm(on, q, k, true, intra, false);
    gemm(on, k, k, true, keys, false);
    for (int i = 0; i < n; ++i) { // intra decayed and masked; F by forward substitution
        F(i, i) = x.beta(c0 + i);
        for (int j = 0; j < i; ++j) {
            const float decay = std::exp(cum(i) - cum(j));
            intra(i, j) *= decay;
            F.row(i) -= (x.beta(c0 + i) * keys(i, j) * decay) * F.row(j);
        }
        intra.row(i).tail(n - 1 - i).setZero();
    }
    gemm(on, intra, F, false, c.diagonal, false);
    const Eigen::VectorXf grown = cum.array().exp().matrix(), to_end = (cum(n - 1) - cum.array()).exp().matrix(); // (n) each
    c.erase = -(grown.asDiagonal() * k);
    const Matrix ends = to_end.asDiagonal() * k, Ft = F.transpose(); // (n, d_k), (n, n)
    gemm(on, Ft, ends, false, c.written, false);
    c.carried = grown.asDiagonal() * q;
    gemm(on, c.diagonal, c.erase, false, c.carried, true);
    c.decay = std::exp(cum(n - 1));
    return c;
}

// Head h's chunks of `matrix_chunk` positions from position 0, as far as position `last`.
std::vector<Chunk> chunks_of(const Head& x, int last) {
    const ops::Set& on = small_products();
    std::vector<Chunk> out;
    const int t = static_cast<int>(x.g.size());
    for (int c0 = 0; c0 <= last; c0 += matrix_chunk) out.push_back(chunk_of(on, x, c0, std::min(matrix_chunk, t - c0)));
    return out;
}

// The rows of chunk c into rows ((n, t) row-major), 0 above the diagonal: the chunk's own block, then
// each earlier chunk's columns, the carried rows taken back one chunk at a time.
void chunk_rows(const std::vector<Chunk>& chunks, int c, int t, float* rows) {
    const ops::Set& on = small_products();
    const Chunk& me = chunks[static_cast<std::size_t>(c)];
    Eigen::Map<Matrix> out(rows, me.n, t); // (n, t)
    out.setZero();
    out.middleCols(me.c0, me.n) = me.diagonal;
    Matrix r = me.carried, block; // (n, d_k), (n, n')
    for (int b = c - 1; b >= 0; --b) {
        const Chunk& e = chunks[static_cast<std::size_t>(b)];
        gemm(on, r, e.written, true, block, false);
        out.middleCols(e.c0, e.n) = block;
        if (b == 0) break;
        r *= e.decay;
        gemm(on, block, e.erase, false, r, true);
    }
}

} // namespace

void matrix_rows(const Inputs& in, const Shape& s, int h, int r0, int r1, float* dst) {
    if (r1 <= r0) return;
    const Head x = head_of(in, s, h, false);
    const std::vector<Chunk> chunks = chunks_of(x, r1 - 1);
    std::vector<float> rows; // (matrix_chunk, t) a chunk asked for in part
    for (int c = r0 / matrix_chunk; c < static_cast<int>(chunks.size()); ++c) {
        const int c0 = c * matrix_chunk, c1 = c0 + chunks[static_cast<std::size_t>(c)].n, from = std::max(r0, c0), to = std::min(r1, c1);
        const std::size_t width = static_cast<std::size_t>(in.t);
        if (from == c0 && to == c1) {
            chunk_rows(chunks, c, in.t, dst + static_cast<std::size_t>(c0 - r0) * width);
            continue;
        }
        rows.resize(static_cast<std::size_t>(matrix_chunk) * width);
        chunk_rows(chunks, c, in.t, rows.data());
        std::copy(rows.data() + static_cast<std::size_t>(from - c0) * width, rows.data() + static_cast<std::size_t>(to - c0) * width,
                  dst + static_cast<std::size_t>(from - r0) * width);
    }
}

void matrix_blocks(const Inputs& in, const Shape& s, int h, const std::function<void(int i0, int i1, const float* rows)>& each) {
    if (in.t <= 0) return;
    const Head x = head_of(in, s, h, false);
    const std::vector<Chunk> chunks = chunks_of(x, in.t - 1);
    std::vector<float> rows(static_cast<std::size_t>(matrix_chunk) * static_cast<std::size_t>(in.t)); // (matrix_chunk, t)
    for (int c = 0; c < static_cast<int>(chunks.size()); ++c) {
        chunk_rows(chunks, c, in.t, rows.data());
        each(c * matrix_chunk, c * matrix_chunk + chunks[static_cast<std::size_t>(c)].n, rows.data());
    }
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
