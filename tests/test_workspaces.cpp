// The workspaces (ui/workspace_table.h), driven headless: switched by the tabs, the menu and the
// keys; their places on a 1280 × 720 screen; the user's places and open panels kept per workspace
// across a restart; Reset layout; and the workspaces that opening a lesson, a model's attention
// or the Train panel takes you to.
#include "headless.h"
#include "ui/model_service.h"

#include "app/window/autosave.h"
#include "app/cli/cli.h"
#include "app/cli/cli_scenario.h"
#include "core/io/npy.h"
#include "core/io/scenario_io.h"
#include "tests/array_files.h"
#include "tests/fixture_files.h"
#include "ui/panels/model/attention.h"
#include "ui/panels/train/train.h"
#include "ui/panels/train/train_curves.h"
#include "ui/workspace_table.h"
#include "ui/workspaces.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

using headless::Ui;

namespace {

const ImVec2 laptop(1280, 720);

ImRect window_rect(const char* panel) {
    const ui::PanelSpec* p = ui::find_panel(panel);
    REQUIRE(p != nullptr);
    const ImGuiWindow* w = ImGui::FindWindowByName(p->title);
    REQUIRE(w != nullptr);
    return w->Rect();
}

bool window_shown(const char* panel) {
    const ImGuiWindow* w = ImGui::FindWindowByName(ui::find_panel(panel)->title);
    return w && w->Active;
}

ImVec2 title_bar(const char* panel) {
    const ImRect r = window_rect(panel);
    return ImVec2(r.Min.x + 0.5f * r.GetWidth(), r.Min.y + 0.5f * ImGui::GetFrameHeight());
}

// Clicks the tab of workspace `title` in the bar under the menu.
void click_tab(Ui& ui, const char* title) {
    const ImGuiWindow* bar = ImGui::FindWindowByName("##workspaces");
    REQUIRE(bar != nullptr);
    const float y = bar->Pos.y + 0.5f * bar->Size.y;
    ui.click(headless::find_item(ui, "##workspaces", {"workspaces", title}, ImVec2(0, y), ImVec2(bar->Size.x, y)));
    ui.frames(2);
}

// View ▸ Workspace ▸ `title`.
void workspace_from_menu(Ui& ui, const char* title) {
    const float bar_y = 0.5f * ImGui::GetFrameHeight();
    ui.click(headless::find_item(ui, "##MainMenuBar", {"##menubar", "View"}, ImVec2(0, bar_y), ImVec2(800, bar_y)));
    const ImGuiWindow* view = ImGui::FindWindowByName("##Menu_00");
    REQUIRE(view != nullptr);
    const float x = view->Pos.x + 2.0f * ImGui::GetFontSize();
    ui.move(headless::find_item(ui, "##Menu_00", {"Workspace"}, ImVec2(x, view->Pos.y), ImVec2(x, view->Pos.y + view->Size.y)));
    ui.frames(2);
    const ImGuiWindow* sub = ImGui::FindWindowByName("##Menu_01");
    REQUIRE(sub != nullptr);
    const float sx = sub->Pos.x + 2.0f * ImGui::GetFontSize();
    ui.click(headless::find_item(ui, "##Menu_01", {title}, ImVec2(sx, sub->Pos.y), ImVec2(sx, sub->Pos.y + sub->Size.y)));
    ui.frames(2);
}

bool near(ImVec2 a, ImVec2 b) { return std::abs(a.x - b.x) <= 1.0f && std::abs(a.y - b.y) <= 1.0f; }

// A (layers, heads, n, n) file of causal attention weights, each row spread evenly.
std::string attention_file(const std::string& dir, int layers, int heads, int n) {
    core::io::Tensor t{{layers, heads, n, n}, {}, core::io::DType::f32};
    for (int k = 0; k < layers * heads; ++k)
        for (int i = 0; i < n; ++i)
            for (int j = 0; j < n; ++j) t.values.push_back(j <= i ? 1.0f / static_cast<float>(i + 1) : 0.0f);
    const std::string path = dir + "/att.npy";
    fixtures::write_npy(path, t);
    return path;
}

} // namespace

