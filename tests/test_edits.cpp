// core::edits: every structural edit keeps the scenario valid, moves the pin with its token or
// head, and keeps what was there (new entries are 0).
#include "core/attention.h"
#include "core/edits.h"
#include "core/presets.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

namespace edits = core::edits;

TEST_CASE("scenario edits keep every shape and the pin consistent") {
    core::Scenario s = core::preset_eight_heads();
    s.tokens.resize(16);
    s.pin = core::QueryPin{2, 5, core::Vector::Ones(64)};
    edits::set_d_model(s, 20);
    CHECK(core::validate(s) == "");
    CHECK(s.W_O.cols() == 20);
    edits::set_d_v(s, 3);
    CHECK(core::validate(s) == "");
    CHECK(s.W_O.rows() == 24);
    edits::set_d_k(s, 5);
    CHECK(core::validate(s) == "");
    CHECK(s.pin->q.size() == 5);
    CHECK(edits::move_token(s, 5, 1));
    CHECK(s.pin->row == 6);
    CHECK(edits::remove_token(s, 0));
    CHECK(s.pin->row == 5);
    CHECK(edits::remove_token(s, 5));
    CHECK_FALSE(s.pin.has_value());
    CHECK(core::validate(s) == "");
    core::Scenario one = core::preset_three_tokens();
    CHECK(edits::remove_token(one, 0));
    CHECK(edits::remove_token(one, 0));
    CHECK_FALSE(edits::remove_token(one, 0)); // the last token stays
    CHECK(core::validate(one) == "");
}

TEST_CASE("adding and removing heads keeps every table consistent") {
    core::Scenario s = core::random_scenario(core::Shape{}.with_tokens(5).with_d_model(6).with_d_k(3).with_d_v(2).with_heads(2).with_W_O(), 1);
    core::Scenario only_second = s;
    edits::remove_head(only_second, 0);
    CHECK(only_second.heads[0] == s.heads[1]);
    CHECK(only_second.W_O == s.W_O.bottomRows(2)); // head 2's rows of W_O stay with it
    s.pin = core::QueryPin{1, 0, core::Vector::Ones(3)};
    for (int k = 0; k < 14; ++k) edits::add_head(s, 100 + k);
    CHECK(s.heads.size() == 16);
    CHECK(s.W_O.rows() == 16 * 2);
    CHECK(core::validate(s).empty());
    CHECK(core::compute(s).concat.cols() == 32);
    edits::remove_head(s, 0);
    CHECK(s.pin->head == 0);
    CHECK(core::validate(s).empty());
    edits::remove_head(s, 0);
    CHECK_FALSE(s.pin.has_value());
    CHECK(s.W_O.rows() == 14 * 2);
    CHECK(core::validate(s).empty());

    core::Scenario plain = core::preset_three_tokens();
    edits::add_head(plain, 5);
    CHECK(plain.W_O.size() == 0);
    CHECK(core::compute(plain).output.cols() == 4);
}

TEST_CASE("add_token appends a zero row under an unused name — nothing computed before changes") {
    core::Scenario s = core::preset_three_tokens();
    CHECK(edits::unused_token_name(s) == "t4");
    edits::add_token(s, edits::unused_token_name(s));
    REQUIRE(s.n() == 4);
    CHECK(s.tokens.back() == "t4");
    CHECK(s.X.row(3).isZero());
    CHECK(s.X.topRows(3) == core::preset_three_tokens().X);
    s.tokens[0] = "t5";
    CHECK(edits::unused_token_name(s) == "t6"); // t5 is taken now
    // Without a causal mask the old rows attend to the new token too; with one they cannot see it.
    s.causal = true;
    core::Scenario masked = core::preset_three_tokens();
    masked.causal = true;
    const core::Result r = core::compute(s);
    const core::Result old = core::compute(masked);
    CHECK((r.output.topRows(3) - old.output).cwiseAbs().maxCoeff() <= 1e-12);

    core::Scenario full = core::random_scenario(core::Shape{}.with_tokens(core::Limits::max_tokens).with_width(1), 1);
    edits::add_token(full, "one too many");
    CHECK(full.n() == core::Limits::max_tokens);
}

TEST_CASE("move_token and remove_token refuse what would leave the list") {
    core::Scenario s = core::preset_three_tokens();
    CHECK_FALSE(edits::move_token(s, 0, -1));
    CHECK_FALSE(edits::move_token(s, 2, 1));
    CHECK_FALSE(edits::remove_token(s, 3));
    CHECK_FALSE(edits::remove_token(s, -1));
    CHECK(s == core::preset_three_tokens());
    CHECK(edits::move_token(s, 0, 1));
    CHECK(s.tokens == std::vector<std::string>{"cat", "the", "sat"});
    CHECK(s.X.row(0) == core::preset_three_tokens().X.row(1));
}

