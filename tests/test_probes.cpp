// Head scores, the probe sequence, rollout, the query–key view, the Jensen–Shannon divergence and the
// prompt loss: on matrices worked by hand, and against NumPy references written here.
#include "core/heads/compare.h"
#include "core/heads/probe.h"
#include "core/heads/qk_view.h"
#include "core/heads/rollout.h"
#include "core/heads/scores.h"

#include "core/io/npy.h"
#include "core/random.h"
#include "tests/array_files.h"
#include "tests/python.h"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace {

using core::Matrix;
using core::heads::MatrixF;

void write_npy(const std::string& path, const Matrix& m) {
    core::io::Tensor t;
    t.shape = {m.rows(), m.cols()};
    t.values.assign(m.data(), m.data() + m.size());
    fixtures::write_npy(path, t);
}

void write_ids(const std::string& path, const std::vector<int>& ids) {
    core::io::Tensor t;
    t.shape = {static_cast<std::int64_t>(ids.size())};
    t.values.assign(ids.begin(), ids.end());
    t.dtype = core::io::DType::i64;
    fixtures::write_npy(path, t);
}

// Row-wise softmax of random scores, causal or not: a plausible attention map (t, t).
Matrix random_attention(core::NumpyRng& rng, int t, bool causal, double spread) {
    Matrix A = rng.normal(t, t) * spread;
    for (int i = 0; i < t; ++i) {
        const int n = causal ? i + 1 : t;
        A.row(i).head(n) = (A.row(i).head(n).array() - A.row(i).head(n).maxCoeff()).exp();
        A.row(i).tail(t - n).setZero();
        A.row(i) /= A.row(i).sum();
    }
    return A;
}

Matrix causal_softmax(const Matrix& Q, const Matrix& K) {
    Matrix S = Q * K.transpose() / std::sqrt(static_cast<double>(Q.cols())); // (t, t)
    for (Eigen::Index i = 0; i < S.rows(); ++i) {
        auto row = S.row(i).head(i + 1);
        row = (row.array() - row.maxCoeff()).exp().matrix();
        row /= row.sum();
        S.row(i).tail(S.cols() - i - 1).setZero();
    }
    return S;
}

} // namespace

TEST_CASE("probes: the four scores of a hand-made head, worked by hand") {
    // tokens 5 7 5 7 9: rows 3 and 4 (from 1) repeat a token; their induction keys are 2 and 3.
    const std::vector<int> ids = {5, 7, 5, 7, 9};
    const Matrix A = core::rows({{1.0, 0, 0, 0, 0},
                                 {0.4, 0.6, 0, 0, 0},
                                 {0.2, 0.5, 0.3, 0, 0},
                                 {0.1, 0.6, 0.2, 0.1, 0},
                                 {0.2, 0.2, 0.2, 0.2, 0.2}});
    const core::heads::HeadScores s = core::heads::head_scores(A, core::heads::score_index(ids));
    REQUIRE(s.previous);
    REQUIRE(s.duplicate);
    REQUIRE(s.induction);
    CHECK(*s.previous == doctest::Approx((0.4 + 0.5 + 0.2 + 0.2) / 4));
    CHECK(*s.duplicate == doctest::Approx((0.2 + 0.6) / 2));
    CHECK(*s.induction == doctest::Approx((0.5 + 0.2) / 2));
    REQUIRE(s.sink); // rows 2 … 5 on position 1
    CHECK(*s.sink == doctest::Approx((0.4 + 0.2 + 0.1 + 0.2) / 4));
    auto h = [](double p) { return -p * std::log(p); };
    const double rows_entropy = 0.0 + (h(0.4) + h(0.6)) + (h(0.2) + h(0.5) + h(0.3)) + (2 * h(0.1) + h(0.6) + h(0.2)) + std::log(5.0);
    CHECK(s.entropy == doctest::Approx(rows_entropy / 5));

    // The same map in float gives the same scores to float precision.
    const MatrixF Af = A.cast<float>();
    const core::heads::HeadScores f = core::heads::head_scores(Af, core::heads::score_index(ids));
    CHECK(*f.induction == doctest::Approx(*s.induction).epsilon(1e-6));
    CHECK(f.entropy == doctest::Approx(s.entropy).epsilon(1e-6));
}

