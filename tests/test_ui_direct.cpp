// Scenarios that give Q, K and V directly, in the window: Q, K and V are the editable inputs (in
// the Weights panel), the Tokens and Weights panels and the Matrices panel say so, and typing into
// a cell changes the scores and weights in the same frame, per head. The NumPy presets' seed, n
// and d redraw them as NumPy does.
#include "fixture_files.h"
#include "headless.h"
#include "reference.h"

#include "core/explain.h"
#include "core/io/scenario_io.h"
#include "core/presets.h"

#include <nlohmann/json.hpp>

#include <doctest/doctest.h>

using headless::Ui;

namespace {

// Two heads of three tokens, d_k = 2, d_v = 1, as a forward hook would save them.
const char* const two_heads = R"({"tokens": ["the", "cat", "sat"],
  "heads": [{"Q": [[1, 0], [0, 1], [1, 1]], "K": [[1, 0], [0, 1], [0.5, 0.5]], "V": [[1], [2], [3]]},
            {"Q": [[0, 2], [1, 0], [0, 0]], "K": [[1, 1], [0, 2], [2, 0]], "V": [[-1], [0], [1]]}]})";

// The head as plain loops compute it: X = I, so that Q = I · Q, and so on.
reference::Head reference_of(const core::Head& h) {
    const auto n = static_cast<std::size_t>(h.Q.rows());
    reference::Grid identity(n, std::vector<double>(n, 0.0));
    for (std::size_t i = 0; i < n; ++i) identity[i][i] = 1.0;
    return reference::attention_head(identity, core::Head{h.Q, h.K, h.V}, false, true);
}

void check_head_against_reference(Ui& ui, int h) {
    const core::HeadResult& got = ui.st().result.heads[static_cast<std::size_t>(h)];
    const reference::Head want = reference_of(ui.scenario().heads[static_cast<std::size_t>(h)]);
    for (std::size_t i = 0; i < want.weights.size(); ++i)
        for (std::size_t j = 0; j < want.weights.size(); ++j) {
            const auto r = static_cast<Eigen::Index>(i), c = static_cast<Eigen::Index>(j);
            CHECK(got.scores(r, c) == doctest::Approx(want.scores[i][j]).epsilon(1e-12));
            CHECK(got.weights(r, c) == doctest::Approx(want.weights[i][j]).epsilon(1e-12));
        }
}

} // namespace

TEST_CASE("ui: Q, K and V given directly are edited in the Weights panel — scores and A follow") {
    Ui ui(core::io::parse_scenario(two_heads));
    ui.frames(2);
    REQUIRE(ui.scenario().direct);
    // The notices wrap with the panel's width: each phrase is checked on its own.
    CHECK(ui.shows("This scenario gives Q, K and V", "Weights"));
    CHECK(ui.shows("are the inputs; edit them here", "Weights"));
    CHECK(ui.shows("This scenario gives Q, K and V", "Tokens & embeddings"));
    CHECK(ui.shows("embeddings X", "Tokens & embeddings"));
    CHECK_FALSE(ui.shows("W_Q (", "Weights")); // no empty weight matrices
    CHECK(ui.shows("Q (3 × 2)", "Weights"));
    CHECK(ui.shows("3 tokens, no X", "Tokens & embeddings"));
    CHECK_FALSE(ui.shows("d_model", "Tokens & embeddings"));
    CHECK(ui.shows("Q, K and V are given directly by this scenario.", "Matrices"));
    CHECK(ui.shows("Q (3 × 2) = given", "Matrices"));
    check_head_against_reference(ui, 0);

    // Enter, held for one frame: in that very frame the Matrices panel already shows the new weights.
    ui.double_click(ui.grid_cell("Q given", 0, 1));
    ui.type("3"); // q_the = (1, 3)
    const std::string old_weight = core::format_number(ui.st().result.heads[0].weights(0, 1));
    ImGui::GetIO().KeysDown[headless::key_enter] = true;
    ui.frame();
    ImGui::GetIO().KeysDown[headless::key_enter] = false;
    CHECK(ui.scenario().heads[0].Q(0, 1) == 3.0);
    const std::string new_weight = core::format_number(ui.st().result.heads[0].weights(0, 1));
    CHECK(new_weight != old_weight);
    CHECK(ui.shows(new_weight, "Attention heatmap")); // the heatmap, drawn after the edit
    ui.frames(2);
    CHECK(ui.st().result.heads[0].Q(0, 1) == 3.0);
    check_head_against_reference(ui, 0);
    const double r2 = std::sqrt(2.0); // scores of "the": (1, 3, 2) / √2
    const double sum = std::exp(1 / r2) + std::exp(3 / r2) + std::exp(2 / r2);
    CHECK(ui.st().result.heads[0].weights(0, 1) == doctest::Approx(std::exp(3 / r2) / sum));

    ui.type_into(ui.grid_cell("K given", 2, 0), "-1.5");
    CHECK(ui.scenario().heads[0].K(2, 0) == -1.5);
    check_head_against_reference(ui, 0);
    ui.type_into(ui.grid_cell("V given", 1, 0), "7");
    CHECK(ui.st().result.heads[0].output(0, 0) ==
          doctest::Approx(reference_of(ui.scenario().heads[0]).output[0][0]).epsilon(1e-12));
}

