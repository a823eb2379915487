// The Model workspace on models whose layers differ in kind (core/model/attention_kind.h), headless:
// OLMo 3's windows on three layers of four and SmolLM3's fourth layer without RoPE written on the
// grid's rows; on the head map a key outside a query's window shaded apart from a key the causal mask
// hides, and no window drawn on a full layer.
#include "headless.h"
#include "tests/model_ui.h"

#include "tests/checkpoint_fixtures.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_grid.h"
#include "ui/panels/model/model_map.h"

#include <doctest/doctest.h>

#include <array>

namespace {

using model_ui::ModelWorkspace;

} // namespace

TEST_CASE_FIXTURE(ModelWorkspace, "model workspace on OLMo 3 and SmolLM3: each layer's kind on its grid row, windows shaded apart on the map") {
    NEED_CHECKPOINTS();
    open("olmo3", "the cat sat on the mat and the cat");
    const auto opened = own_model();
    const int t = m.shown->t();
    REQUIRE(t > 4);
    const auto& grid = v.state<ui::ModelGridView>();
    std::vector<std::string> expected;
    for (int l = 0; l < opened.model->config().layers; ++l) expected.push_back(core::model::kind_label(opened.model->attention_kind(l)));
    CHECK(expected == std::vector<std::string>{"window 3", "window 3", "window 3", "full"});
    CHECK(grid.kinds == expected);

    ui.click(ui.item("model grid 0.1")); // a sliding layer
    ui.frames(3);
    const auto& map = v.state<ui::ModelMapView>();
    REQUIRE(map.layer == 0);
    CHECK(map.window == 3);
    CHECK(!map.sink_column);
    CHECK(ui.shows("outside its window of 3 keys"));
    REQUIRE(map.painted.step == 1);
    // Outside the window: a checker of two greys, neither a weight's colour nor, both, the mask's.
    const auto masked = model_ui::texel(map, 0, t - 1), seen = model_ui::texel(map, t - 1, t - 1);
    const auto outside = model_ui::texel(map, t - 1, 0), beside = model_ui::texel(map, t - 1, 1);
    CHECK(outside != beside);
    CHECK((outside != masked || beside != masked));
    CHECK(outside != seen);
    CHECK(beside != seen);
    const auto first_past = model_ui::texel(map, t - 1, t - 4); // the first key past the window
    CHECK((first_past == outside || first_past == beside));

    ui.click(ui.item("model grid 3.0")); // the full layer
    ui.frames(3);
    CHECK(map.layer == 3);
    CHECK(map.window == 0);
    CHECK(!ui.shows("outside its window"));

    open("smollm3", "the cat sat on the mat");
    CHECK(grid.kinds == std::vector<std::string>{"full", "full", "full", "no RoPE"});
}

TEST_CASE_FIXTURE(ModelWorkspace, "model workspace on Qwen3.5: the hybrid runs as the window runs it; a linear head's previous-token score is the mean of its M[i, i−1], its entropy 0") {
    NEED_CHECKPOINTS();
    open("qwen3_5", "the cat sat on the mat and the cat");
    REQUIRE(m.shown);
    REQUIRE(m.shown->error.empty());
    const auto& grid = v.state<ui::ModelGridView>();
    REQUIRE(!grid.kinds.empty());
    CHECK(grid.kinds[0].find("linear") != std::string::npos);
    const int t = m.shown->t();
    const std::shared_ptr<const core::model::MatrixF> M = m.shown->head_map(0, 1); // layer 1 is a Gated DeltaNet layer
    REQUIRE(M);
    double previous = 0.0;
    for (int i = 1; i < t; ++i) previous += (*M)(i, i - 1);
    const core::heads::HeadScores& s = m.shown->scores[1];
    REQUIRE(s.previous);
    CHECK(*s.previous == doctest::Approx(previous / (t - 1)).epsilon(1e-5));
    CHECK(s.entropy == 0.0);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model workspace on a multimodal Qwen3.5 directory: its text model runs, and the status line says the vision tower is not shown") {
    NEED_CHECKPOINTS();
    REQUIRE(m.open(model_ui::tiny("qwen3_5_multimodal"), v));
    CHECK(v.status.find("Opened qwen3_5_multimodal") == 0);
    CHECK(v.status.find("its vision tower is not shown") != std::string::npos);
    CHECK(!v.status_is_error);
    model_ui::until_run(ui);
    REQUIRE(m.shown);
    CHECK(m.shown->error.empty());
    CHECK(v.state<ui::ModelGridView>().kinds[0].find("linear") != std::string::npos);
}