TEST_CASE("probes: a token seen three times sums its earlier copies — no repeat leaves the scores empty, not 0") {
    // 3 3 3: row 2 has duplicate key 1 and no induction key (j must be < i and ≥ 2); row 3 has
    // duplicate keys 1, 2 and induction key 2.
    const Matrix A = core::rows({{1.0, 0, 0}, {0.3, 0.7, 0}, {0.1, 0.3, 0.6}});
    const core::heads::HeadScores s = core::heads::head_scores(A, core::heads::score_index({3, 3, 3}));
    CHECK(*s.duplicate == doctest::Approx((0.3 + (0.1 + 0.3)) / 2));
    CHECK(*s.induction == doctest::Approx(0.3));
    CHECK(*s.previous == doctest::Approx((0.3 + 0.3) / 2));

    const core::heads::HeadScores none = core::heads::head_scores(A, core::heads::score_index({1, 2, 3}));
    CHECK_FALSE(none.duplicate.has_value());
    CHECK_FALSE(none.induction.has_value());
    CHECK(none.previous.has_value());
    const core::heads::HeadScores one = core::heads::head_scores(core::rows({{1.0}}), core::heads::score_index({4}));
    CHECK_FALSE(one.previous.has_value());
    CHECK(one.entropy == 0.0);
    CHECK_THROWS_AS(core::heads::head_scores(A, core::heads::score_index({1, 2})), std::invalid_argument);
}

TEST_CASE("probes: the probe is m distinct ids twice after BOS, the draw NumPy's default_rng gives") {
    const std::vector<int> ids = core::heads::probe_sequence(25, 7, 50, {0, 49, 13}, 49);
    REQUIRE(ids.size() == 51);
    CHECK(ids[0] == 49);
    for (int k = 0; k < 25; ++k) {
        CHECK(ids[static_cast<size_t>(1 + k)] == ids[static_cast<size_t>(26 + k)]);
        CHECK(ids[static_cast<size_t>(1 + k)] != 0);
        CHECK(ids[static_cast<size_t>(1 + k)] != 13);
        CHECK(ids[static_cast<size_t>(1 + k)] != 49);
        for (int j = 0; j < k; ++j) CHECK(ids[static_cast<size_t>(1 + j)] != ids[static_cast<size_t>(1 + k)]);
    }
    CHECK(core::heads::probe_sequence(25, 7, 50, {0, 49, 13}, 49) == ids);
    CHECK(core::heads::probe_sequence(25, 8, 50, {0, 49, 13}, 49) != ids);
    CHECK(core::heads::probe_sequence(3, 1, 64).size() == 6);
    CHECK_THROWS_AS(core::heads::probe_sequence(48, 1, 50, {0, 49, 13}), std::invalid_argument);
    CHECK_THROWS_AS(core::heads::probe_sequence(0, 1, 50), std::invalid_argument);

    // Scores on the probe: a perfect induction head (row i of the repeat looks at i − m + 1).
    const int m = 25, t = 51;
    Matrix A = Matrix::Zero(t, t);
    for (int i = 0; i < t; ++i) A(i, i >= m + 1 ? i - m + 1 : i) = 1.0;
    const core::heads::HeadScores s = core::heads::head_scores(A, core::heads::score_index(ids));
    CHECK(*s.induction == doctest::Approx(1.0));
    CHECK(*s.duplicate == doctest::Approx(0.0));

    const std::string dir = test_python::temp_dir();
    write_ids(dir + "/ids.npy", ids);
    test_python::run_or_skip("import numpy as np, sys\n"
                             "ids = np.load(sys.argv[1] + '/ids.npy')\n"
                             "rng = np.random.default_rng(7)\n"
                             "p = [i for i in range(50) if i not in (0, 49, 13)]\n"
                             "n = len(p)\n"
                             "for k in range(25):\n"
                             "    j = k + int(rng.random() * (n - k)); p[k], p[j] = p[j], p[k]\n"
                             "want = [49] + p[:25] + p[:25]\n"
                             "assert list(ids) == want, (list(ids), want)\n",
                             {dir}, true);
}

