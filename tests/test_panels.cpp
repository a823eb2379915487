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

TEST_CASE("panel table: a panel that shares its slot opens exactly over the panel it covers") {
    Ui ui(core::preset_three_tokens());
    for (const ui::PanelSpec& p : ui::panel_table()) ui.st().view.open[p.id] = true;
    ui.frames(3);
    for (const ui::PanelSpec& p : ui::panel_table()) {
        INFO(p.id);
        const ImGuiWindow* w = ImGui::FindWindowByName(p.title);
        REQUIRE(w != nullptr);
        CHECK(w->Active);
        for (const ui::PanelSpec& q : ui::panel_table()) {
            if (&q == &p) break;
            if (q.slot != p.slot) continue;
            const ImGuiWindow* under = ImGui::FindWindowByName(q.title);
            CHECK(w->Rect().Min.x == under->Rect().Min.x);
            CHECK(w->Rect().Min.y == under->Rect().Min.y);
            CHECK(w->Rect().Max.x == under->Rect().Max.x);
            CHECK(w->Rect().Max.y == under->Rect().Max.y);
        }
    }
}
