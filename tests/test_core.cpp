// Core attention against the numbers the three-token article prints and against a plain-loop reference.
#include "core/attention.h"
#include "core/decoder.h"
#include "core/explain.h"
#include "core/kernels.h"
#include "core/presets.h"
#include "reference.h"

#include <doctest/doctest.h>

using core::Matrix;
using core::rows;

namespace {

// Every entry within `tol` of the printed value; masked (−∞) entries must match exactly.
void check_close(const Matrix& actual, const Matrix& expected, double tol) {
    REQUIRE(actual.rows() == expected.rows());
    REQUIRE(actual.cols() == expected.cols());
    for (Eigen::Index r = 0; r < actual.rows(); ++r)
        for (Eigen::Index c = 0; c < actual.cols(); ++c) {
            INFO("entry (" << r << ", " << c << ")");
            if (std::isinf(expected(r, c))) CHECK(actual(r, c) == expected(r, c));
            else CHECK(std::abs(actual(r, c) - expected(r, c)) <= tol);
        }
}

void check_close(const Matrix& actual, const reference::Grid& expected, double tol) {
    Matrix e(static_cast<Eigen::Index>(expected.size()), static_cast<Eigen::Index>(expected[0].size()));
    for (Eigen::Index r = 0; r < e.rows(); ++r)
        for (Eigen::Index c = 0; c < e.cols(); ++c) e(r, c) = expected[r][c];
    check_close(actual, e, tol);
}

void check_against_reference(const core::Scenario& s, double tol) {
    const core::Result r = core::compute(s);
    const auto X = reference::grid(s.X);
    reference::Grid concat(s.n());
    for (size_t h = 0; h < s.heads.size(); ++h) {
        const auto ref = reference::attention_head(X, s.heads[h], s.causal, s.scale == core::ScoreScale::inv_sqrt_d_k);
        check_close(r.heads[h].Q, ref.Q, tol);
        check_close(r.heads[h].K, ref.K, tol);
        check_close(r.heads[h].V, ref.V, tol);
        check_close(r.heads[h].scores, ref.scores, tol);
        check_close(r.heads[h].scaled, ref.scaled, tol);
        check_close(r.heads[h].weights, ref.weights, tol);
        check_close(r.heads[h].output, ref.output, tol);
        for (int i = 0; i < s.n(); ++i) concat[i].insert(concat[i].end(), ref.output[i].begin(), ref.output[i].end());
    }
    check_close(r.concat, concat, tol);
    check_close(r.output, s.W_O.size() ? reference::matmul(concat, reference::grid(s.W_O)) : concat, tol);
}

} // namespace

TEST_CASE("the cat sat: Q, K, V, QKᵀ, scaled scores, A and Z as printed") {
    const core::Scenario s = core::preset_three_tokens();
    const core::Result r = core::compute(s);
    const core::HeadResult& h = r.heads.at(0);
    check_close(h.Q, rows({{1, 0}, {1, 2}, {2, 2}}), 1e-12);
    check_close(h.K, rows({{2, 0}, {0, 1}, {2, 1}}), 1e-12);
    check_close(h.V, rows({{1, 0}, {0, 2}, {1, 2}}), 1e-12);
    check_close(h.scores, rows({{2, 0, 2}, {2, 2, 4}, {4, 2, 6}}), 1e-12);
    CHECK(r.score_factor == doctest::Approx(1 / 1.414).epsilon(1e-3));
    check_close(h.scaled, rows({{1.414, 0.000, 1.414}, {1.414, 1.414, 2.828}, {2.828, 1.414, 4.243}}), 1e-3);
    check_close(h.weights, rows({{0.446, 0.108, 0.446}, {0.164, 0.164, 0.673}, {0.187, 0.045, 0.768}}), 1e-3);
    check_close(h.output, rows({{0.892, 1.108}, {0.836, 1.673}, {0.955, 1.627}}), 1e-3);
    // One head and no W_O: the final output is the head's output.
    check_close(r.output, h.output, 0.0);
}

