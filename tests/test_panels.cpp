// The table of panels (ui/panel_table.h): every row is reachable from its menu, draws at its slot,
// and nothing else decides which panels exist.
#include "headless.h"

#include "ui/model_service.h"
#include "ui/panel_table.h"
#include "ui/workspace_table.h"
#include "ui/workspaces.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>
#include <string>

using headless::Ui;

namespace {

// The bundled model in the session, without the switch to the Model workspace that opening it from
// the window makes: the live model's panels wait for a model.
void with_a_model(Ui& ui) {
    std::string error;
    REQUIRE(ui.st().view.state<ui::ModelService>().session.open(ui::bundled_model_dir(), error));
}

} // namespace

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

// Whether a panel edits is read off its draw's parameters (a core::Scenario& that is not const); the
// panels that edit are drawn first, each followed by a recompute.
TEST_CASE("panel table: the panels that edit the scenario are exactly these") {
    std::set<std::string> editing;
    for (const ui::PanelSpec& p : ui::panel_table())
        if (p.edits_scenario) editing.insert(p.id);
    CHECK(editing == std::set<std::string>{"controls", "tokens", "weights", "query_arrow", "heads", "order", "train", "lesson",
                                           "model_steps"});
}

TEST_CASE("panel table: each row's menu item opens or closes exactly that panel's window (or its workspace)") {
    for (const ui::PanelSpec& p : ui::panel_table()) {
        INFO(std::string(p.id));
        Ui ui;
        with_a_model(ui);
        ui.frames(2);
        const std::vector<const ui::PanelSpec*> explore = headless::panels_open_at_start();
        const bool open_at_start = std::find(explore.begin(), explore.end(), &p) != explore.end();
        const ImGuiWindow* before = ImGui::FindWindowByName(p.title);
        CHECK((before && before->Active) == open_at_start);
        if (p.menu == ui::Menu::view_model) headless::submenu_click(ui, "View", "Model panels", p.title);
        else headless::menu_click(ui, p.menu == ui::Menu::help ? "Help" : "View", p.title);
        ui.frames(2);
        CHECK(ui.st().view.open.at(p.id) == !open_at_start);
        const ImGuiWindow* after = ImGui::FindWindowByName(p.title);
        CHECK((after && after->Active) == !open_at_start);
        // A workspace's home panel takes you to that workspace (the Lesson to Learn, Train to Train).
        const int home = ui::home_workspace_of(p.id);
        CHECK(ui.app().workspace() == ui::workspace_table()[static_cast<std::size_t>(home >= 0 ? home : 0)].id);
    }
}

TEST_CASE("workspaces: every panel a workspace lists opens exactly at its place, inside the window, covering only its own place") {
    for (core::Scenario s : {core::preset_three_tokens(), core::preset_eight_heads()}) {
        Ui ui(s);
        with_a_model(ui);
        for (const ui::WorkspaceSpec& w : ui::workspace_table()) {
            INFO(std::string(w.id));
            REQUIRE(ui.app().set_workspace(w.id));
            ui.frames(2);
            // One at a time: a workspace may hold alternatives (the Model workspace's live model and
            // attention file), and opening one closes the other's panels.
            for (const ui::PanelPlace& p : w.panels) {
                ui.st().view.open[p.panel] = true;
                ui.frames(3);
                const ImRect area = ui::work_area();
                const ui::PanelSpec* panel = ui::find_panel(p.panel);
                REQUIRE(panel != nullptr);
                INFO(std::string(p.panel));
                const ImGuiWindow* win = ImGui::FindWindowByName(panel->title);
                REQUIRE(win != nullptr);
                CHECK(win->Active);
                const ImRect r = win->Rect(), expected = ui::to_pixels(ui::fitted_place(ui.st().workspaces, ui.st().view, p.panel), area);
                CHECK(r.Min.x == expected.Min.x);
                CHECK(r.Min.y == expected.Min.y);
                CHECK(r.Max.x == expected.Max.x);
                CHECK(r.Max.y == expected.Max.y);
                CHECK(r.Min.y >= area.Min.y);
                CHECK(r.Max.x <= 1600.0f);
                CHECK(r.Max.y <= 1000.0f);
                if (std::string(w.id) == "explore" && panel->menu == ui::Menu::view_topics) {
                    CHECK(win->ScrollMax.x == 0.0f); // everything fits; big tables scroll inside their own grids
                    CHECK(win->ScrollMax.y == 0.0f);
                }
                for (const ui::PanelPlace& q : w.panels) { // another open panel's place: no overlap, but for a place over the others
                    if (!ui.st().view.open[q.panel]) continue;
                    const ImRect o = ui::to_pixels(q.place, area);
                    if (&q == &p || p.over_others || q.over_others || (o.Min.x == expected.Min.x && o.Min.y == expected.Min.y && o.Max.x == expected.Max.x && o.Max.y == expected.Max.y)) continue;
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