TEST_CASE("permute_tokens moves names, rows of X and the pin together") {
    core::Scenario s = core::preset_it_sentence();
    s.pin = core::QueryPin{0, 4, core::Vector::Ones(2)}; // "it"
    const core::Scenario old = s;
    const std::vector<int> perm = edits::random_permutation(s.n(), 9);
    CHECK(std::is_permutation(perm.begin(), perm.end(), std::vector<int>{0, 1, 2, 3, 4, 5, 6}.begin()));
    CHECK(perm == edits::random_permutation(s.n(), 9)); // same seed, same order
    edits::permute_tokens(s, perm);
    for (int i = 0; i < s.n(); ++i) {
        CHECK(s.tokens[i] == old.tokens[perm[i]]);
        CHECK(s.X.row(i) == old.X.row(perm[i]));
    }
    REQUIRE(s.pin.has_value());
    CHECK(s.tokens[s.pin->row] == "it");
    CHECK(core::validate(s).empty());
    CHECK(edits::random_permutation(1, 3) == std::vector<int>{0});
}

TEST_CASE("set_d_model, set_d_k and set_d_v clamp to 1 … max_dim and keep the top-left entries") {
    core::Scenario s = core::preset_three_tokens();
    edits::set_d_model(s, 0);
    CHECK(s.d_model() == 1);
    CHECK(s.X.col(0) == core::preset_three_tokens().X.col(0));
    edits::set_d_model(s, 100000);
    CHECK(s.d_model() == core::Limits::max_dim);
    CHECK(s.X.rightCols(core::Limits::max_dim - 1).isZero());
    edits::set_d_k(s, -5);
    CHECK(s.d_k() == 1);
    edits::set_d_v(s, 3);
    CHECK(s.d_v() == 3);
    CHECK(s.heads[0].W_V(0, 0) == 1); // the worked example's W_V[0][0]
    CHECK(core::validate(s).empty());
}

TEST_CASE("add_head and remove_head stop at the limits and change nothing there") {
    core::Scenario s = core::preset_three_tokens();
    CHECK_FALSE(edits::remove_head(s, 0)); // one head always stays
    CHECK(s == core::preset_three_tokens());
    for (int k = 1; k < core::Limits::max_heads; ++k) CHECK(edits::add_head(s, static_cast<std::uint64_t>(k)));
    CHECK_FALSE(edits::add_head(s, 99));
    CHECK(s.heads.size() == core::Limits::max_heads);
    CHECK_FALSE(edits::remove_head(s, core::Limits::max_heads));
    CHECK(core::validate(s).empty());
}

TEST_CASE("identity, random and no W_O") {
    core::Scenario s = core::random_scenario(core::Shape{}.with_tokens(5).with_d_model(4).with_d_k(3).with_d_v(2).with_heads(3), 8);
    const core::Result plain = core::compute(s);
    edits::identity_W_O(s);
    REQUIRE(s.W_O.rows() == 6);
    REQUIRE(s.W_O.cols() == 4);
    // Identity W_O: the output is the concatenation cut to d_model = 4 columns.
    const core::Result id = core::compute(s);
    CHECK((id.output - plain.concat.leftCols(4)).cwiseAbs().maxCoeff() <= 1e-12);
    edits::random_W_O(s, 5);
    const core::Matrix first = s.W_O;
    CHECK(first.rows() == 6);
    CHECK(first.cols() == 4);
    edits::random_W_O(s, 5);
    CHECK(s.W_O == first); // same seed, same W_O
    edits::random_W_O(s, 6);
    CHECK(s.W_O != first);
    // Entries of scale 1/√(H·d_v): their mean square is near 1/6.
    CHECK(first.squaredNorm() / 24.0 == doctest::Approx(1.0 / 6.0).epsilon(0.8));
    edits::remove_W_O(s);
    CHECK(s.W_O.size() == 0);
    CHECK(core::compute(s).output == plain.output);
}

TEST_CASE("pin_query clamps huge entries — unpin_query gives q = x·W_Q back") {
    core::Scenario s = core::preset_three_tokens();
    const core::Result free = core::compute(s);
    core::Vector q(2);
    q << 3.0, 1e9;
    edits::pin_query(s, 0, 1, q);
    REQUIRE(s.pin.has_value());
    CHECK(s.pin->q[0] == 3.0);
    CHECK(s.pin->q[1] == core::Limits::max_abs_value);
    CHECK(core::compute(s).heads[0].Q.row(1) == s.pin->q.transpose());
    edits::unpin_query(s);
    CHECK_FALSE(s.pin.has_value());
    CHECK(core::compute(s).heads[0].Q == free.heads[0].Q);
}

TEST_CASE("set_positions switches the sinusoidal codes on and off") {
    core::Scenario s = core::preset_three_tokens();
    edits::set_positions(s, true);
    CHECK(s.positional == core::Positional::sinusoidal);
    CHECK(core::compute(s).output != core::compute(core::preset_three_tokens()).output);
    edits::set_positions(s, false);
    CHECK(s == core::preset_three_tokens());
}

