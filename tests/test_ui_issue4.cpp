// Issue 4's panels (heads, KV-cache decoding, why √d_k, order and position), driven headless
// through real mouse and keyboard input (see headless.h).
#include "headless.h"

#include "core/edits.h"
#include "ui/panels/decode.h"
#include "ui/panels/heads.h"
#include "ui/panels/order.h"
#include "ui/panels/scaling.h"

#include <doctest/doctest.h>

#include <chrono>

using headless::menu_click;
using headless::Ui;

namespace {

const char* const issue4_panels[] = {"Heads", "Order and position", "Decode with a KV cache", "Why divide by √d_k"};

void open_all(Ui& ui) {
    ui::View& v = ui.st().view;
    v.open["heads"] = v.open["decode"] = v.open["scaling"] = v.open["order"] = true;
    ui.frames(3);
}

// Every table of every head agrees with the number of heads.
void check_heads(const core::Scenario& s, const core::Result& r) {
    REQUIRE(core::validate(s) == "");
    const int H = static_cast<int>(s.heads.size());
    for (const core::Head& h : s.heads) {
        CHECK(h.W_Q.rows() == s.d_model());
        CHECK(h.W_Q.cols() == s.d_k());
        CHECK(h.W_K.rows() == s.d_model());
        CHECK(h.W_K.cols() == s.d_k());
        CHECK(h.W_V.rows() == s.d_model());
        CHECK(h.W_V.cols() == s.d_v());
    }
    if (s.W_O.size() != 0) {
        CHECK(s.W_O.rows() == H * s.d_v());
        CHECK(s.W_O.cols() == s.d_model());
        CHECK(r.output.cols() == s.d_model());
    } else {
        CHECK(r.output.cols() == H * s.d_v());
    }
    CHECK(static_cast<int>(r.heads.size()) == H);
    CHECK(r.concat.rows() == s.n());
    CHECK(r.concat.cols() == H * s.d_v());
}

double largest_difference(const core::Vector& a, const core::Vector& b) { return (a - b).cwiseAbs().maxCoeff(); }

} // namespace

TEST_CASE("issue 4: the four panels open from the View menu, each exactly over one issue-3 panel, all fitting") {
    {
        Ui ui;
        ui.frames(2);
        for (const char* name : issue4_panels) CHECK(ImGui::FindWindowByName(name) == nullptr); // closed by default
        menu_click(ui, "View", "Decode with a KV cache");
        CHECK(ui.st().view.open["decode"]);
        ui.frame();
        CHECK(ImGui::FindWindowByName("Decode with a KV cache")->Active);
    }

    for (core::Scenario s : {core::preset_three_tokens(), core::preset_eight_heads()}) {
        Ui big(s);
        open_all(big);
        const char* covered[] = {"Query arrow", "Weights", "Matrices", "Calculation"};
        const char* uncovered[] = {"Controls", "Tokens & embeddings", "Attention heatmap"};
        std::vector<ImRect> rects;
        for (size_t k = 0; k < 4; ++k) {
            INFO(std::string(issue4_panels[k]));
            const ImGuiWindow* w = ImGui::FindWindowByName(issue4_panels[k]);
            REQUIRE(w != nullptr);
            CHECK(w->Active);
            const ImRect r = w->Rect();
            const ImRect slot = ImGui::FindWindowByName(covered[k])->Rect();
            CHECK(r.Min.x == slot.Min.x);
            CHECK(r.Min.y == slot.Min.y);
            CHECK(r.Max.x == slot.Max.x);
            CHECK(r.Max.y == slot.Max.y);
            CHECK(r.Max.x <= 1600.0f);
            CHECK(r.Max.y <= 1000.0f);
            CHECK(w->ScrollMax.x == 0.0f); // everything fits; big tables scroll inside their own grids
            CHECK(w->ScrollMax.y == 0.0f);
            for (const ImRect& other : rects) {
                const ImRect overlap(ImMax(r.Min, other.Min), ImMin(r.Max, other.Max));
                CHECK((overlap.GetWidth() <= 0.5f || overlap.GetHeight() <= 0.5f));
            }
            for (const char* name : uncovered) {
                const ImRect o = ImGui::FindWindowByName(name)->Rect();
                const ImRect overlap(ImMax(r.Min, o.Min), ImMin(r.Max, o.Max));
                CHECK((overlap.GetWidth() <= 0.5f || overlap.GetHeight() <= 0.5f));
            }
            rects.push_back(r);
        }
    }
}