TEST_CASE("probes: scores and rollout equal a NumPy reference, causal and bidirectional, across rollout's blocks") {
    core::NumpyRng rng(11);
    const std::string dir = test_python::temp_dir();
    for (const bool causal : {true, false}) {
        const int L = 3, H = 2, t = causal ? 150 : 23;
        const std::string tag = causal ? "causal" : "full";
        std::vector<int> ids;
        for (int i = 0; i < t; ++i) ids.push_back(static_cast<int>(rng.next_double() * 12)); // many repeats
        write_ids(dir + "/" + tag + "_ids.npy", ids);
        const core::heads::ScoreIndex index = core::heads::score_index(ids);
        std::vector<Matrix> means;
        Matrix scores(L * H, 4); // (L·H, 4): previous, duplicate, induction, entropy
        for (int l = 0; l < L; ++l) {
            std::vector<Matrix> heads;
            for (int h = 0; h < H; ++h) {
                heads.push_back(random_attention(rng, t, causal, 1.0 + 2.0 * h));
                write_npy(dir + "/" + tag + "_A" + std::to_string(l) + std::to_string(h) + ".npy", heads.back());
                const core::heads::HeadScores s = core::heads::head_scores(heads.back(), index);
                scores.row(l * H + h) << *s.previous, *s.duplicate, *s.induction, s.entropy;
            }
            means.push_back(core::heads::mean_over_heads(std::vector<core::heads::AttentionRefD>(heads.begin(), heads.end())));
        }
        write_npy(dir + "/" + tag + "_scores.npy", scores);
        write_npy(dir + "/" + tag + "_rollout.npy", core::heads::rollout(means));
        std::vector<MatrixF> means_f;
        for (const Matrix& m : means) means_f.push_back(m.cast<float>());
        write_npy(dir + "/" + tag + "_rollout_f.npy", core::heads::rollout(means_f).cast<double>());
    }
    test_python::run_or_skip(
        "import numpy as np, sys\n"
        "d = sys.argv[1]\n"
        "for tag, L, H in (('causal', 3, 2), ('full', 3, 2)):\n"
        "    ids = np.load(f'{d}/{tag}_ids.npy'); t = len(ids)\n"
        "    R = np.eye(t); want = []\n"
        "    for l in range(L):\n"
        "        As = [np.load(f'{d}/{tag}_A{l}{h}.npy') for h in range(H)]\n"
        "        for A in As:\n"
        "            prev = np.mean([A[i, i - 1] for i in range(1, t)])\n"
        "            dup, ind = [], []\n"
        "            for i in range(t):\n"
        "                js = [j for j in range(i) if ids[j] == ids[i]]\n"
        "                if js: dup.append(A[i, js].sum())\n"
        "                ks = [j for j in range(1, i) if ids[j - 1] == ids[i]]\n"
        "                if ks: ind.append(A[i, ks].sum())\n"
        "            P = np.where(A > 0, A, 1.0)\n"
        "            ent = -(A * np.log(P)).sum(axis=1).mean()\n"
        "            want.append([prev, np.mean(dup), np.mean(ind), ent])\n"
        "        hat = np.mean(As, axis=0) + np.eye(t)\n"
        "        hat = hat / hat.sum(axis=1, keepdims=True)\n"
        "        R = hat @ R\n"
        "    got = np.load(f'{d}/{tag}_scores.npy')\n"
        "    assert np.allclose(got, want, rtol=1e-12, atol=1e-12), (tag, got - np.array(want))\n"
        "    assert np.allclose(np.load(f'{d}/{tag}_rollout.npy'), R, rtol=1e-12, atol=1e-14), tag\n"
        "    assert np.allclose(np.load(f'{d}/{tag}_rollout_f.npy'), R, rtol=1e-4, atol=1e-6), tag\n"
        "    assert np.allclose(R.sum(axis=1), 1.0)\n",
        {dir}, true);
}