TEST_CASE("ui: per-head Q given directly: the head chosen in the Weights panel is the one edited") {
    Ui ui(core::io::parse_scenario(two_heads));
    ui.frames(2);
    ui.st().view.selected_head = 1;
    ui.frames(2);
    const core::Head first = ui.scenario().heads[0];
    ui.type_into(ui.grid_cell("Q given", 2, 0), "4"); // head 2's q_sat = (4, 0)
    CHECK(ui.scenario().heads[1].Q(2, 0) == 4.0);
    CHECK(ui.scenario().heads[0] == first);
    check_head_against_reference(ui, 1);
    check_head_against_reference(ui, 0);
}

TEST_CASE("ui: a letter typed into a given Q cell is refused and the scenario stays") {
    Ui ui(core::io::parse_scenario(two_heads));
    ui.frames(2);
    const core::Scenario before = ui.scenario();
    ui.type_into(ui.grid_cell("Q given", 1, 1), "x");
    CHECK(ui.scenario() == before);
}

namespace {

// Q, K, V of the "NumPy random" preset that NumPy drew, for a seed, n and d (tests/fixtures/normal.json).
const nlohmann::json& numpy_preset_fixture(const std::string& seed) {
    static const nlohmann::json all = nlohmann::json::parse(fixtures::read(fixtures::path("normal.json")))["numpy_random_preset"];
    for (const nlohmann::json& p : all)
        if (p["seed"] == seed) return p;
    FAIL("no fixture for seed " << seed);
    return all;
}

} // namespace

TEST_CASE("ui: the NumPy example's seed, n and d redraw Q, K and V exactly as NumPy draws them") {
    Ui ui(core::preset_numpy_example());
    ui.frames(2);
    CHECK(ui.shows("seed", "Controls"));
    ui.type_into(ui.item("numpy_seed"), "1");
    const nlohmann::json& one = numpy_preset_fixture("1");
    CHECK(ui.scenario().heads[0].Q == fixtures::matrix(one["Q"])); // (4, 8), bit for bit
    CHECK(ui.scenario().heads[0].K == fixtures::matrix(one["K"]));
    CHECK(ui.scenario().heads[0].V == fixtures::matrix(one["V"]));
    CHECK(ui.st().result.heads[0].Q == fixtures::matrix(one["Q"])); // and what is shown follows

    const nlohmann::json& three = numpy_preset_fixture("3"); // seed 3, 6 × 5
    ui.type_into(ui.item("numpy_seed"), "3");
    ui.type_into(ui.item("n"), "6");
    ui.type_into(ui.item("d"), "5");
    REQUIRE(ui.scenario().n() == 6);
    CHECK(ui.scenario().heads[0].Q == fixtures::matrix(three["Q"]));
    CHECK(ui.scenario().heads[0].V == fixtures::matrix(three["V"]));
    CHECK(ui.shows("6 tokens, no X", "Tokens & embeddings"));

    ui.st().view.request_undo = true; // one step back: seed 3, 6 × 8, still a NumPy draw
    ui.frames(2);
    CHECK(ui.scenario().d_k() == 8);
    CHECK(ui.shows("seed", "Controls"));
    ui.st().view.request_undo = true; // seed 3, 4 × 8: n goes back too
    ui.frames(2);
    ui.type_into(ui.item("numpy_seed"), "1");
    CHECK(ui.scenario().heads[0].Q == fixtures::matrix(one["Q"]));
}

TEST_CASE("ui: the NumPy draw's controls are not offered for a scenario of its own shape that NumPy did not draw") {
    core::Scenario mine = core::preset_numpy_example();
    mine.heads[0].Q(0, 0) = 9.0;
    {
        Ui ui(mine);
        ui.frames(2);
        CHECK_FALSE(ui.shows("seed", "Controls"));
    }
    Ui ui; // the worked example: X and W's
    ui.frames(2);
    CHECK_FALSE(ui.shows("seed", "Controls"));
    ui.st().view.request_preset = 1; // the NumPy example, from the presets list
    ui.frames(2);
    REQUIRE(std::string(core::presets()[1].id) == "numpy-example");
    CHECK(ui.shows("seed", "Controls"));
}