TEST_CASE("issue 4: adding and removing heads with the buttons keeps every table consistent") {
    Ui ui;
    ui.st().view.open["heads"] = true;
    ui.frames(2);
    ui.click(ui.item("add_head"));
    ui.click(ui.item("add_head"));
    REQUIRE(ui.scenario().heads.size() == 3);
    CHECK(ui.st().view.selected_head == 2); // the new head is in focus
    check_heads(ui.scenario(), ui.app().result());
    CHECK(ui.scenario().heads[0] == core::preset_three_tokens().heads[0]); // the first head is untouched

    // With W_O: ticking creates an identity-like ((H·d_v) × d_model) projection; heads keep it in step.
    ui.click(ui.item("use_W_O"));
    REQUIRE(ui.scenario().W_O.size() != 0);
    check_heads(ui.scenario(), ui.app().result());
    CHECK(ui.app().result().output == ui.app().result().concat.leftCols(2));
    ui.click(ui.item("W_O_random"));
    CHECK(ui.scenario().W_O(1, 1) != 1.0);
    for (int k = 0; k < 20; ++k) ui.click(ui.item("add_head")); // stops at 16
    CHECK(ui.scenario().heads.size() == 16);
    check_heads(ui.scenario(), ui.app().result());
    ui.frame();
    CHECK(ui.st().view.state<ui::HeadsView>().thumbnails.size() == 16);

    // Focus head 5 by clicking its thumbnail, then remove it.
    const core::Head fifth = ui.scenario().heads[4];
    const core::Head sixth = ui.scenario().heads[5];
    ui.click(ui.st().view.state<ui::HeadsView>().thumbnails.at(4).GetCenter());
    CHECK(ui.st().view.selected_head == 4);
    ui.frame();
    CHECK(ui.shows("A, head 5 of 16")); // the main heatmap shows the focused head
    // …and the calculation opens head 5's block, only that one.
    const std::string calculation = ui.screen_text("Calculation");
    const size_t head5 = calculation.find("Head5");
    REQUIRE(head5 != std::string::npos);
    CHECK(calculation.find("1.Scores") > head5);
    CHECK(calculation.find("1.Scores") == calculation.rfind("1.Scores"));
    ui.click(ui.item("remove_head"));
    CHECK(ui.scenario().heads.size() == 15);
    CHECK(ui.scenario().heads[4] == sixth);
    CHECK_FALSE(ui.scenario().heads[4] == fifth);
    check_heads(ui.scenario(), ui.app().result());
    for (int k = 0; k < 20; ++k) ui.click(ui.item("remove_head")); // one head always stays
    CHECK(ui.scenario().heads.size() == 1);
    check_heads(ui.scenario(), ui.app().result());

    ui.click(ui.item("use_W_O"));
    CHECK(ui.scenario().W_O.size() == 0);
    check_heads(ui.scenario(), ui.app().result());
}

TEST_CASE("issue 4: every step of the decoder equals the causal rows of core::compute") {
    core::Scenario s = core::random_scenario(7, 5, 3, 4, 3, true, 21);
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
            CHECK(largest_difference(d.last.weights[h], reference.heads[h].weights.row(t - 1).head(t).transpose()) <= 1e-12);
            CHECK((d.decoder->k_cache(h).topRows(t) - reference.heads[h].K.topRows(t)).cwiseAbs().maxCoeff() <= 1e-12);
        }
        CHECK(largest_difference(d.last.output, reference.output.row(t - 1).transpose()) <= 1e-12);
    }
    CHECK(ui.shows("1 + 2 + … + 7 = 28"));
    CHECK_FALSE(ui.st().view.items.empty());

    // Back rebuilds to t − 1; a scenario change keeps the step.
    ui.click(ui.item("decode_back"));
    CHECK(d.steps == 6);
    CHECK(largest_difference(d.last.weights[1], reference.heads[1].weights.row(5).head(6).transpose()) <= 1e-12);
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