TEST_CASE("probes: the query-key view's moves leave every softmax row and every q·k as they were") {
    core::NumpyRng rng(3);
    const int t = 9, d = 6;
    const Matrix Q = rng.normal(t, d) * 3.0 + Matrix::Constant(t, d, 2.0); // (t, d)
    const Matrix K = rng.normal(t, d) * 0.5 - Matrix::Constant(t, d, 1.0); // (t, d)
    const core::heads::QKView v = core::heads::query_key_view(Q, K);
    CHECK((causal_softmax(v.queries, v.keys) - causal_softmax(Q, K)).cwiseAbs().maxCoeff() <= 1e-12);
    // The translation alone changes q·k by q_i·c in row i; α and 1/α change nothing more.
    const Matrix shifted = K.rowwise() + v.key_shift;
    CHECK((v.queries * v.keys.transpose() - Q * shifted.transpose()).cwiseAbs().maxCoeff() <= 1e-12 * (Q * shifted.transpose()).cwiseAbs().maxCoeff());
    CHECK((shifted.colwise().mean() - Q.colwise().mean()).cwiseAbs().maxCoeff() <= 1e-12);
    CHECK(v.queries.rowwise().norm().mean() == doctest::Approx(v.keys.rowwise().norm().mean()).epsilon(1e-12));
    CHECK(v.alpha != doctest::Approx(1.0));

    // The plane of query 4 and its top key keeps their dot product exactly.
    Eigen::Index top = 0;
    causal_softmax(Q, K).row(4).maxCoeff(&top);
    const core::heads::QKView p = core::heads::query_key_view(Q, K, core::heads::QKPlane::query_and_key, 4, static_cast<int>(top));
    CHECK(p.query_points.row(4).dot(p.key_points.row(top)) == doctest::Approx(p.queries.row(4).dot(p.keys.row(top))).epsilon(1e-12));
    CHECK((p.basis.transpose() * p.basis - Eigen::Matrix2d::Identity()).cwiseAbs().maxCoeff() <= 1e-12);
    CHECK(p.variance_kept > 0.0);
    CHECK(p.variance_kept <= v.variance_kept + 1e-12); // no plane keeps more than the principal one
    CHECK_THROWS_AS(core::heads::query_key_view(Q, K, core::heads::QKPlane::query_and_key, 9, 0), std::invalid_argument);
    CHECK_THROWS_AS(core::heads::query_key_view(Q, Matrix(t, d + 1)), std::invalid_argument);

    const std::string dir = test_python::temp_dir();
    write_npy(dir + "/q.npy", v.queries);
    write_npy(dir + "/k.npy", v.keys);
    write_npy(dir + "/basis.npy", v.basis);
    write_npy(dir + "/kept.npy", core::rows({{v.variance_kept, p.variance_kept}}));
    write_npy(dir + "/pbasis.npy", p.basis);
    test_python::run_or_skip("import numpy as np, sys\n"
                             "d = sys.argv[1]\n"
                             "U = np.vstack([np.load(d + '/q.npy'), np.load(d + '/k.npy')])\n"
                             "C = U - U.mean(axis=0)\n"
                             "s = np.linalg.svd(C, compute_uv=False) ** 2\n"
                             "kept, pkept = np.load(d + '/kept.npy')[0]\n"
                             "assert abs(kept - s[:2].sum() / s.sum()) < 1e-12, (kept, s[:2].sum() / s.sum())\n"
                             "_, _, Vt = np.linalg.svd(C)\n"
                             "B = np.load(d + '/basis.npy')\n"
                             "assert np.allclose(np.abs(Vt[:2] @ B), np.eye(2), atol=1e-9)\n"
                             "P = np.load(d + '/pbasis.npy')\n"
                             "assert abs(pkept - ((C @ P) ** 2).sum() / (C ** 2).sum()) < 1e-12\n",
                             {dir}, true);
}

