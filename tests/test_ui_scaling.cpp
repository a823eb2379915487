// The "why divide by √d_k" panel, driven by its slider and its button.
#include "headless.h"

#include "ui/panels/explore/scaling.h"

#include <doctest/doctest.h>

using headless::Ui;

TEST_CASE("scaling panel: the variances are d_k and 1 within 10%") {
    Ui ui;
    ui.st().view.open["scaling"] = true;
    ui.frames(2);
    const ui::ScalingView& sv = ui.st().view.state<ui::ScalingView>();
    CHECK(sv.d_k == 64);
    CHECK(sv.samples == 10000);
    REQUIRE(sv.experiment.dots.size() == 10000);
    CHECK(std::abs(sv.experiment.variance_raw - 64.0) <= 6.4);
    CHECK(std::abs(sv.experiment.variance_scaled - 1.0) <= 0.1);
    CHECK(ui.shows("≈ d_k = 64"));
    CHECK(sv.experiment.softmax_raw.maxCoeff() > sv.experiment.softmax_scaled.maxCoeff());

    // Type d_k = 16 into the slider (Ctrl+click makes it a text box).
    ImGui::GetIO().KeyCtrl = true;
    ui.click(ui.item("scaling_d_k"));
    ImGui::GetIO().KeyCtrl = false;
    ui.key('A', true);
    ui.type("16");
    ui.key(headless::key_enter);
    REQUIRE(sv.d_k == 16);
    CHECK(sv.experiment.d_k == 16);
    CHECK(std::abs(sv.experiment.variance_raw - 16.0) <= 1.6);
    CHECK(ui.shows("≈ d_k = 16"));

    // A new sample draws other numbers; nothing else reruns the experiment.
    const double before = sv.experiment.dots[0];
    ui.frames(3);
    CHECK(sv.experiment.dots[0] == before);
    ui.click(ui.item("scaling_new_sample"));
    CHECK(sv.experiment.dots[0] != before);
    CHECK(std::abs(sv.experiment.variance_raw - 16.0) <= 1.6);
}