TEST_CASE("workspaces: the tabs, View > Workspace and Ctrl+1 … Ctrl+4 switch, each with its own panels") {
    Ui ui(core::preset_three_tokens(), laptop);
    ui.frames(2);
    CHECK(ui.app().workspace() == "explore");
    CHECK(window_shown("heatmap"));
    CHECK_FALSE(window_shown("train"));
    click_tab(ui, "Train");
    CHECK(ui.app().workspace() == "train");
    CHECK(window_shown("train"));
    CHECK_FALSE(window_shown("heatmap"));
    workspace_from_menu(ui, "Model");
    CHECK(ui.app().workspace() == "model");
    CHECK(window_shown("model"));
    CHECK_FALSE(window_shown("model_grid")); // no model is open: the start view alone
    CHECK_FALSE(window_shown("attention")); // a live model is the source until a file of attention opens
    CHECK_FALSE(window_shown("train"));
    ui.key('2', true);
    CHECK(ui.app().workspace() == "learn");
    CHECK(window_shown("lesson"));
    ui.key('1', true);
    CHECK(ui.app().workspace() == "explore");
    CHECK(window_shown("controls"));
    CHECK_FALSE(window_shown("lesson"));
    CHECK(ui.shows("ExploreLearnTrainModel", "##workspaces"));
}

TEST_CASE("workspaces: at 1280 x 720 every panel of every workspace is at its place, inside the screen, none over another") {
    for (const ui::WorkspaceSpec& w : ui::workspace_table()) {
        INFO(std::string(w.id));
        Ui ui(core::preset_it_sentence(), laptop);
        std::string error; // the live model's panels wait for a model
        REQUIRE(ui.st().view.state<ui::ModelService>().session.open(ui::bundled_model_dir(), error));
        REQUIRE(ui.app().set_workspace(w.id));
        ui.frames(3);
        const ImRect area = ui::work_area();
        CHECK(area.Min.y >= 2.0f * ImGui::GetFrameHeight() - 0.5f); // under the menu bar and the tabs
        std::vector<ImRect> placed;
        for (const ui::PanelPlace& p : w.panels) {
            INFO(std::string(p.panel));
            CHECK(window_shown(p.panel) == p.open_at_start);
            if (!p.open_at_start) continue;
            const ImRect r = window_rect(p.panel), expected = ui::to_pixels(ui::fitted_place(ui.st().workspaces, ui.st().view, p.panel), area);
            CHECK(near(r.Min, expected.Min));
            CHECK(near(r.Max, expected.Max));
            CHECK(r.Min.x >= 0.0f);
            CHECK(r.Min.y >= area.Min.y);
            CHECK(r.Max.x <= laptop.x);
            CHECK(r.Max.y <= laptop.y);
            for (const ImRect& o : placed) {
                const ImRect overlap(ImMax(r.Min, o.Min), ImMin(r.Max, o.Max));
                CHECK((overlap.GetWidth() <= 0.5f || overlap.GetHeight() <= 0.5f));
            }
            placed.push_back(r);
        }
    }
}

