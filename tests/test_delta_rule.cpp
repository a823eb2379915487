// tests/test_delta_rule.cpp — the gated delta rule of a linear attention layer (core/model/delta_rule.h):
// its chunked form against its recurrence, and each head's matrix M against the rule's output
// (o = M v for every head), with sabotaged inputs to M (a wrong β, a decay applied twice) that must
// fail that check; the label a linear layer's row gets in the grid, and its signed thumbnail.
#include "core/heads/scores.h"
#include "core/model/attention_kind.h"
#include "core/model/attention_maps.h"
#include "core/model/delta_rule.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <utility>
#include <vector>

namespace dr = core::model::delta_rule;
using core::heads::MatrixF;

namespace {

// Random q, k (unit rows, q times 1/√dk as the layer makes them), v, β in (0, 1) and g < 0.
struct Random {
    dr::Shape s{2, 4, 8, 8};
    int t;
    MatrixF q, k, v, beta, g;
    explicit Random(int positions, unsigned seed) : t(positions) {
        std::mt19937 rng(seed);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::uniform_real_distribution<float> unit(0.05f, 0.95f);
        auto fill = [&](MatrixF& m, int cols) {
            m.resize(t, cols);
            for (Eigen::Index i = 0; i < m.size(); ++i) m.data()[i] = normal(rng);
        };
        fill(q, s.k_heads * s.d_k), fill(k, s.k_heads * s.d_k), fill(v, s.v_heads * s.d_v);
        for (MatrixF* m : {&q, &k}) {
            Eigen::Map<MatrixF> heads(m->data(), t * s.k_heads, s.d_k); // (t · Hk, dk)
            heads.rowwise().normalize();
        }
        q /= std::sqrt(static_cast<float>(s.d_k));
        beta.resize(t, s.v_heads), g.resize(t, s.v_heads);
        for (Eigen::Index i = 0; i < beta.size(); ++i) beta.data()[i] = unit(rng), g.data()[i] = -unit(rng);
    }
    dr::Inputs inputs(const MatrixF& b, const MatrixF& decay) const { return {q.data(), k.data(), v.data(), b.data(), decay.data(), t}; }
};

// The largest |M v − o| over head h's rows, relative to o's largest entry.
double m_times_v_error(const Random& r, const dr::Inputs& for_m, const MatrixF& o, int h) {
    MatrixF M(r.t, r.t); // (t, t)
    dr::matrix_rows(for_m, r.s, h, 0, r.t, M.data());
    const MatrixF out = o.middleCols(h * r.s.d_v, r.s.d_v), mv = M * r.v.middleCols(h * r.s.d_v, r.s.d_v); // (t, dv) each
    return (mv - out).cwiseAbs().maxCoeff() / out.cwiseAbs().maxCoeff();
}

} // namespace

TEST_CASE("delta rule: the chunked form equals the recurrence, within and across chunks") {
    const Random r(70, 1);
    const MatrixF o = dr::recurrent(r.inputs(r.beta, r.g), r.s); // (t, Hv·dv)
    for (int chunk : {1, 3, 64, 128}) {
        const MatrixF c = dr::chunked(r.inputs(r.beta, r.g), r.s, chunk);
        CHECK((c - o).cwiseAbs().maxCoeff() <= 1e-5f * o.cwiseAbs().maxCoeff());
    }
}

TEST_CASE("delta rule: M times v is each head's output, and M is signed and lower-triangular") {
    const Random r(40, 2);
    const MatrixF o = dr::recurrent(r.inputs(r.beta, r.g), r.s);
    for (int h = 0; h < r.s.v_heads; ++h) CHECK(m_times_v_error(r, r.inputs(r.beta, r.g), o, h) < 1e-5);
    MatrixF M(r.t, r.t);
    dr::matrix_rows(r.inputs(r.beta, r.g), r.s, 1, 0, r.t, M.data());
    CHECK(M.minCoeff() < 0.0f);                                   // the erase takes away
    CHECK(M.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff() == 0.0f);
    MatrixF rows(10, r.t); // rows 25 … 34 alone are the same rows
    dr::matrix_rows(r.inputs(r.beta, r.g), r.s, 1, 25, 35, rows.data());
    CHECK((rows - M.middleRows(25, 10)).cwiseAbs().maxCoeff() == 0.0f);
}

TEST_CASE("delta rule: M streamed in blocks (the forward's scores and thumbnails) is M row by row") {
    const Random r(70, 4);
    MatrixF M(r.t, r.t), streamed = MatrixF::Constant(r.t, r.t, 7.0f); // (t, t)
    dr::matrix_rows(r.inputs(r.beta, r.g), r.s, 3, 0, r.t, M.data());
    int next = 0;
    dr::matrix_blocks(r.inputs(r.beta, r.g), r.s, 3, [&](int i0, int i1, const float* rows) {
        CHECK(i0 == next);
        streamed.middleRows(i0, i1 - i0) = Eigen::Map<const MatrixF>(rows, i1 - i0, r.t);
        next = i1;
    });
    CHECK(next == r.t);
    CHECK((streamed - M).cwiseAbs().maxCoeff() == 0.0f);
}