TEST_CASE("the cat sat with the causal mask: the → 1, cat → 0.5 0.5, sat unchanged") {
    core::Scenario s = core::preset_three_tokens();
    const Matrix unmasked = core::compute(s).heads[0].weights;
    s.causal = true;
    const core::Result r = core::compute(s);
    const Matrix& A = r.heads[0].weights;
    CHECK(A(0, 0) == 1.0);
    CHECK(A(0, 1) == 0.0);
    CHECK(A(0, 2) == 0.0);
    CHECK(A(1, 0) == doctest::Approx(0.5).epsilon(1e-12));
    CHECK(A(1, 1) == doctest::Approx(0.5).epsilon(1e-12));
    CHECK(A(1, 2) == 0.0);
    check_close(A.row(2), unmasked.row(2), 1e-15);
    CHECK(std::isinf(r.heads[0].scaled(0, 1)));
    CHECK(r.heads[0].scaled(0, 1) < 0);
}

TEST_CASE("matches the plain-loop reference to 1e-12") {
    SUBCASE("the cat sat") { check_against_reference(core::preset_three_tokens(), 1e-12); }
    SUBCASE("the cat sat, causal, unscaled") {
        core::Scenario s = core::preset_three_tokens();
        s.causal = true;
        s.scale = core::ScoreScale::none;
        check_against_reference(s, 1e-12);
    }
    SUBCASE("NumPy example") { check_against_reference(core::preset_numpy_random(), 1e-12); }
    SUBCASE("random, d_k ≠ d_v ≠ d_model") { check_against_reference(core::random_scenario(core::Shape{}.with_tokens(9).with_d_model(5).with_d_k(3).with_d_v(4), 7), 1e-12); }
}

TEST_CASE("multi-head, with and without W_O, against loops") {
    SUBCASE("three heads, no W_O") { check_against_reference(core::random_scenario(core::Shape{}.with_tokens(6).with_d_model(4).with_d_k(3).with_d_v(2).with_heads(3), 11), 1e-12); }
    SUBCASE("three heads with W_O, causal") {
        core::Scenario s = core::random_scenario(core::Shape{}.with_tokens(6).with_d_model(4).with_d_k(3).with_d_v(2).with_heads(3).with_W_O(), 12);
        s.causal = true;
        check_against_reference(s, 1e-12);
    }
    SUBCASE("one head with W_O") { check_against_reference(core::random_scenario(core::Shape{}.with_tokens(5).with_width(3).with_W_O(), 13), 1e-12); }
    SUBCASE("the 8-head preset") {
        const core::Scenario s = core::preset_eight_heads();
        CHECK(s.heads.size() == 8);
        CHECK(s.d_model() == 512);
        CHECK(s.d_k() == 64);
        CHECK(s.n() == 16);
        check_against_reference(s, 1e-10);
    }
}

TEST_CASE("softmax stays finite with scores of ±1e4, rows sum to 1, masked weights are exactly 0") {
    core::Scenario s = core::preset_three_tokens();
    s.scale = core::ScoreScale::none;
    s.X = rows({{100, 0}, {0, 100}, {-100, 100}});
    s.heads[0].W_Q = rows({{1, 0}, {0, 1}});
    s.heads[0].W_K = rows({{1, 0}, {0, 1}}); // scores are ±1e4 and 2e4
    for (bool causal : {false, true}) {
        s.causal = causal;
        const core::Result r = core::compute(s);
        CHECK(r.heads[0].scores.cwiseAbs().maxCoeff() >= 1e4);
        const Matrix& A = r.heads[0].weights;
        CHECK(A.allFinite());
        for (int i = 0; i < 3; ++i) {
            CHECK(A.row(i).sum() == doctest::Approx(1.0).epsilon(1e-15));
            for (int j = 0; j < 3; ++j) {
                CHECK(A(i, j) >= 0.0);
                if (causal && j > i) CHECK(A(i, j) == 0.0);
            }
        }
        CHECK(A(0, 0) == doctest::Approx(1.0)); // 1e4 against 0 and −1e4: one winner
    }
}