TEST_CASE("workspaces: a panel grows down over the place below it while no open panel takes it, and gives it back when one opens there") {
    Ui ui(core::preset_three_tokens(), laptop);
    REQUIRE(ui.app().set_workspace("learn"));
    ui.frames(3);
    const ui::WorkspaceSpec& learn = ui::workspace_table()[1];
    REQUIRE(std::string(learn.id) == "learn");
    const ImRect area = ui::work_area();
    const ImRect matrices = ui::to_pixels(ui::place_in(learn, "matrices"), area), calculation = ui::to_pixels(ui::place_in(learn, "calculation"), area);
    const ImRect heatmap = ui::to_pixels(ui::place_in(learn, "heatmap"), area);
    REQUIRE(matrices.Max.y < area.Max.y - 100.0f); // its own place is the upper half
    // Learn starts with the lesson, Matrices and the heatmap: nothing under the two, so both reach the bottom.
    CHECK(near(window_rect("matrices").Min, matrices.Min));
    CHECK(near(window_rect("matrices").Max, ImVec2(matrices.Max.x, area.Max.y)));
    CHECK(near(window_rect("heatmap").Max, ImVec2(heatmap.Max.x, area.Max.y)));
    // The calculation opens under Matrices, which gives its lower half back; the heatmap keeps its height.
    ui.st().view.open["calculation"] = true;
    ui.frames(3);
    CHECK(near(window_rect("matrices").Max, matrices.Max));
    CHECK(near(window_rect("calculation").Min, calculation.Min));
    CHECK(near(window_rect("calculation").Max, calculation.Max));
    CHECK(near(window_rect("heatmap").Max, ImVec2(heatmap.Max.x, area.Max.y)));
    // Closed again: Matrices takes the place back.
    ui.st().view.open["calculation"] = false;
    ui.frames(3);
    CHECK(near(window_rect("matrices").Max, ImVec2(matrices.Max.x, area.Max.y)));
    // A panel the user resized stays as they left it when others open and close.
    const ImRect before = window_rect("heatmap");
    ui.drag(ImVec2(before.Max.x - 3.0f, before.Max.y - 3.0f), ImVec2(before.Max.x - 3.0f, before.Max.y - 203.0f));
    ui.frames(2);
    const ImRect resized = window_rect("heatmap");
    CHECK(resized.Max.y < before.Max.y - 150.0f);
    ui.st().view.open["query_arrow"] = true;
    ui.frames(3);
    ui.st().view.open["query_arrow"] = false;
    ui.frames(3);
    CHECK(near(window_rect("heatmap").Max, resized.Max));
}

TEST_CASE("workspaces: a moved panel stays moved after a restart, in its own workspace — a closed one stays closed") {
    std::string layout;
    ImVec2 explore_at, learn_at;
    {
        Ui ui(core::preset_three_tokens(), laptop);
        ui.frames(2);
        ui.drag(title_bar("heatmap"), ImVec2(title_bar("heatmap").x - 200, title_bar("heatmap").y + 120));
        explore_at = window_rect("heatmap").Min;
        headless::menu_click(ui, "View", ui::find_panel("query_arrow")->title); // closes it
        ui.frames(2);
        CHECK_FALSE(window_shown("query_arrow"));
        ui.key('2', true);
        ui.frames(2);
        ui.drag(title_bar("heatmap"), ImVec2(title_bar("heatmap").x - 350, title_bar("heatmap").y + 60));
        learn_at = window_rect("heatmap").Min;
        CHECK_FALSE(near(explore_at, learn_at));
        layout = ImGui::SaveIniSettingsToMemory();
    }
    CHECK(layout.find("[Workspace][explore]") != std::string::npos);
    Ui ui(core::preset_three_tokens(), laptop);
    ImGui::LoadIniSettingsFromMemory(layout.c_str(), layout.size());
    ui.frames(3);
    CHECK(ui.app().workspace() == "learn"); // where the last session ended
    CHECK(near(window_rect("heatmap").Min, learn_at));
    ui.key('1', true);
    CHECK(near(window_rect("heatmap").Min, explore_at));
    CHECK_FALSE(window_shown("query_arrow"));
    CHECK(window_shown("calculation"));
}

TEST_CASE("workspaces: View > Reset layout puts the current workspace back as it starts, and only that one") {
    Ui ui(core::preset_three_tokens(), laptop);
    ui.frames(2);
    ui.key('2', true);
    ui.drag(title_bar("heatmap"), ImVec2(title_bar("heatmap").x - 300, title_bar("heatmap").y + 80));
    const ImVec2 learn_at = window_rect("heatmap").Min;
    ui.key('1', true);
    const ImRect home = window_rect("heatmap");
    ui.drag(title_bar("heatmap"), ImVec2(title_bar("heatmap").x - 250, title_bar("heatmap").y + 100));
    CHECK_FALSE(near(window_rect("heatmap").Min, home.Min));
    headless::menu_click(ui, "View", ui::find_panel("controls")->title); // closed
    headless::menu_click(ui, "View", ui::find_panel("scaling")->title);  // opened
    ui.frames(2);
    CHECK_FALSE(window_shown("controls"));
    CHECK(window_shown("scaling"));
    headless::menu_click(ui, "View", "Reset layout");
    ui.frames(2);
    CHECK(near(window_rect("heatmap").Min, home.Min));
    CHECK(near(window_rect("heatmap").Max, home.Max));
    CHECK(window_shown("controls"));
    CHECK_FALSE(window_shown("scaling"));
    ui.key('2', true);
    CHECK(near(window_rect("heatmap").Min, learn_at)); // Learn kept its own
}

