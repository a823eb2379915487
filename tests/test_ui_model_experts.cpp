// The Experts panel on the Qwen3 MoE fixture, headless: the map of a mixture layer shows the
// forward's router probabilities and chosen experts cell by cell; a click lists a position's
// experts in every mixture layer; Ctrl+click knocks an expert out, and the run after it gives that
// expert weight 0 as a forward with it knocked out does; expert importance runs on a worker and
// shows core's numbers; a dense model says it has no mixture.
#include "core/model/expert_importance.h"
#include "tests/model_ui.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_experts.h"

#include <doctest/doctest.h>

using model_ui::ModelWorkspace;

namespace {

// The mixture layer shown by the panel, from the model's own forward with `o`.
core::model::LayerRouting own_routing(const core::model::OpenedModel& opened, const std::vector<int>& ids, int routed,
                                      core::model::ForwardOptions o = {}) {
    o.attention = false;
    const core::model::ForwardResult r = opened.model->forward(ids, o);
    REQUIRE(routed < static_cast<int>(r.routing.size()));
    return r.routing[static_cast<std::size_t>(routed)];
}

// Cell (row, col) of `grid`, the wheel turned over the grid until the row is on screen, as a user
// scrolls a map taller than its panel.
ImVec2 scrolled_to(headless::Ui& ui, const char* grid, int row, int col) {
    for (int k = 0; k < 20 && !ui.st().view.grids.at(grid).visible.Contains(ui.grid_cell(grid, row, col)); ++k)
        ui.wheel(ui.st().view.grids.at(grid).visible.GetCenter(), ui.grid_cell(grid, row, col).y > ui.st().view.grids.at(grid).visible.Max.y ? -1.0f : 1.0f);
    return ui.grid_cell(grid, row, col);
}

} // namespace

TEST_CASE_FIXTURE(ModelWorkspace, "model experts: the routing map shows the forward's probabilities and choices; a click lists a position's route; Ctrl+click knocks an expert out") {
    NEED_CHECKPOINTS();
    open("qwen3_moe_unnormed", "the cat sat on the mat");
    ui::ModelExpertsView& st = show_panel<ui::ModelExpertsView>("model_experts");
    const auto opened = own_model();
    const std::vector<int> ids = encoded_prompt();
    REQUIRE(m.shown->ids == ids);
    const int t = static_cast<int>(ids.size());
    const core::model::LayerRouting want = own_routing(opened, ids, 1);
    // The second mixture layer, through the combo.
    ui.click(ui.item("model experts layer"));
    ui.frame();
    ui.click(ui.item("model experts layer 2"));
    ui.frames(2);
    REQUIRE(st.routed == 1);
    for (int i = 0; i < t; ++i)
        for (int e = 0; e < want.experts; ++e) {
            ui.move(scrolled_to(ui, "experts", i, e));
            CHECK(st.hovered == i * want.experts + e);
            CHECK(st.hovered_probability == doctest::Approx(want.probabilities(i, e)).epsilon(1e-6));
        }
    // The load: each expert's share of the positions that chose it, summing to the experts per token.
    float load = 0.0f;
    for (const float x : st.load) load += x;
    CHECK(load == doctest::Approx(want.top_k));
    const int first = want.chosen[0]; // position 1's first choice
    ui.click(scrolled_to(ui, "experts", 0, first));
    ui.frames(2);
    CHECK(st.position == 0);
    char line[32];
    std::snprintf(line, sizeof line, "E%d %.3f", first + 1, want.weights(0, 0));
    CHECK(ui.shows("Position 1"));
    CHECK(ui.shows(line));
    // Ctrl+click knocks position 1's first expert out of layer 2; the next run weighs it 0 there.
    ImGui::GetIO().KeyCtrl = true;
    ui.click(scrolled_to(ui, "experts", 0, first));
    ImGui::GetIO().KeyCtrl = false;
    model_ui::until_run(ui);
    REQUIRE(m.ablate_experts.size() == 1);
    CHECK(m.ablate_experts[0] == core::model::ExpertRef{1, first});
    core::model::ForwardOptions knocked;
    knocked.ablate_experts = m.ablate_experts;
    const core::model::LayerRouting after = own_routing(opened, ids, 1, knocked);
    const core::model::LayerRouting& shown = m.shown->result.routing[1];
    CHECK(shown.weights(0, 0) == 0.0f);
    CHECK(shown.weights.isApprox(after.weights, 1e-6f));
    CHECK(m.shown->has_intact); // the intact model's predictions beside the knocked-out run's
    ui.click(ui.item("model experts clear"));
    model_ui::until_run(ui);
    CHECK(m.ablate_experts.empty());
    CHECK(m.shown->result.routing[1].weights.isApprox(want.weights, 1e-6f));
}

TEST_CASE_FIXTURE(ModelWorkspace, "model experts: expert importance runs on a worker and shows core's Δloss; a dense model has no mixture to show") {
    NEED_CHECKPOINTS();
    open("qwen3_moe_unnormed", "the cat sat on the mat");
    ui::ModelExpertsView& st = show_panel<ui::ModelExpertsView>("model_experts");
    ui.click(ui.item("model experts Importance"));
    ui.click(ui.item("model experts importance run"));
    REQUIRE(m.expert_importance.wait_idle(60));
    ui.frames(2);
    const auto s = m.expert_importance.state();
    REQUIRE(s.result);
    const core::model::ExpertImportance want = core::model::expert_importance(*own_model().model, encoded_prompt());
    REQUIRE(s.result->experts.delta.rows() == want.delta.rows());
    CHECK(s.result->experts.delta.isApprox(want.delta, 1e-9));
    const int E = static_cast<int>(want.delta.cols());
    ui.move(ui.grid_cell("expert importance", 1, E - 1));
    ui.frame();
    CHECK(st.importance_hovered == E + E - 1);
    char delta[32];
    std::snprintf(delta, sizeof delta, "%+.4f", want.delta(1, E - 1));
    CHECK(ui.shows(delta));
    ui.click(ui.grid_cell("expert importance", 1, E - 1)); // back to that layer's routing
    ui.frames(2);
    CHECK_FALSE(st.importance);
    CHECK(st.routed == 1);

    REQUIRE(m.open(model_ui::tiny("gpt2"), v)); // another model forgets the measurement
    model_ui::until_run(ui);
    v.open["model_experts"] = true;
    ui.frames(2);
    CHECK_FALSE(m.expert_importance.state().result);
    CHECK(st.no_mixture);
}