TEST_CASE("the written-out calculation of \"sat\" follows the three-token article") {
    const core::Scenario s = core::preset_three_tokens();
    const core::RowExplanation e = core::explain_row(s, core::compute(s), core::find_row(s, "sat"));
    REQUIRE(e.heads.size() == 1);
    const core::HeadExplanation& h = e.heads[0];
    REQUIRE(h.keys.size() == 3);
    CHECK(h.keys[0].score == "q_sat · k_the = 2·2 + 2·0 = 4");
    CHECK(h.keys[1].score == "q_sat · k_cat = 2·0 + 2·1 = 2");
    CHECK(h.keys[2].score == "q_sat · k_sat = 2·2 + 2·1 = 6");
    CHECK(h.keys[0].scaled == "4 / √2 = 2.828");
    CHECK(h.keys[0].exp == "e^2.828 ≈ 16.92");
    CHECK(h.keys[1].exp == "e^1.414 ≈ 4.113");
    CHECK(h.keys[2].exp == "e^4.243 ≈ 69.59");
    CHECK(h.exp_sum == "Σ ≈ 90.62");
    CHECK(h.keys[0].weight == "w_the = 16.92 / 90.62 = 0.187");
    CHECK(h.keys[1].weight == "w_cat = 4.113 / 90.62 = 0.045");
    CHECK(h.keys[2].weight == "w_sat = 69.59 / 90.62 = 0.768");
    CHECK(h.weighted_sum == "z_sat = 0.187·(1, 0) + 0.045·(0, 2) + 0.768·(1, 2) = (0.955, 1.627)");
    CHECK(e.final_output.empty());

    const std::string text = core::to_text(e);
    for (const char* piece : {"q_sat · k_the = 2·2 + 2·0 = 4", "4 / √2 = 2.828", "e^2.828 ≈ 16.92", "Σ ≈ 90.62",
                              "= 0.187", "= 0.045", "= 0.768", "(0.955, 1.627)"})
        CHECK_MESSAGE(text.find(piece) != std::string::npos, piece);
}

TEST_CASE("the written-out calculation states masked keys and gives one section per head") {
    core::Scenario s = core::preset_three_tokens();
    s.causal = true;
    const auto cat = core::explain_row(s, core::compute(s), 1);
    CHECK(cat.heads[0].keys[2].masked);
    CHECK(cat.heads[0].keys[2].weight == "w_sat = 0 (masked)");
    CHECK(cat.heads[0].keys[0].weight.find("= 0.500") != std::string::npos);
    CHECK(cat.heads[0].weighted_sum == "z_cat = 0.500·(1, 0) + 0.500·(0, 2) = (0.500, 1)");

    const core::Scenario multi = core::random_scenario(core::Shape{}.with_tokens(4).with_d_model(4).with_d_k(2).with_d_v(2).with_heads(3).with_W_O(), 5);
    const auto e = core::explain_row(multi, core::compute(multi), 0);
    CHECK(e.heads.size() == 3);
    CHECK(e.heads[2].title.rfind("Head 3 · ", 0) == 0);
    CHECK(e.final_output.rfind("output = concat · W_O = (", 0) == 0);
}

TEST_CASE("exponentials of large scores are written relative to the row maximum") {
    core::Scenario s = core::preset_three_tokens();
    s.X *= 1000; // scores in the millions: e^s would overflow
    const auto e = core::explain_row(s, core::compute(s), 2);
    CHECK_FALSE(e.heads[0].shift_note.empty());
    CHECK(e.heads[0].keys[2].exp.find("≈ 1") != std::string::npos); // the maximum: e^0 = 1
    CHECK(core::to_text(e).find("inf") == std::string::npos);
}

TEST_CASE("number formatting: integers plainly, the rest to 3 decimals") {
    CHECK(core::format_number(4) == "4");
    CHECK(core::format_number(-2) == "-2");
    CHECK(core::format_number(-0.0) == "0");
    CHECK(core::format_number(2.8284271) == "2.828");
    CHECK(core::format_number(0.5) == "0.500");
    CHECK(core::format_number(-0.0001) == "0.000");
}

TEST_CASE("find_row takes a 1-based index or the first token with that name") {
    core::Scenario s = core::preset_it_sentence();
    CHECK(core::find_row(s, "it") == 4);
    CHECK(core::find_row(s, "1") == 0);
    CHECK(core::find_row(s, "7") == 6);
    CHECK(core::find_row(s, "0") == -1);
    CHECK(core::find_row(s, "8") == -1);
    CHECK(core::find_row(s, "dog") == -1);
    CHECK(core::find_row(s, "99999999999999999999") == -1);
}

TEST_CASE("the cat ate preset: \"it\" attends most to \"cat\"") {
    const core::Scenario s = core::preset_it_sentence();
    const core::Result r = core::compute(s);
    Eigen::Index best = -1;
    r.heads[0].weights.row(core::find_row(s, "it")).maxCoeff(&best);
    CHECK(s.tokens[best] == "cat");
}