TEST_CASE("workspaces: a lesson opens Learn, a model's attention opens Model, the Train panel opens Train") {
    const std::string dir = fixtures::temp_dir();
    SUBCASE("a lesson from the Learn menu") {
        Ui ui(core::preset_three_tokens(), laptop);
        ui.frames(2);
        headless::menu_click(ui, "Learn", "Every token looks at every other");
        ui.frames(2);
        CHECK(ui.app().workspace() == "learn");
        CHECK(window_shown("lesson"));
        CHECK(window_rect("lesson").Min.x == 0.0f);
        // The panels its first step opens sit beside the text, never over it.
        CHECK(window_shown("heatmap"));
        CHECK(window_rect("heatmap").Min.x >= window_rect("lesson").Max.x);
        CHECK(window_rect("query_arrow").Min.x >= window_rect("lesson").Max.x);
        CHECK(ui.shows("◂BacktoExplore", "##workspaces"));
    }
    SUBCASE("a dropped attention file, and File > Open attention weights…") {
        Ui ui(core::preset_three_tokens(), laptop);
        ui.frames(2);
        ui.app().drop_files({attention_file(dir, 2, 3, 6)});
        ui.frames(3);
        REQUIRE(ui.st().drops.offer.has_value());
        ui.click(ui.st().drops.items.at("attention").GetCenter());
        ui.frames(2);
        CHECK(ui.app().workspace() == "model");
        ui::AttentionView& viewer = ui.st().view.state<ui::AttentionView>();
        REQUIRE(viewer.file != nullptr);
        CHECK(window_shown("attention"));
        CHECK(window_shown("attention_map"));
        CHECK(window_shown("attention_keys"));
        CHECK(window_shown("model")); // the source: the file, with the way back to a live model
        CHECK_FALSE(window_shown("model_grid"));
        ui.key('1', true);
        headless::menu_click(ui, "File", "Open attention weights…");
        ui.frames(2);
        CHECK(ui.app().workspace() == "model");
        ui.key(headless::key_escape);
        viewer.close();
    }
    SUBCASE("View > Train a tiny transformer; a head opens in Explore and the way back returns to Train as it was") {
        Ui ui(core::preset_three_tokens(), laptop);
        ui.frames(2);
        headless::menu_click(ui, "View", ui::find_panel("train")->title);
        ui.frames(3);
        CHECK(ui.app().workspace() == "train");
        ui::TrainView& t = ui.st().view.state<ui::TrainView>();
        t.live = false;
        t.log_x = true;
        const core::Scenario before = ui.scenario();
        ui.click(ui.item("train.open.1.2"));
        ui.frames(3); // a new tab shows a frame after it is first submitted
        CHECK(ui.app().workspace() == "explore");
        CHECK(ui.scenario() != before);
        CHECK(ui.scenario().causal);
        CHECK(window_shown("matrices"));
        REQUIRE(ui.shows("◂BacktoTrain", "##workspaces"));
        const ImGuiWindow* bar = ImGui::FindWindowByName("##workspaces");
        const float y = bar->Pos.y + 0.5f * bar->Size.y;
        ui.click(headless::find_item(ui, "##workspaces", {"workspaces", "◂ Back to Train"}, ImVec2(0, y), ImVec2(laptop.x, y)));
        ui.frames(2);
        CHECK(ui.app().workspace() == "train");
        CHECK(window_shown("train"));
        CHECK_FALSE(t.live); // as it was
        CHECK(t.log_x);
        CHECK_FALSE(ui.shows("◂BacktoTrain", "##workspaces"));
    }
    std::remove((dir + "/att.npy").c_str());
}