TEST_CASE("issue 4: the √d_k panel's variances are d_k and 1 within 10%") {
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

TEST_CASE("issue 4: shuffling permutes the outputs exactly without positions, and not with them") {
    Ui ui(core::preset_it_sentence());
    ui.st().view.open["order"] = true;
    ui.st().view.open["weights"] = false; // under the order panel: keep its text out of screen_text()
    ui.frames(2);
    const core::Scenario start = ui.scenario();
    const core::Matrix old_output = ui.app().result().output;

    ui.click(ui.item("shuffle"));
    const std::vector<int> perm = ui.st().view.state<ui::OrderView>().perm;
    REQUIRE(perm.size() == 7);
    core::Scenario expected = start;
    core::edits::permute_tokens(expected, perm);
    CHECK(ui.scenario() == expected);
    for (int i = 0; i < 7; ++i)
        CHECK((ui.app().result().output.row(i) - old_output.row(perm[i])).cwiseAbs().maxCoeff() <= 1e-12);
    ui.frame();
    CHECK(ui.shows("✓ z_i = old z_perm[i] for every row"));
    CHECK(ui.shows("new order: " + ui.scenario().tokens[0] + " " + ui.scenario().tokens[1]));
    for (double d : ui.st().view.state<ui::OrderView>().check.differences) CHECK(d <= 1e-12);

    // One undo step brings the old order back.
    ui.key('Z', true);
    CHECK(ui.scenario() == start);

    // With sinusoidal positions the same shuffle changes the outputs beyond a permutation.
    ui.click(ui.item("order_positions"));
    REQUIRE(ui.scenario().positional == core::Positional::sinusoidal);
    const core::Matrix positioned = ui.app().result().output;
    ui.click(ui.item("shuffle"));
    const std::vector<int> again = ui.st().view.state<ui::OrderView>().perm;
    double worst = 0.0;
    for (int i = 0; i < 7; ++i) worst = std::max(worst, (ui.app().result().output.row(i) - positioned.row(again[i])).cwiseAbs().maxCoeff());
    CHECK(worst > 1e-3);
    ui.frame();
    CHECK(ui.shows("✗ the outputs did not just move with their tokens"));
    CHECK(*std::max_element(ui.st().view.state<ui::OrderView>().check.differences.begin(), ui.st().view.state<ui::OrderView>().check.differences.end()) == doctest::Approx(worst));
}

TEST_CASE("issue 4: the 8-head preset loads from the Presets menu and renders with every panel open") {
    Ui ui;
    open_all(ui);
    menu_click(ui, "Presets", "8 heads × 64 (seed 001)");
    REQUIRE(ui.scenario() == core::preset_eight_heads());
    const auto start = std::chrono::steady_clock::now();
    ui.frames(10);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / 10.0;
    MESSAGE("8 heads × 64, every panel open: " << ms << " ms a frame (headless)");
    CHECK(ImGui::GetDrawData()->TotalVtxCount < 200000); // big tables draw only what is visible
    check_heads(ui.scenario(), ui.app().result());
    CHECK(ui.st().view.state<ui::HeadsView>().thumbnails.size() == 8);
    ui.click(ui.item("decode_step"));
    CHECK(ui.st().view.state<ui::DecodeView>().steps == 1);
    ui.st().view.open["matrices"] = false;
    ui.frame();
    CHECK(ui.shows("Memory: 1 row × (d_k + d_v = 128) × 8 bytes = 1.0 KiB per head"));
}

TEST_CASE("issue 4: every control of the new panels has a tooltip") {
    Ui ui(core::random_scenario(4, 3, 2, 2, 2, true, 3));
    open_all(ui);
    ui.click(ui.item("decode_step"));
    ui.click(ui.item("shuffle"));
    for (const char* name : {"add_head", "remove_head", "use_W_O", "W_O_identity", "W_O_random", "decode_back", "decode_step",
                             "decode_play", "decode_reset", "scaling_d_k", "scaling_samples", "scaling_new_sample",
                             "scaling_same_axis", "shuffle", "order_positions"}) {
        CAPTURE(name);
        ui.move(ui.item(name));
        ui.frames(40); // past the tooltip delay
        const ImGuiWindow* tooltip = ImGui::FindWindowByName("##Tooltip_00");
        CHECK((tooltip != nullptr && tooltip->Active));
    }
}