TEST_CASE("a pinned query replaces that row of Q and nothing else") {
    core::Scenario s = core::preset_three_tokens();
    const core::Result before = core::compute(s);
    s.pin = core::QueryPin{0, 2, core::Vector::Zero(2)};
    const core::Result r = core::compute(s);
    CHECK(r.heads[0].Q.row(2).isZero(0));
    check_close(r.heads[0].Q.topRows(2), before.heads[0].Q.topRows(2), 0);
    for (int j = 0; j < 3; ++j) CHECK(r.heads[0].weights(2, j) == doctest::Approx(1.0 / 3)); // q = 0: equal weights
}

TEST_CASE("KV-cache decoding equals the causal computation") {
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        const int n = 1 + int(seed * 7 % 13), heads = 1 + int(seed % 3);
        core::Scenario s = core::random_scenario(core::Shape{}.with_tokens(n).with_d_model(3 + int(seed % 4)).with_d_k(2 + int(seed % 3)).with_d_v(1 + int(seed % 5)).with_heads(heads).with_W_O(seed % 2 == 0), seed);
        if (seed % 3 == 0) s.positional = core::Positional::sinusoidal;
        s.scale = seed % 4 != 1 ? core::ScoreScale::inv_sqrt_d_k : core::ScoreScale::none;
        CAPTURE(seed);
        core::Scenario causal = s;
        causal.causal = true;
        const core::Result full = core::compute(causal);
        const auto steps = core::decode_all(s); // decoding is causal whatever the flag says
        REQUIRE(steps.size() == size_t(n));
        long long without = 0;
        for (int t = 1; t <= n; ++t) {
            const core::DecodeStep& st = steps[t - 1];
            CHECK(st.t == t);
            CHECK(st.token == s.tokens[t - 1]);
            CHECK(st.new_kv_rows == 1);
            CHECK(st.kv_rows_without_cache == t);
            without += t;
            for (int h = 0; h < heads; ++h) {
                REQUIRE(st.weights[h].size() == t);
                for (int j = 0; j < t; ++j) CHECK(std::abs(st.weights[h](j) - full.heads[h].weights(t - 1, j)) <= 1e-12);
            }
            for (Eigen::Index c = 0; c < full.output.cols(); ++c) CHECK(std::abs(st.output(c) - full.output(t - 1, c)) <= 1e-12);
        }
        core::Decoder d(s);
        while (!d.done()) d.step();
        CHECK(d.kv_rows_with_cache() == n);
        CHECK(d.kv_rows_without_cache() == without);
        CHECK(d.cache_bytes_per_head() == n * (s.d_k() + s.d_v()) * 8LL);
    }
}

TEST_CASE("sinusoidal positions: PE(0) = (0, 1, 0, 1, …) and they change the outputs") {
    const Matrix pe = core::sinusoidal_positions(3, 4);
    check_close(pe.row(0), rows({{0, 1, 0, 1}}), 0);
    CHECK(pe(1, 0) == doctest::Approx(std::sin(1.0)));
    CHECK(pe(1, 2) == doctest::Approx(std::sin(1.0 / 100.0)));
    core::Scenario s = core::preset_three_tokens();
    const Matrix plain = core::compute(s).output;
    s.positional = core::Positional::sinusoidal;
    CHECK_FALSE(core::compute(s).output.isApprox(plain));
}

TEST_CASE("limits: every broken rule is an error naming the field") {
    auto error_of = [](const core::Scenario& s) { return core::validate(s); };
    core::Scenario s = core::preset_three_tokens();
    CHECK(error_of(s).empty());
    SUBCASE("wrong W_Q rows") {
        s.heads[0].W_Q = Matrix::Zero(3, 2);
        CHECK(error_of(s) == "W_Q has 3 rows, expected 2 (the width of X)");
    }
    SUBCASE("W_K width differs from W_Q") {
        s.heads[0].W_K = Matrix::Zero(2, 3);
        CHECK(error_of(s) == "W_K has 3 columns, expected 2 (d_k, the width of W_Q)");
    }
    SUBCASE("NaN") {
        s.X(1, 0) = std::nan("");
        CHECK(error_of(s) == "X[1][0] is NaN");
    }
    SUBCASE("huge") {
        s.heads[0].W_V(0, 1) = 2e6;
        CHECK(error_of(s) == "W_V[0][1] is 2e+06, outside ±1e6");
    }
    SUBCASE("too many heads") {
        s.heads.assign(17, s.heads[0]);
        CHECK(error_of(s).find("heads has 17 entries") == 0);
    }
    SUBCASE("token names") {
        s.tokens.pop_back();
        CHECK(error_of(s) == "tokens has 2 names, expected 3 (the rows of X)");
    }
    SUBCASE("W_O shape") {
        s.W_O = Matrix::Zero(3, 2);
        CHECK(error_of(s) == "W_O has 3 rows, expected 2 (heads × d_v)");
    }
    SUBCASE("too many tokens") {
        s.X = Matrix::Zero(4097, 2);
        s.tokens.assign(4097, "t");
        CHECK(error_of(s).find("X has 4097 rows, more than the limit of 4096") == 0);
    }
    SUBCASE("compute refuses") {
        s.X(0, 0) = INFINITY;
        CHECK_THROWS_AS(core::compute(s), core::ScenarioError);
    }
}