TEST_CASE("workspaces: the layout file's sections round-trip, and lines that make no sense are skipped") {
    ui::Workspaces w;
    w.current = 2;
    w.layouts[1]["heatmap"] = ui::PanelLayout{ui::Place{0.1f, 0.2f, 0.6f, 0.7f}, false};
    ui::Workspaces back;
    const std::string text = ui::layout_text(w);
    std::string section;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = text.find('\n', at);
        const std::string line = text.substr(at, end - at);
        at = end + 1;
        if (line.rfind("[Workspace][", 0) == 0) section = line.substr(12, line.size() - 13);
        else if (!line.empty()) ui::read_layout_line(back, section, line);
    }
    CHECK(back.current == 2);
    const ui::PanelLayout& h = back.layouts[1]["heatmap"];
    CHECK(h.place.x0 == doctest::Approx(0.1f));
    CHECK(h.place.y1 == doctest::Approx(0.7f));
    CHECK_FALSE(h.open);
    const ui::PanelLayout before = back.layouts[0]["controls"];
    for (const char* bad : {"controls=nan,0,1,1,1", "controls=0,0,1", "controls=0,0,1,1,7", "controls=0.5,0.5,0.4,0.9,1",
                            "controls=0,1.5,1,2,1", "controls=0,0,0.5,0.5,1junk", "nosuchpanel=0,0,1,1,1", "controls"}) {
        INFO(std::string(bad));
        ui::read_layout_line(back, "explore", bad);
        CHECK(back.layouts[0]["controls"].place.x1 == before.place.x1);
        CHECK(back.layouts[0]["controls"].open == before.open);
    }
    ui::read_layout_line(back, "#current", "id=nosuchworkspace");
    ui::read_layout_line(back, "nosuchworkspace", "controls=0,0,1,1,1");
    CHECK(back.current == 2);
}

TEST_CASE("the command line beats the last session: a FILE, --preset or --lesson opens — with nothing named the session is offered") {
    const std::string dir = fixtures::temp_dir(), session = dir + "/session.json", scene = dir + "/scene.json";
    core::io::save_scenario_file(scene, core::preset_eight_heads());
    const auto start = [&](std::vector<const char*> args) {
        std::ofstream(session) << core::io::to_json_text(core::preset_it_sentence()); // the last session
        args.insert(args.begin(), "attnviz");
        const app::Options o = app::parse_args(static_cast<int>(args.size()), args.data());
        core::Scenario named;
        REQUIRE(app::load_scenario(o, named, std::cerr));
        app::Autosave autosave(session);
        return app::launch_start(o, autosave, named);
    };
    const app::Start preset = start({"--preset", "eight-heads"});
    CHECK(preset.scenario == core::preset_eight_heads());
    CHECK(preset.notice.empty());
    const app::Start file = start({scene.c_str()});
    CHECK(file.scenario == core::preset_eight_heads());
    CHECK(file.notice.empty());
    const app::Start lesson = start({"--lesson", "every-token"});
    CHECK(lesson.notice.empty());
    CHECK_FALSE(lesson.offer_default);
    const app::Start nothing = start({});
    CHECK(nothing.scenario == core::preset_it_sentence());
    CHECK(nothing.offer_default);
    CHECK(nothing.notice.find("attnviz restored the scenario you had open last time") == 0);
    std::remove(scene.c_str());
    std::remove(session.c_str());
}