TEST_CASE("delta rule: M over several chunks is each head's output, and a chunk's rows rebuilt alone are the stream's bits") {
    const Random r(3 * dr::matrix_chunk + 11, 5); // four chunks, the last one short
    const MatrixF o = dr::recurrent(r.inputs(r.beta, r.g), r.s);
    for (int h = 0; h < r.s.v_heads; ++h) CHECK(m_times_v_error(r, r.inputs(r.beta, r.g), o, h) < 1e-5);
    MatrixF streamed(r.t, r.t); // (t, t) every row, chunk after chunk from position 0
    dr::matrix_blocks(r.inputs(r.beta, r.g), r.s, 2, [&](int i0, int i1, const float* rows) {
        streamed.middleRows(i0, i1 - i0) = Eigen::Map<const MatrixF>(rows, i1 - i0, r.t);
    });
    for (const auto& [r0, r1] : {std::pair{150, 170}, std::pair{2 * dr::matrix_chunk, 3 * dr::matrix_chunk}, std::pair{r.t - 3, r.t}}) {
        MatrixF rows(r1 - r0, r.t); // rows of a late chunk (or two), rebuilt from their own chunks' q, k, β and g
        dr::matrix_rows(r.inputs(r.beta, r.g), r.s, 2, r0, r1, rows.data());
        CHECK((rows.array() == streamed.middleRows(r0, r1 - r0).array()).all());
    }
    MatrixF carried(r.t, r.t); // the definition: W carried position by position, M[i, s] = q_i · W_i[:, s]
    {
        const int kh = r.s.key_head(2), dk = r.s.d_k;
        MatrixF W = MatrixF::Zero(r.t, dk); // (t, d_k) row s: column s of W
        for (int i = 0; i < r.t; ++i) {
            const Eigen::RowVectorXf k = r.k.block(i, kh * dk, 1, dk), q = r.q.block(i, kh * dk, 1, dk); // (1, d_k)
            W.topRows(i) *= std::exp(r.g(i, 2));
            const Eigen::VectorXf read = W.topRows(i) * k.transpose(); // (i)
            W.topRows(i) -= r.beta(i, 2) * read * k;
            W.row(i) = r.beta(i, 2) * k;
            carried.row(i) = q * W.transpose();
        }
    }
    CHECK((streamed - carried).cwiseAbs().maxCoeff() < 1e-5f * carried.cwiseAbs().maxCoeff());
}

TEST_CASE("delta rule: an M from a wrong β or a decay applied twice fails the M v check") {
    const Random r(40, 3);
    const MatrixF o = dr::recurrent(r.inputs(r.beta, r.g), r.s);
    const MatrixF beta_squared = r.beta.cwiseProduct(r.beta), twice = 2.0f * r.g;
    for (int h = 0; h < r.s.v_heads; ++h) {
        CHECK(m_times_v_error(r, r.inputs(beta_squared, r.g), o, h) > 1e-2);
        CHECK(m_times_v_error(r, r.inputs(r.beta, twice), o, h) > 1e-2);
    }
}

TEST_CASE("delta rule: a linear layer's row in the grid says so") {
    core::model::AttentionKind k;
    k.linear = true;
    k.rope = false;
    CHECK(core::model::kind_label(k) == "linear · no RoPE");
}

TEST_CASE("delta rule: a signed map's thumbnail keeps its signs, scaled by its largest |block|") {
    float blocks[4] = {-2.0f, 1.0f, 0.5f, 0.0f}; // (2, 2)
    core::model::thumbnail_finish(blocks, 2);
    CHECK(blocks[0] == -1.0f);
    CHECK(blocks[1] == 0.5f);
    CHECK(blocks[2] == 0.25f);
}

TEST_CASE("head scores of a linear head: no entropy and no sink share, so never the best of either, while its other scores stay") {
    const core::heads::ScoreIndex index = core::heads::score_index({5, 6, 5, 6});
    const float M[16] = {0.5f, 0, 0, 0, -0.2f, 0.4f, 0, 0, 0.1f, 0.3f, 0.6f, 0, -0.1f, 0.2f, 0.3f, 0.7f}; // (4, 4) signed
    core::heads::ScoreRows rows(index);
    rows.add(M, 0, 4, 4);
    const core::heads::HeadScores linear = rows.finish(nullptr);
    CHECK(linear.signed_rows);
    CHECK_FALSE(linear.sink.has_value());
    CHECK_FALSE(core::heads::score_value(linear, core::heads::Score::entropy).has_value());
    REQUIRE(linear.previous.has_value());
    CHECK(*linear.previous == doctest::Approx((-0.2 + 0.3 + 0.3) / 3).epsilon(1e-6));

    const float A[16] = {1, 0, 0, 0, 0.5f, 0.5f, 0, 0, 0.2f, 0.3f, 0.5f, 0, 0.1f, 0.2f, 0.3f, 0.4f}; // (4, 4) softmax rows
    const float entropy[4] = {0.0f, 0.69f, 1.03f, 1.28f};
    core::heads::ScoreRows soft(index);
    soft.add(A, 0, 4, 4);
    const std::vector<core::heads::HeadScores> both = {linear, soft.finish(entropy)};
    CHECK(core::heads::best_head(both, core::heads::Score::entropy) == 1); // the linear head's 0 is no entropy
    CHECK(core::heads::best_head(both, core::heads::Score::sink) == 1);
    CHECK(core::heads::best_head(both, core::heads::Score::previous) == 1);
}
