// The panels, driven headless through real mouse and keyboard input (see headless.h).
#include "headless.h"

#include "core/io/scenario_io.h"
#include "ui/panel_table.h"
#include "ui/panels/explore/calculation.h"
#include "ui/panels/explore/heatmap.h"
#include "ui/panels/explore/query_arrow.h"
#include "ui/widgets.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using headless::Ui;

namespace {

// The titles of the panels the window opens with, from the Explore workspace's row.
std::vector<const char*> panels_open_at_start() {
    std::vector<const char*> titles;
    for (const ui::PanelSpec* p : headless::panels_open_at_start()) titles.push_back(p->title);
    return titles;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string temp_path(const char* name) { return "/tmp/attnviz_test_ui_" + std::to_string(getpid()) + "_" + name; }

// Whether a window drew its background: a rectangle in the background colour made opaque.
bool draws_background(const char* title) {
    const ImGuiWindow* w = ImGui::FindWindowByName(title);
    REQUIRE(w != nullptr);
    ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    bg.w = 1.0f;
    const ImU32 opaque = ImGui::ColorConvertFloat4ToU32(bg);
    for (const ImDrawVert& vertex : w->DrawList->VtxBuffer)
        if (vertex.col == opaque && vertex.pos.x == w->Pos.x && vertex.pos.y == w->Pos.y + w->TitleBarHeight()) return true;
    return false;
}

// The query arrow's view with row 3 ("sat") selected, once drawn.
const ui::ArrowView& arrow_of_row_3(Ui& ui) {
    ui.app().select_row(2);
    ui.frames(2);
    return ui.st().view.state<ui::ArrowView>();
}

} // namespace

TEST_CASE("ui: a panel draws its background only where it overlaps another (the frame is cleared to it)") {
    Ui ui;
    ui.frames(3);
    for (const char* name : panels_open_at_start()) {
        INFO(std::string(name));
        CHECK_FALSE(draws_background(name));
    }
    // Dragged by its title bar over the heatmap, the calculation panel becomes opaque, and so
    // does the heatmap under it; dragged back, neither is.
    ImGuiWindow* calculation = ImGui::FindWindowByName("Calculation");
    const ImVec2 title(calculation->Pos.x + 10.0f * ImGui::GetFontSize(), calculation->Pos.y + 0.5f * calculation->TitleBarHeight());
    const ImVec2 over_heatmap(title.x + 300.0f, title.y - 200.0f);
    ui.drag(title, over_heatmap);
    ui.frames(2);
    CHECK(draws_background("Calculation"));
    CHECK(draws_background("Attention heatmap"));
    CHECK_FALSE(draws_background("Controls"));
    ui.drag(over_heatmap, title);
    ui.frames(2);
    CHECK_FALSE(draws_background("Calculation"));
    CHECK_FALSE(draws_background("Attention heatmap"));
}

TEST_CASE("ui: every panel fits a 1600×1000 window without overlapping or scrolling") {
    Ui ui;
    ui.frames(3);
    std::vector<ImRect> rects;
    for (const char* name : panels_open_at_start()) {
        INFO(std::string(name));
        ImGuiWindow* w = ImGui::FindWindowByName(name);
        REQUIRE(w != nullptr);
        CHECK(w->Active);
        const ImRect r = w->Rect();
        CHECK(r.Min.x >= 0.0f);
        CHECK(r.Min.y >= 2.0f * ImGui::GetFrameHeight() - 0.5f); // below the menu bar and the workspaces' tabs
        CHECK(r.Max.x <= 1600.0f);
        CHECK(r.Max.y <= 1000.0f);
        CHECK(w->ScrollMax.x == 0.0f); // all content visible: nothing to scroll to
        CHECK(w->ScrollMax.y == 0.0f);
        for (const ImRect& other : rects) {
            const ImRect overlap(ImMax(r.Min, other.Min), ImMin(r.Max, other.Max));
            CHECK((overlap.GetWidth() <= 0.5f || overlap.GetHeight() <= 0.5f));
        }
        rects.push_back(r);
    }
}

TEST_CASE("ui: clicking heatmap row 3 selects \"sat\" and the calculation shows its numbers") {
    Ui ui;
    ui.frames(2);
    CHECK(ui.st().view.selected_row == 0);
    CHECK_FALSE(ui.shows("q_sat · k_the"));
    const ui::HeatmapView& hm = ui.st().view.state<ui::HeatmapView>();
    CHECK_FALSE(hm.textured);
    CHECK(hm.cell >= 2.2f * ImGui::GetFontSize()); // big enough to write the weights in
    ui.click(ImVec2(hm.origin.x + 1.5f * hm.cell, hm.origin.y + 2.5f * hm.cell));
    CHECK(ui.st().view.selected_row == 2);
    ui.frame();
    CHECK(ui.shows("query \"sat\" (row 3)"));
    CHECK(ui.shows("q_sat · k_the = 2·2 + 2·0 = 4"));
    CHECK(ui.shows("6 / √2 = 4.243"));
    CHECK(ui.shows("w_sat = 69.59 / 90.62 = 0.768"));
    // The weighted sum may wrap at the panel's width: its pieces are each on one line.
    CHECK(ui.shows("z_sat = 0.187·(1, 0) + 0.045·(0, 2)"));
    CHECK(ui.shows("0.768·(1, 2)"));
    CHECK(ui.shows("(0.955, 1.627)"));

    // The row label selects too.
    ui.click(ImVec2(hm.label_left + 0.3f * ImGui::GetFontSize(), hm.origin.y + 1.5f * hm.cell));
    CHECK(ui.st().view.selected_row == 1);
}

TEST_CASE("ui: ticking causal masks the future in the same frame") {
    Ui ui;
    ui.frames(2);
    CHECK(ui.head().weights(0, 0) == doctest::Approx(0.446).epsilon(1e-3));
    ui.move(ui.item("causal"));
    ui.press();
    ui.release(); // the checkbox toggles on this frame…
    CHECK(ui.scenario().causal);
    // …and the calculation, drawn after the editing panels in that same frame, already shows it.
    REQUIRE(ui.st().view.state<ui::CalculationCache>().row == 0);
    CHECK(ui.st().view.state<ui::CalculationCache>().explanation.heads[0].keys[1].masked);
    const core::HeadResult& h = ui.head();
    CHECK(h.weights(0, 0) == 1.0);
    CHECK(h.weights(0, 1) == 0.0);
    CHECK(h.weights(0, 2) == 0.0);
    CHECK(h.weights(1, 0) == doctest::Approx(0.5));
    CHECK(h.weights(1, 1) == doctest::Approx(0.5));
    CHECK(h.weights(2, 0) == doctest::Approx(0.187).epsilon(1e-2));
    CHECK(h.weights(2, 2) == doctest::Approx(0.768).epsilon(1e-3));
    CHECK(std::isinf(h.scaled(0, 2)));
    ui.frame(); // tables fit their columns to the previous frame's text
    CHECK(ui.shows("masked (k_cat comes after q_the): −∞"));
    CHECK(ui.shows("w_the = 4.113 / 4.113 = 1"));
}

TEST_CASE("ui: dragging the query arrow pins q — every matrix follows — one click releases it") {
    Ui ui;
    const ui::ArrowView& a = arrow_of_row_3(ui);
    const ImVec2 tip = a.q_tip;
    CHECK(tip.x == doctest::Approx(a.origin.x + 2.0f * a.scale));
    CHECK(tip.y == doctest::Approx(a.origin.y - 2.0f * a.scale));
    const double old_weight = ui.head().weights(2, 2);
    // Drag q from (2, 2) towards (−1, 1): it then points away from "the" and "sat".
    const float scale = a.scale;
    const ImVec2 origin = a.origin;
    ui.drag(tip, ImVec2(origin.x - 1.0f * scale, origin.y - 1.0f * scale));
    const core::Scenario& s = ui.scenario();
    REQUIRE(s.pin.has_value());
    CHECK(s.pin->row == 2);
    CHECK(s.pin->head == 0);
    CHECK(s.pin->q[0] == doctest::Approx(-1.0).epsilon(0.02));
    CHECK(s.pin->q[1] == doctest::Approx(1.0).epsilon(0.02));
    CHECK(ui.head().Q(2, 0) == s.pin->q[0]);
    CHECK(ui.head().Q(2, 1) == s.pin->q[1]);
    CHECK(ui.head().weights(2, 2) < old_weight - 0.3);
    CHECK(ui.head().weights(2, 1) > ui.head().weights(2, 0)); // "cat"'s key (0, 1) now matches best
    ui.frame();
    CHECK(ui.shows("q pinned — click to release"));
    CHECK(ui.shows("query \"sat\" (row 3) · d_k = 2 · q pinned by the query arrow"));

    ui.click(ui.item("release_pin"));
    CHECK_FALSE(ui.scenario().pin.has_value());
    CHECK(ui.head().Q(2, 0) == 2.0);
    CHECK(ui.head().weights(2, 2) == doctest::Approx(old_weight));
}

TEST_CASE("ui: when a drag of q ends, the axes stay and q's tip stays under the pointer; an edit elsewhere fits them again") {
    Ui ui;
    const ui::ArrowView& a = arrow_of_row_3(ui);
    const float scale = a.scale;
    const ImVec2 origin = a.origin, dropped(origin.x + 0.2f * scale, origin.y - 1.5f * scale); // q (0.2, 1.5), inside the plane
    REQUIRE(a.plane.Contains(dropped));
    ui.drag(a.q_tip, dropped);
    ui.frames(3);
    CHECK(a.scale <= scale); // grown only as far as a vector outside needs, about the tip
    CHECK(a.q_tip.x == doctest::Approx(dropped.x).epsilon(0.002));
    CHECK(a.q_tip.y == doctest::Approx(dropped.y).epsilon(0.002));
    ui.type_into(ui.item("q_x"), "3"); // typed: the axes fit q where it now is
    ui.frames(2);
    CHECK(a.scale != scale);
    CHECK(a.plane.Contains(a.q_tip));
}

TEST_CASE("ui: the query arrow says plainly when q = 0 and when q is long") {
    Ui ui(core::preset_it_sentence());
    ui.app().select_row(4); // "it"
    ui.frames(2);
    ui.type_into(ui.item("q_x"), "0");
    ui.type_into(ui.item("q_y"), "0");
    REQUIRE(ui.scenario().pin.has_value());
    CHECK(ui.scenario().pin->q.norm() == 0.0);
    ui.frame();
    CHECK(ui.shows("all weights equal: output = plain average of values"));
    CHECK(ui.shows("|q| = 0"));
    for (int j = 0; j < ui.scenario().n(); ++j) CHECK(ui.head().weights(4, j) == doctest::Approx(1.0 / 7.0));

    ui.st().scenario.pin->q = core::Vector::Constant(2, 0.0);
    ui.st().scenario.pin->q << 8.0, 2.0; // long, towards "cat"
    ui.frames(2);
    CHECK(ui.shows("one winner: w = "));
    CHECK(ui.shows("→ cat"));
}

TEST_CASE("ui: beyond 64 keys the query arrow draws each key as a dot and the 8 heaviest as arrows") {
    {
        Ui few(core::random_scenario(core::Shape{}.with_tokens(64).with_d_model(8).with_d_k(4).with_d_v(4), 3)); // one ImGui context at a time
        few.st().view.state<ui::ArrowView>().plane_kind = ui::ArrowPlane::dimensions;
        few.frames(2);
        CHECK_FALSE(few.shows("keys: each a dot"));
    }

    Ui ui(core::random_scenario(core::Shape{}.with_tokens(200).with_d_model(8).with_d_k(4).with_d_v(4), 3));
    ui.st().view.state<ui::ArrowView>().plane_kind = ui::ArrowPlane::dimensions; // the raw-dimension arrows
    ui.app().select_row(5);
    ui.frames(2);
    CHECK(ui.shows("200 keys: each a dot at its tip, the 8 heaviest as arrows", "Query arrow"));
    Eigen::Index heaviest = 0;
    ui.head().weights.row(5).maxCoeff(&heaviest);
    CHECK(ui.shows("k_" + ui.scenario().tokens[static_cast<size_t>(heaviest)], "Query arrow"));
}

TEST_CASE("ui: typing into an embedding cell changes X, Q and A") {
    Ui ui;
    ui.frames(2);
    ui.type_into(ui.grid_cell("X", 0, 0), "3"); // "the", dimension 1
    CHECK(ui.scenario().X(0, 0) == 3.0);
    CHECK(ui.head().Q(0, 0) == 3.0); // (3, 0) · W_Q = (3, 0)
    CHECK(ui.head().Q(0, 1) == 0.0);
    // K changed too: k_the = (6, 0). Scores of "the": 18, 0, 6.
    const double r2 = std::sqrt(2.0);
    CHECK(ui.head().weights(0, 0) == doctest::Approx(std::exp(18 / r2) / (std::exp(18 / r2) + 1 + std::exp(6 / r2))));

    // Typed numbers are kept exactly; dragged ones keep the 3 decimals the cell shows.
    ui.type_into(ui.grid_cell("X", 1, 0), "0.123456789");
    CHECK(ui.scenario().X(1, 0) == 0.123456789);
    const ImVec2 cell = ui.grid_cell("X", 2, 1);
    ui.drag(cell, ImVec2(cell.x + 7.0f, cell.y));
    const double dragged = ui.scenario().X(2, 1);
    CHECK(dragged != 1.0);
    CHECK(dragged == std::round(dragged * 1000.0) / 1000.0);
}

TEST_CASE("ui: a letter typed into a number cell is refused, a too large number is clamped with a message") {
    Ui ui;
    ui.frames(2);
    const core::Scenario before = ui.scenario();
    ui.type_into(ui.grid_cell("X", 1, 1), "abc");
    CHECK(ui.scenario() == before);

    ui.type_into(ui.grid_cell("W_Q", 0, 1), "5e9");
    CHECK(ui.scenario().heads[0].W_Q(0, 1) == 1e6);
    CHECK(ui.st().view.status_is_error);
    CHECK(contains(ui.st().view.status, "limited to ±1e6"));
    CHECK(ui.shows("limited to ±1e6")); // said in the window, not only stored
}

TEST_CASE("ui: a tooltip that appears in the frame the Open modal does is no ImGui assertion (monkey seed 1)") {
    Ui ui;
    ui.frames(2);
    const ImVec2 plane = ui.st().view.state<ui::ArrowView>().plane.GetCenter();
    ImGuiIO& io = ImGui::GetIO();
    io.KeyCtrl = true;
    io.KeysDown[static_cast<int>('O')] = true; // Ctrl+O with the mouse nowhere: the modal opens at the next frame…
    ui.frame();
    io.KeyCtrl = false;
    io.KeysDown[static_cast<int>('O')] = false;
    ui.move(plane); // …in which the mouse reaches the query arrow, whose tooltip appears
    ui.frames(2);
    const ImGuiWindow* modal = ImGui::FindWindowByName("Open scenario");
    REQUIRE(modal != nullptr);
    CHECK(modal->Active);
    CHECK(ui.shows("Recent folders", "Open scenario"));
}

TEST_CASE("ui: opening a bad file shows the error and leaves the scenario as it was — a good one opens") {
    Ui ui;
    ui.frames(2);
    const core::Scenario before = ui.scenario();
    const std::string bad = temp_path("bad.json");
    std::ofstream(bad) << R"({"X": [[1, "a"]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})";

    ui.key('O', true);
    REQUIRE(ui.st().dialog.title() == "Open scenario");
    ui.type(bad);
    ui.key(headless::key_enter);
    CHECK(ui.scenario() == before);
    CHECK(ui.st().dialog.open()); // still open, saying why
    CHECK(contains(ui.st().dialog.error(), "X[0][1]"));
    ui.frame();
    CHECK(ui.shows("X[0][1] is a string, expected a number", "Open scenario"));
    CHECK(ui.shows("Nothing was changed.", "Open scenario"));

    core::Scenario good = core::preset_it_sentence();
    good.causal = true;
    const std::string good_path = temp_path("good.json");
    core::io::save_scenario_file(good_path, good);
    ui.key('A', true);
    ui.type(good_path);
    ui.key(headless::key_enter);
    CHECK_FALSE(ui.st().dialog.open());
    CHECK(ui.scenario() == good);
    CHECK(ui.app().result().heads[0].weights(0, 0) == 1.0);
    std::remove(bad.c_str());
    std::remove(good_path.c_str());
}

TEST_CASE("ui: Save as writes a file that reads back the same") {
    Ui ui;
    ui.frames(2);
    const std::string path = temp_path("saved.json");
    ui.key('S', true, true);
    REQUIRE(ui.st().dialog.title() == "Save scenario as");
    ui.type(path);
    ui.key(headless::key_enter);
    CHECK_FALSE(ui.st().dialog.open());
    CHECK(core::io::load_scenario_file(path) == ui.scenario());
    std::remove(path.c_str());
}

TEST_CASE("ui: changing d_model keeps every matrix consistent") {
    Ui ui;
    ui.frames(2);
    ui.click(ui.item("d_model"));
    ui.type("4");
    ui.key(headless::key_enter);
    const core::Scenario& s = ui.scenario();
    REQUIRE(s.d_model() == 4);
    headless::check_shapes(s, ui.app().result());
    CHECK(ui.head().Q(2, 0) == 2.0); // the new dimensions are 0: nothing computed changed
    CHECK(ui.head().weights(2, 2) == doctest::Approx(0.768).epsilon(1e-3));
    ui.frames(2);
    // The new column is editable like the others, and in view at the default size.
    REQUIRE(ui.st().view.grids.at("X").visible.Contains(ui.grid_cell("X", 2, 3)));
    ui.type_into(ui.grid_cell("X", 2, 3), "1");
    CHECK(ui.scenario().X(2, 3) == 1.0);
    ui.type_into(ui.grid_cell("W_Q", 3, 0), "2");
    CHECK(ui.head().Q(2, 0) == 4.0);

    ui.click(ui.item("d_model"));
    ui.type("1");
    ui.key(headless::key_enter);
    REQUIRE(ui.scenario().d_model() == 1);
    headless::check_shapes(ui.scenario(), ui.app().result());
}

TEST_CASE("ui: adding a token adds a row everywhere") {
    Ui ui;
    ui.frames(2);
    ui.click(ui.item("add_token"));
    REQUIRE(ui.scenario().n() == 4);
    CHECK(ui.scenario().tokens[3] == "t4");
    CHECK(ui.st().view.selected_row == 3);
    headless::check_shapes(ui.scenario(), ui.app().result());
    CHECK(ui.head().weights.rows() == 4);
}

TEST_CASE("ui: a heatmap of 1024 tokens is a zoomable texture and every grid stays clipped") {
    Ui ui(core::random_scenario(core::Shape{}.with_tokens(1024).with_d_model(16).with_d_k(8).with_d_v(8), 7));
    ui.frames(2);
    const ui::HeatmapView& hm = ui.st().view.state<ui::HeatmapView>();
    CHECK(hm.textured);
    CHECK(hm.texture_size == 1024);
    CHECK(ImGui::FindWindowByName("Attention heatmap")->ScrollMax.y == 0.0f); // the map, legend and hint fit
    // Only visible cells are drawn: a handful of vertices per visible cell, not per entry.
    CHECK(ImGui::GetDrawData()->TotalVtxCount < 200000);

    const float before = hm.cell;
    ui.wheel(hm.area.GetCenter(), 5.0f);
    CHECK(hm.zoom > 2.0f);
    CHECK(hm.cell > 2.0f * before);
    // A click lands on the row under the mouse, zoomed and panned as it is.
    // ImGui floors the mouse position to whole pixels; the expected row is the one under that pixel.
    const ImVec2 at(std::floor(hm.area.Min.x + 10.0f), std::floor(hm.area.GetCenter().y));
    const int expected = static_cast<int>((at.y - hm.origin.y) / hm.cell);
    ui.click(at);
    CHECK(ui.st().view.selected_row == expected);
    // Dragging pans.
    const ImVec2 pan = hm.pan;
    ui.drag(hm.area.GetCenter(), ImVec2(hm.area.GetCenter().x - 50.0f, hm.area.GetCenter().y - 50.0f));
    CHECK(hm.pan.x > pan.x);
    CHECK(hm.pan.y > pan.y);
    CHECK(ui.st().view.selected_row == expected); // a drag is not a click
}

TEST_CASE("ui: a heatmap of 4096 tokens zooms about the mouse and pans, one texel per cell") {
    Ui ui(core::random_scenario(core::Shape{}.with_tokens(4096).with_d_model(8).with_d_k(4).with_d_v(4).with_W_O(), 11));
    ui.st().view.open["query_arrow"] = false; // its query–key plane has a texture of its own
    ui.frames(2);
    const ui::HeatmapView& hm = ui.st().view.state<ui::HeatmapView>();
    REQUIRE(hm.textured);
    CHECK(hm.texture_size == 4096);
    CHECK(hm.cell < 1.0f); // more cells than pixels: the texture is minified
    const float before = hm.cell;
    const ImVec2 mouse(std::floor(hm.area.Min.x + hm.area.GetWidth() * 0.75f), std::floor(hm.area.Min.y + hm.area.GetHeight() * 0.25f));
    const ImVec2 cell_under_mouse((mouse.x - hm.origin.x) / hm.cell, (mouse.y - hm.origin.y) / hm.cell);
    ui.wheel(mouse, 20.0f);
    CHECK(hm.zoom > 50.0f);
    CHECK(hm.cell > 50.0f * before);
    // The cell under the mouse stays under it.
    CHECK((mouse.x - hm.origin.x) / hm.cell == doctest::Approx(cell_under_mouse.x).epsilon(0.01));
    CHECK((mouse.y - hm.origin.y) / hm.cell == doctest::Approx(cell_under_mouse.y).epsilon(0.01));
    const ImVec2 pan = hm.pan;
    ui.drag(hm.area.GetCenter(), ImVec2(hm.area.GetCenter().x + 40.0f, hm.area.GetCenter().y + 40.0f));
    CHECK(hm.pan.x < pan.x);
    CHECK(hm.pan.y < pan.y);
    CHECK(ui.textures().created == 1); // zooming and panning only move over the same texture
    CHECK(ui.textures().rows_written == 4096);
}

TEST_CASE("ui: the heatmap texture is written once per change of the weights, in place, in bands") {
    Ui ui(core::random_scenario(core::Shape{}.with_tokens(1024).with_d_model(16).with_d_k(8).with_d_v(8), 7));
    ui.st().view.open["query_arrow"] = false; // its query–key plane has a texture of its own
    ui.frames(3);
    const ui::HeatmapView& hm = ui.st().view.state<ui::HeatmapView>();
    CHECK(ui.textures().created == 1);
    CHECK(ui.textures().rows_written == 1024); // three frames, one write: nothing changed
    CHECK(hm.band.size() < 1024u * 1024u * 4u / 8u);

    ui.st().view.state<ui::HeatmapView>().stretch = true; // another top colour: the same texture, rewritten
    ui.frames(2);
    CHECK(ui.textures().created == 1);
    CHECK(ui.textures().rows_written == 2 * 1024);
    ui.st().scenario.causal = true;
    ui.frames(2);
    CHECK(ui.textures().created == 1);
    CHECK(ui.textures().rows_written == 3 * 1024);

    ui.st().scenario = core::random_scenario(core::Shape{}.with_tokens(600).with_d_model(8).with_d_k(4).with_d_v(4), 8); // another size: a new texture
    ui.frames(2);
    CHECK(ui.textures().created == 2);
    CHECK(ui.textures().released == 1);
    CHECK(hm.texture_size == 600);
    CHECK(ui.textures().rows_written == 3 * 1024 + 600);
}

TEST_CASE("ui: presets, heads and the tooltip on a control") {
    Ui ui;
    ui.frames(2);
    ui.st().view.request_preset = 3; // 8 heads × 64, d_model 512
    ui.frames(2);
    REQUIRE(ui.scenario().heads.size() == 8);
    CHECK(ImGui::GetDrawData()->TotalVtxCount < 200000);
    CHECK(ui.st().view.items.count("head") == 1);
    ui.key('Z', true);
    CHECK(ui.scenario() == core::preset_three_tokens());

    ui.move(ui.item("causal"));
    ui.frames(40); // past the tooltip delay
    CHECK(ui.shows("Each token sees only itself"));
}

TEST_CASE("ui: a thousand random clicks, drags, wheels and keys never leave the scenario invalid") {
    // Files a random Save as might write land in a fresh folder, not in the build tree.
    const std::string dir = temp_path("monkey");
    REQUIRE(mkdir(dir.c_str(), 0700) == 0);
    char previous[4096];
    REQUIRE(getcwd(previous, sizeof previous) != nullptr);
    REQUIRE(chdir(dir.c_str()) == 0);
    {
        Ui ui(core::preset_it_sentence());
        ui.frames(2);
        std::mt19937 rng(2026); // a walk that reaches the editing panels in this layout
        auto coord = [&](float max) { return std::uniform_real_distribution<float>(0.0f, max)(rng); };
        const char keys[] = "0123456789.-ea";
        int changes = 0;
        for (int step = 0; step < 1000; ++step) {
            const core::Scenario before = ui.scenario();
            const ImVec2 p(coord(1600), coord(1000));
            switch (rng() % 8) {
            case 0: case 1: ui.click(p); break;
            case 2: ui.double_click(p); break;
            case 3: ui.drag(p, ImVec2(coord(1600), coord(1000)), 3); break;
            case 4: ui.wheel(p, rng() % 2 ? 1.0f : -1.0f); break;
            case 5: ui.type(std::string(1, keys[rng() % (sizeof keys - 1)])); break;
            case 6: ui.key(rng() % 2 ? headless::key_enter : headless::key_escape); break;
            case 7: ui.key('Z', true, rng() % 2 == 0); break;
            }
            INFO("step " << step);
            headless::check_shapes(ui.scenario(), ui.app().result());
            REQUIRE(ui.st().view.selected_row < ui.scenario().n());
            changes += ui.scenario() != before;
        }
        MESSAGE(changes << " of 1000 random events changed the scenario");
        CHECK(changes > 20); // the monkey really edits, it does not only miss
    }
    REQUIRE(chdir(previous) == 0);
    std::filesystem::remove_all(dir);
}

TEST_CASE("ui: a token wider than its heatmap column is cut with an ellipsis, never mid-character") {
    Ui ui;
    ui.frames(1);
    const float cut_width = ImGui::CalcTextSize("bec…").x;
    CHECK(ui::fit_text("because", 100.0f * cut_width) == "because");
    CHECK(ui::fit_text("because", cut_width) == "bec…");
    CHECK(ui::fit_text("naïve", ImGui::CalcTextSize("naï…").x) == "naï…"); // ï is two bytes, kept whole
    CHECK(ui::fit_text("naïve", ImGui::CalcTextSize("na…").x) == "na…");
    CHECK(ui::fit_text("because", 0.0f) == "…");
}
