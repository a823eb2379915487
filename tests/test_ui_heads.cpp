// The heads panel: add and remove heads with its buttons, focus one by its thumbnail, W_O.
#include "headless.h"

#include "ui/panels/explore/decode.h"
#include "ui/panels/explore/heads.h"

#include <doctest/doctest.h>

#include <chrono>

using headless::Ui;

TEST_CASE("heads panel: adding and removing heads with the buttons keeps every table consistent") {
    Ui ui;
    ui.st().view.open["heads"] = true;
    ui.frames(2);
    ui.click(ui.item("add_head"));
    ui.click(ui.item("add_head"));
    REQUIRE(ui.scenario().heads.size() == 3);
    CHECK(ui.st().view.selected_head == 2); // the new head is in focus
    headless::check_shapes(ui.scenario(), ui.app().result());
    CHECK(ui.scenario().heads[0] == core::preset_three_tokens().heads[0]); // the first head is untouched

    // With W_O: ticking creates an identity-like ((H·d_v) × d_model) projection; heads keep it in step.
    ui.click(ui.item("use_W_O"));
    REQUIRE(ui.scenario().W_O.size() != 0);
    headless::check_shapes(ui.scenario(), ui.app().result());
    CHECK(ui.app().result().output == ui.app().result().concat.leftCols(2));
    ui.click(ui.item("W_O_random"));
    CHECK(ui.scenario().W_O(1, 1) != 1.0);
    for (int k = 0; k < 20; ++k) ui.click(ui.item("add_head")); // stops at 16
    CHECK(ui.scenario().heads.size() == 16);
    headless::check_shapes(ui.scenario(), ui.app().result());
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
    headless::check_shapes(ui.scenario(), ui.app().result());
    for (int k = 0; k < 20; ++k) ui.click(ui.item("remove_head")); // one head always stays
    CHECK(ui.scenario().heads.size() == 1);
    headless::check_shapes(ui.scenario(), ui.app().result());

    ui.click(ui.item("use_W_O"));
    CHECK(ui.scenario().W_O.size() == 0);
    headless::check_shapes(ui.scenario(), ui.app().result());
}

TEST_CASE("heads panel: the 8-head preset loads from the Presets menu and renders with every panel open") {
    Ui ui;
    headless::open_panels(ui, {"heads", "decode", "scaling", "order"});
    headless::menu_click(ui, "Presets", "8 heads × 64, d_model 512");
    REQUIRE(ui.scenario() == core::preset_eight_heads());
    const auto start = std::chrono::steady_clock::now();
    ui.frames(10);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() / 10.0;
    MESSAGE("8 heads × 64, every panel open: " << ms << " ms a frame (headless)");
    CHECK(ImGui::GetDrawData()->TotalVtxCount < 200000); // big tables draw only what is visible
    headless::check_shapes(ui.scenario(), ui.app().result());
    CHECK(ui.st().view.state<ui::HeadsView>().thumbnails.size() == 8);
    ui.click(ui.item("decode_step"));
    CHECK(ui.st().view.state<ui::DecodeView>().steps == 1);
    ui.st().view.open["matrices"] = false;
    ui.frame();
    CHECK(ui.shows("Memory: 1 row × (d_k + d_v = 128) × 8 bytes = 1.0 KiB per head"));
}
