// The table of panels (ui/panel_table.h): every row is reachable from its menu, draws at its slot,
// and nothing else decides which panels exist.
#include "headless.h"

#include "ui/panel_table.h"

#include <doctest/doctest.h>

#include <set>
#include <string>

using headless::Ui;

TEST_CASE("panel table: ids and titles are unique, and find_panel finds each row") {
    std::set<std::string> ids, titles;
    for (const ui::PanelSpec& p : ui::panel_table()) {
        CHECK(ids.insert(p.id).second);
        CHECK(titles.insert(p.title).second);
        CHECK(ui::find_panel(p.id) == &p);
        CHECK(static_cast<bool>(p.draw));
    }
    CHECK(ui::find_panel("no such panel") == nullptr);
}

TEST_CASE("panel table: each row's menu item opens or closes exactly that panel's window") {
    Ui ui;
    ui.frames(2);
    for (const ui::PanelSpec& p : ui::panel_table()) {
        INFO(p.id);
        const ImGuiWindow* before = ImGui::FindWindowByName(p.title);
        CHECK((before && before->Active) == p.open_at_start);
        headless::menu_click(ui, p.menu == ui::Menu::help ? "Help" : "View", p.title);
        ui.frames(2);
        CHECK(ui.st().view.open.at(p.id) == !p.open_at_start);
        const ImGuiWindow* after = ImGui::FindWindowByName(p.title);
        CHECK((after && after->Active) == !p.open_at_start);
    }
    // View ▸ Reset layout opens every panel that starts open, and leaves the others as they are.
    headless::menu_click(ui, "View", "Reset layout");
    ui.frame();
    for (const ui::PanelSpec& p : ui::panel_table()) {
        INFO(p.id);
        CHECK(ui.st().view.open.at(p.id) == true);
    }
}

TEST_CASE("panel table: a panel that shares its slot opens exactly over the one it covers, all fitting") {
    for (core::Scenario s : {core::preset_three_tokens(), core::preset_eight_heads()}) {
        Ui ui(s);
        headless::open_topic_panels(ui);
        std::vector<ImRect> covers;
        for (const ui::PanelSpec& p : ui::panel_table()) {
            // Centred ones float over the rest; the Lesson panel fills the left column (over its editors).
            if (p.menu != ui::Menu::view_topics || p.slot == ui::Slot::centre || p.slot == ui::Slot::left) continue;
            INFO(p.id);
            const ImGuiWindow* w = ImGui::FindWindowByName(p.title);
            REQUIRE(w != nullptr);
            CHECK(w->Active);
            const ImRect r = w->Rect();
            CHECK(r.Max.x <= 1600.0f);
            CHECK(r.Max.y <= 1000.0f);
            CHECK(w->ScrollMax.x == 0.0f); // everything fits; big tables scroll inside their own grids
            CHECK(w->ScrollMax.y == 0.0f);
            for (const ui::PanelSpec& q : ui::panel_table()) {
                if (&q == &p || q.slot == ui::Slot::centre || q.slot == ui::Slot::left) continue;
                const ImRect o = ImGui::FindWindowByName(q.title)->Rect();
                if (q.slot == p.slot) { // the panel it covers: exactly its place
                    CHECK(r.Min.x == o.Min.x);
                    CHECK(r.Min.y == o.Min.y);
                    CHECK(r.Max.x == o.Max.x);
                    CHECK(r.Max.y == o.Max.y);
                } else { // any other: no overlap
                    const ImRect overlap(ImMax(r.Min, o.Min), ImMin(r.Max, o.Max));
                    CHECK((overlap.GetWidth() <= 0.5f || overlap.GetHeight() <= 0.5f));
                }
            }
        }
    }
}

TEST_CASE("panels: every control of the topic panels has a tooltip") {
    Ui ui(core::random_scenario(core::Shape{}.with_tokens(4).with_d_model(3).with_d_k(2).with_d_v(2).with_heads(2).with_W_O(), 3));
    headless::open_panels(ui, {"heads", "decode", "scaling", "order"});
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
