// The Model workspace on Gemma 2 and Gemma 3 (the multimodal checkpoint's text tower), headless:
// the grid's head view, the top 10 (after the final-logit soft-cap), head importance and Next token
// on the KV cache, each against the model's own forward, on a prompt longer than the sliding window.
#include "headless.h"
#include "tests/model_ui.h"

#include "core/model/head_importance.h"
#include "tests/checkpoint_fixtures.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_head_view.h"
#include "ui/panels/model/model_predictions.h"
#include "ui/panels/model/model_steps.h"

#include <doctest/doctest.h>

namespace {

using model_ui::ModelWorkspace;
using model_ui::top10;
using model_ui::until_run;

void until_importance(headless::Ui& ui, ui::ModelService& m) {
    ui.click(ui.item("model importance run"));
    for (int k = 0; k < 400 && m.importance.state().running; ++k) {
        m.importance.wait_idle(headless::worker_wait);
        ui.frame();
    }
    ui.frames(2);
}

} // namespace

TEST_CASE_FIXTURE(ModelWorkspace, "model workspace on Gemma: head view, top 10, head importance and Next token follow the model") {
    NEED_CHECKPOINTS();
    for (const std::string name : {"gemma2", "gemma3"}) {
        CAPTURE(name);
        open(name, "the cat sat on the mat and the cat");
        const auto opened = own_model();
        const std::vector<int> ids = encoded_prompt();
        REQUIRE(m.shown->ids == ids);
        const core::model::ForwardResult direct = opened.model->forward(ids);
        const int t = static_cast<int>(ids.size());
        REQUIRE(t > opened.model->config().sliding_window[0]);
        ui.click(ui.item("model grid 0.1")); // a sliding layer
        ui.frames(2);
        const auto& hv = v.state<ui::ModelHeadView>();
        REQUIRE(hv.layer == 0);
        const core::model::MatrixF A = direct.maps.head(0, 1);
        const float* a = A.data();
        for (const auto& line : hv.lines) {
            CHECK(line.weight == a[line.query * t + line.key]);
            CHECK(line.query - line.key < 3);
        }
        CHECK(v.state<ui::ModelPredictionsView>().shown == top10(direct, t - 1));

        until_importance(ui, m);
        const auto st = m.importance.state();
        REQUIRE(st.result);
        const core::model::HeadImportance expected = core::model::head_importance(*opened.model, ids);
        CHECK(st.result->importance.loss == doctest::Approx(expected.loss).epsilon(1e-9));
        for (int l = 0; l < direct.layers; ++l)
            for (int h = 0; h < direct.heads; ++h) CHECK(st.result->importance.delta(l, h) == doctest::Approx(expected.delta(l, h)).epsilon(1e-9));

        const std::vector<int> want = core::model::generate_greedy(*opened.model, ids, 2);
        const ui::ModelStepsView& steps = v.state<ui::ModelStepsView>();
        for (int k = 1; k <= 2; ++k) {
            ui.click(ui.item("model_steps.next"));
            until_run(ui);
            for (int f = 0; f < 400 && steps.shown.ids.size() < ids.size() + static_cast<std::size_t>(k); ++f) {
                m.session.wait_idle(headless::worker_wait);
                ui.frame();
            }
            REQUIRE(steps.shown.ids.size() == ids.size() + static_cast<std::size_t>(k));
            CHECK(steps.shown.ids.back() == want[static_cast<std::size_t>(k - 1)]);
        }
    }
}