namespace {

// Same shape and exactly the same entries (−∞ equals −∞).
bool identical(const Matrix& a, const Matrix& b) { return a.rows() == b.rows() && a.cols() == b.cols() && a == b; }

bool identical(const core::Result& a, const core::Result& b) {
    if (a.heads.size() != b.heads.size() || a.score_factor != b.score_factor) return false;
    for (size_t h = 0; h < a.heads.size(); ++h) {
        const core::HeadResult &x = a.heads[h], &y = b.heads[h];
        if (!identical(x.Q, y.Q) || !identical(x.K, y.K) || !identical(x.V, y.V) || !identical(x.scores, y.scores) ||
            !identical(x.scaled, y.scaled) || !identical(x.weights, y.weights) || !identical(x.output, y.output))
            return false;
    }
    return identical(a.X_in, b.X_in) && identical(a.concat, b.concat) && identical(a.output, b.output);
}

} // namespace

TEST_CASE("every kernel build matches the plain-loop reference, on one thread and shared between threads") {
    const std::string before = core::kernel_build();
    REQUIRE(!core::kernel_builds().empty());
    CHECK(core::kernel_builds().back() == "generic");
    CHECK_FALSE(core::use_kernel_build("no-such-build"));
    CHECK(core::kernel_build() == before);
    // 300 tokens: past the 256 where row blocks are shared between threads, with a shorter last
    // block, and widths that are not multiples of any SIMD width.
    core::Scenario big = core::random_scenario(core::Shape{}.with_tokens(300).with_d_model(16).with_d_k(12).with_d_v(10).with_heads(2).with_W_O(), 21);
    core::Scenario big_causal = big;
    big_causal.causal = true;
    big_causal.scale = core::ScoreScale::none;
    for (const std::string& build : core::kernel_builds()) {
        CAPTURE(build);
        REQUIRE(core::use_kernel_build(build));
        CHECK(core::kernel_build() == build);
        check_against_reference(core::preset_three_tokens(), 1e-12);
        check_against_reference(core::random_scenario(core::Shape{}.with_tokens(9).with_d_model(5).with_d_k(3).with_d_v(4), 7), 1e-12);
        check_against_reference(big, 1e-12);
        check_against_reference(big_causal, 1e-12);
    }
    REQUIRE(core::use_kernel_build(before));
}

TEST_CASE("compute_into reusing one Result gives exactly what compute gives on a fresh one, size after size") {
    core::Scenario causal = core::random_scenario(core::Shape{}.with_tokens(257).with_width(8), 3);
    causal.causal = true;
    core::Scenario pinned = core::random_scenario(core::Shape{}.with_tokens(300).with_d_model(6).with_d_k(4).with_d_v(5).with_heads(2).with_W_O(), 4);
    pinned.pin = core::QueryPin{1, 299, core::Vector::Constant(4, 0.5)};
    pinned.positional = core::Positional::sinusoidal;
    const std::vector<core::Scenario> sequence = {
        core::random_scenario(core::Shape{}.with_tokens(300).with_width(16), 1), // big first: smaller ones reuse its storage
        core::preset_three_tokens(),
        core::random_scenario(core::Shape{}.with_tokens(5).with_d_model(3).with_d_k(2).with_d_v(4).with_heads(3).with_W_O(), 2),
        causal,
        pinned,
        core::random_scenario(core::Shape{}.with_tokens(300).with_width(16), 1), // back to the first size
        core::preset_eight_heads(),
        core::preset_three_tokens(),
    };
    core::Result reused;
    for (size_t k = 0; k < sequence.size(); ++k) {
        CAPTURE(k);
        core::compute_into(sequence[k], reused);
        CHECK(identical(reused, core::compute(sequence[k])));
    }
    CHECK(reused.heads.size() == 1); // the last scenario has one head: no stale heads left behind
}