TEST_CASE("set_cell changes one entry of the matrix it names and refuses what does not fit") {
    core::Scenario s = core::preset_three_tokens();
    s.W_O = core::Matrix::Identity(s.d_v(), s.d_model());
    const core::Scenario before = s;
    CHECK(edits::set_cell(s, edits::Which::X, 0, 1, 0, 2.5));
    CHECK(s.X(1, 0) == 2.5);
    CHECK(edits::set_cell(s, edits::Which::W_K, 0, 0, 1, -3.0));
    CHECK(s.heads[0].W_K(0, 1) == -3.0);
    CHECK(edits::set_cell(s, edits::Which::W_O, 7, 1, 1, 0.5)); // W_O belongs to no head: `head` is not read
    CHECK(s.W_O(1, 1) == 0.5);
    CHECK(core::validate(s) == "");
    // Everything else is left as it was.
    core::Scenario expected = before;
    expected.X(1, 0) = 2.5, expected.heads[0].W_K(0, 1) = -3.0, expected.W_O(1, 1) = 0.5;
    CHECK(s == expected);

    const core::Scenario edited = s;
    CHECK_FALSE(edits::set_cell(s, edits::Which::X, 0, s.n(), 0, 1.0));          // no such row
    CHECK_FALSE(edits::set_cell(s, edits::Which::W_Q, 0, 0, s.d_k(), 1.0));      // no such column
    CHECK_FALSE(edits::set_cell(s, edits::Which::W_V, 1, 0, 0, 1.0));            // no second head
    CHECK_FALSE(edits::set_cell(s, edits::Which::Q, 0, 0, 0, 1.0));              // Q is computed, not given
    CHECK_FALSE(edits::set_cell(s, edits::Which::X, 0, 0, 0, std::nan("")));
    CHECK_FALSE(edits::set_cell(s, edits::Which::X, 0, 0, 0, 1e7));              // beyond ±1e6
    CHECK_FALSE(edits::set_cell(s, edits::Which::X, 0, 0, 0, -INFINITY));
    CHECK(s == edited);
    edits::remove_W_O(s);
    CHECK(edits::matrix_of(s, edits::Which::W_O, 0) == nullptr);
    CHECK_FALSE(edits::set_cell(s, edits::Which::W_O, 0, 0, 0, 1.0));
}

TEST_CASE("set_cell edits the given Q, K and V of a direct scenario, and no X or W") {
    core::Scenario s;
    s.direct = true;
    s.tokens = {"a", "b"};
    core::Head h;
    h.Q = core::Matrix::Zero(2, 3), h.K = core::Matrix::Zero(2, 3), h.V = core::Matrix::Zero(2, 1);
    s.heads = {h, h};
    REQUIRE(core::validate(s) == "");
    CHECK(edits::set_cell(s, edits::Which::K, 1, 1, 2, 4.0));
    CHECK(s.heads[1].K(1, 2) == 4.0);
    CHECK(s.heads[0].K(1, 2) == 0.0);
    CHECK(edits::matrix_of(s, edits::Which::V, 0) == &s.heads[0].V);
    CHECK_FALSE(edits::set_cell(s, edits::Which::X, 0, 0, 0, 1.0));
    CHECK_FALSE(edits::set_cell(s, edits::Which::W_Q, 0, 0, 0, 1.0));
    CHECK_FALSE(edits::set_cell(s, edits::Which::V, -1, 0, 0, 1.0));
}

TEST_CASE("the causal and scale switches change the weights as the articles say") {
    core::Scenario s = core::preset_three_tokens();
    edits::set_causal(s, true);
    edits::set_scale(s, core::ScoreScale::none);
    CHECK(s.causal);
    CHECK(s.scale == core::ScoreScale::none);
    const core::Result r = core::compute(s);
    CHECK(r.heads[0].weights(0, 1) == 0.0); // "the" may not look at the later "cat"
    CHECK(r.heads[0].weights(0, 0) == doctest::Approx(1.0));
    // Unscaled: the scores are the raw dot products (q_sat · k_cat = 2 in the worked example).
    CHECK(r.heads[0].scores(2, 1) == doctest::Approx(2.0));
    CHECK(r.heads[0].scaled(2, 1) == doctest::Approx(2.0));
    edits::set_causal(s, false);
    edits::set_scale(s, core::ScoreScale::inv_sqrt_d_k);
    CHECK(core::compute(s).heads[0].scaled(2, 1) == doctest::Approx(r.heads[0].scores(2, 1) / std::sqrt(2.0)));
}

TEST_CASE("rename_token renames one token and refuses a row that is not there") {
    core::Scenario s = core::preset_three_tokens();
    CHECK(edits::rename_token(s, 1, "dog"));
    CHECK(s.tokens == std::vector<std::string>{"the", "dog", "sat"});
    CHECK_FALSE(edits::rename_token(s, 3, "mat"));
    CHECK_FALSE(edits::rename_token(s, -1, "mat"));
    CHECK(s.tokens == std::vector<std::string>{"the", "dog", "sat"});
}