TEST_CASE("Train curves: the loss drop after the first fall is found — a flat curve has none") {
    std::vector<core::train::CurvePoint> c;
    for (int s = 1; s <= 1000; ++s) { // 3 → 2.5 in the first 50 steps, a plateau, then 2.5 → 0.5 from 600 to 700
        const double loss = s < 50 ? 3.0 - s / 100.0 : s < 600 ? 2.5 : s < 700 ? 2.5 - 2.0 * (s - 600) / 100.0 : 0.5;
        c.push_back({s, loss, 0.0});
    }
    const int drop = ui::loss_drop_step(c);
    CHECK(drop >= 600);
    CHECK(drop <= 700);
    std::vector<core::train::CurvePoint> s_curve; // no first fall: a plateau, then one drop around step 400
    for (int s = 1; s <= 1000; ++s) s_curve.push_back({s, 4.0 - 4.0 / (1.0 + std::exp(-(s - 400) / 30.0)), 0.0});
    CHECK(std::abs(ui::loss_drop_step(s_curve) - 400) <= 10);
    std::vector<core::train::CurvePoint> flat;
    for (int s = 1; s <= 1000; ++s) flat.push_back({s, 2.0, 0.0});
    CHECK(ui::loss_drop_step(flat) == -1);
    CHECK(ui::loss_drop_step({}) == -1);
}

TEST_CASE("heatmap: numbers in the cells at 7 tokens on a 1366 x 768 laptop, where three digits fit") {
    Ui ui(core::preset_it_sentence(), ImVec2(1366, 768));
    ui.frames(3);
    const std::string heatmap = ui::find_panel("heatmap")->title;
    INFO(ui.screen_text(heatmap.c_str()));
    CHECK(ui.shows(".63", heatmap.c_str())); // cat → cat
    CHECK(ui.shows(".42", heatmap.c_str())); // it → cat
}

TEST_CASE("--workspace and --head on the command line: what each takes, and what goes with what") {
    const auto usage_error = [](std::vector<const char*> args) {
        args.insert(args.begin(), "attnviz");
        try {
            app::parse_args(static_cast<int>(args.size()), args.data());
        } catch (const app::UsageError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    const auto parsed = [](std::vector<const char*> args) {
        args.insert(args.begin(), "attnviz");
        return app::parse_args(static_cast<int>(args.size()), args.data());
    };
    CHECK(parsed({"--workspace", "train"}).workspace == "train");
    CHECK(parsed({"--workspace", "model", "--screenshot", "x.png"}).workspace == "model");
    CHECK(usage_error({"--workspace", "kitchen"}) == "--workspace takes one of explore, learn, train, model, not \"kitchen\"");
    CHECK(usage_error({"--workspace", "train", "--dump"}) == "--workspace goes with the window or --screenshot");
    const app::Options head = parsed({"--attention", "a.npy", "--head", "3.7", "--screenshot", "x.png"});
    CHECK(head.head_layer == 3);
    CHECK(head.head == 7);
    CHECK(parsed({"--screenshot", "x.png", "--head", "2"}).head == 2);
    CHECK(usage_error({"--head", "3.7"}) == "--head L.H (a layer and a head) goes with --attention or --model");
    CHECK(usage_error({"--head", "2", "--dump"}) == "--head goes with --export, the window or --screenshot");
    CHECK(usage_error({"--head", "40"}) == "--head takes a whole number from 1 to 16, not \"40\"");
    CHECK(parsed({"--attention", "a.npy", "--head", "1.40"}).head == 40); // a model's file may have more heads
    CHECK(usage_error({"--attention", "a.npy", "--dump"}) == "--attention opens the window (or goes with --screenshot or --bench-frames)");
}

TEST_CASE("matrices: the three-token example's Q, K, V, scores, A and Z fit the Matrices panel whole at 1280 x 720 and 1366 x 768") {
    for (const ImVec2 size : {ImVec2(1280, 720), ImVec2(1366, 768)}) {
        CAPTURE(size.x);
        Ui ui(core::preset_three_tokens(), size);
        ui.frames(3);
        const std::string matrices = ui::find_panel("matrices")->title;
        const ImGuiWindow* w = ImGui::FindWindowByName(matrices.c_str());
        REQUIRE(w);
        CHECK(w->ScrollMax.y == 0.0f); // nothing below the fold: "sat"'s rows of A and Z show
        const std::string text = ui.screen_text(matrices.c_str());
        CHECK(text.find("sat|0.187|0.045|0.768") != std::string::npos);
    }
}