TEST_CASE("probes: Jensen-Shannon divergence per row, and the loss on a prompt, by hand") {
    const Matrix P = core::rows({{1.0, 0.0}, {0.5, 0.5}, {0.2, 0.2}, {0.0, 0.0}});
    const Matrix Q = core::rows({{0.0, 1.0}, {0.5, 0.5}, {0.9, 0.1}, {0.5, 0.5}});
    const Eigen::VectorXd js = core::heads::js_divergence_rows(P, Q);
    CHECK(js(0) == doctest::Approx(std::log(2.0)));
    CHECK(js(1) == doctest::Approx(0.0));
    // Row 3: P scaled to (½, ½) against (0.9, 0.1); M = (0.7, 0.3).
    const double kl_p = 0.5 * std::log(0.5 / 0.7) + 0.5 * std::log(0.5 / 0.3);
    const double kl_q = 0.9 * std::log(0.9 / 0.7) + 0.1 * std::log(0.1 / 0.3);
    CHECK(js(2) == doctest::Approx(0.5 * (kl_p + kl_q)));
    CHECK(std::isnan(js(3)));
    CHECK_THROWS_AS(core::heads::js_divergence_rows(P, Matrix(3, 2)), std::invalid_argument);

    // Logits of 3 tokens over a vocabulary of 3; tokens 2 0 1: row 1 scores 0, row 2 scores 1.
    const Matrix logits = core::rows({{1.0, 2.0, 0.0}, {0.0, 0.0, 3.0}, {5.0, 5.0, 5.0}});
    const double row1 = std::log(std::exp(1.0) + std::exp(2.0) + 1.0) - 1.0;
    const double row2 = std::log(2.0 + std::exp(3.0)) - 0.0;
    const std::optional<double> loss = core::heads::prompt_loss(logits, {2, 0, 1});
    REQUIRE(loss);
    CHECK(*loss == doctest::Approx((row1 + row2) / 2));
    const MatrixF logits_f = logits.cast<float>();
    CHECK(*core::heads::prompt_loss(logits_f, {2, 0, 1}) == doctest::Approx(*loss).epsilon(1e-6));
    CHECK_FALSE(core::heads::prompt_loss(logits.topRows(1), {2}).has_value());
    CHECK_THROWS_AS(core::heads::prompt_loss(logits, {2, 0, 3}), std::invalid_argument);
    CHECK_THROWS_AS(core::heads::prompt_loss(logits, {2, 0}), std::invalid_argument);
}

TEST_CASE("probes: a forward's (layers, heads, t, t) attention gives each head's scores and the rollout of its layers' means") {
    core::NumpyRng rng(5);
    const int L = 2, H = 3, t = 70;
    const std::vector<int> ids = core::heads::probe_sequence(t / 2, 2, 40);
    const core::heads::ScoreIndex index = core::heads::score_index(ids);
    std::vector<float> stack;                       // (L, H, t, t)
    std::vector<MatrixF> heads, means;
    for (int l = 0; l < L; ++l) {
        for (int h = 0; h < H; ++h) {
            heads.push_back(random_attention(rng, t, true, 2.0).cast<float>());
            stack.insert(stack.end(), heads.back().data(), heads.back().data() + heads.back().size());
        }
        means.push_back(core::heads::mean_over_heads(std::vector<core::heads::AttentionRefF>(heads.end() - H, heads.end())));
    }
    const std::vector<core::heads::HeadScores> all = core::heads::all_head_scores(stack.data(), L, H, index);
    REQUIRE(all.size() == static_cast<size_t>(L * H));
    for (int k = 0; k < L * H; ++k) {
        const core::heads::HeadScores one = core::heads::head_scores(heads[static_cast<size_t>(k)], index);
        CHECK(*all[static_cast<size_t>(k)].previous == *one.previous);
        CHECK(*all[static_cast<size_t>(k)].duplicate == *one.duplicate);
        CHECK(*all[static_cast<size_t>(k)].induction == *one.induction);
        CHECK(all[static_cast<size_t>(k)].entropy == one.entropy);
    }
    CHECK((core::heads::rollout(stack.data(), L, H, t) - core::heads::rollout(means)).cwiseAbs().maxCoeff() == 0.0f);
}
