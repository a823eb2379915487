// The decode panel: stepping the KV-cache decoder agrees with the causal rows of core::compute.
#include "headless.h"

#include "ui/panels/explore/decode.h"

#include <doctest/doctest.h>

using headless::Ui;

namespace {

double decode_gap(const core::Vector& a, const core::Vector& b) { return (a - b).cwiseAbs().maxCoeff(); }

} // namespace

TEST_CASE("decode panel: every step of the decoder equals the causal rows of core::compute") {
    core::Scenario s = core::random_scenario(core::Shape{}.with_tokens(7).with_d_model(5).with_d_k(3).with_d_v(4).with_heads(3).with_W_O(), 21);
    Ui ui(s);
    ui.st().view.open["decode"] = true;
    ui.st().view.open["matrices"] = false; // under the decode panel: keep its text out of screen_text()
    ui.frames(2);
    core::Scenario causal = s;
    causal.causal = true;
    const core::Result reference = core::compute(causal);
    const ui::DecodeView& d = ui.st().view.state<ui::DecodeView>();
    CHECK(d.steps == 0);
    CHECK(ui.shows("The decoder is always causal")); // the checkbox is off in s
    for (int t = 1; t <= s.n(); ++t) {
        CAPTURE(t);
        ui.click(ui.item("decode_step"));
        REQUIRE(d.steps == t);
        CHECK(d.decoder->kv_rows_with_cache() == t);
        CHECK(d.decoder->kv_rows_without_cache() == t * (t + 1) / 2);
        CHECK(d.decoder->cache_bytes_per_head() == t * (3 + 4) * 8);
        for (int h = 0; h < 3; ++h) {
            CHECK(decode_gap(d.last.weights[h], reference.heads[h].weights.row(t - 1).head(t).transpose()) <= 1e-12);
            CHECK((d.decoder->k_cache(h).topRows(t) - reference.heads[h].K.topRows(t)).cwiseAbs().maxCoeff() <= 1e-12);
        }
        CHECK(decode_gap(d.last.output, reference.output.row(t - 1).transpose()) <= 1e-12);
    }
    CHECK(ui.shows("1 + 2 + … + 7 = 28"));
    CHECK_FALSE(ui.st().view.items.empty());

    // Back rebuilds to t − 1; a scenario change keeps the step.
    ui.click(ui.item("decode_back"));
    CHECK(d.steps == 6);
    CHECK(decode_gap(d.last.weights[1], reference.heads[1].weights.row(5).head(6).transpose()) <= 1e-12);
    ui.click(ui.item("causal"));
    REQUIRE(ui.scenario().causal);
    CHECK(d.steps == 6);
    CHECK(ui.shows("✓ equal to row 6 of the causal heatmap"));
    CHECK(ui.shows("1 + 2 + 3 + 4 + 5 + 6 = 21"));

    // Play steps twice a second by the frame clock; Reset empties the caches.
    ui.click(ui.item("decode_reset"));
    CHECK(d.steps == 0);
    ui.click(ui.item("decode_play"));
    REQUIRE(d.playing);
    ui.frames(60); // one second at 1/60 s a frame
    CHECK(d.steps == 2);
    ui.frames(600);
    CHECK(d.steps == s.n());
    CHECK_FALSE(d.playing); // stops at the end
}
