// The Model workspace's maps driven headless at the window sizes people use: the pointer on each
// corner cell and on the centre of the head map names that cell (positions counted from 1), and a
// click there selects its query and key — fitted, zoomed in and with the colours stretched or not.
#include "headless.h"
#include "tests/model_ui.h"

#include "tests/checkpoint_fixtures.h"
#include "ui/model_service.h"
#include "ui/panels/model/model_map.h"

#include <doctest/doctest.h>

#include <string>
#include <utility>
#include <vector>

namespace {

using model_ui::tiny;
using model_ui::until_run;

struct LaptopModelWorkspace : model_ui::ModelWorkspace {
    LaptopModelWorkspace() : ModelWorkspace(ImVec2(1366, 768)) {}
};

// The centre of cell (i, j) of the head map on screen.
ImVec2 centre(const ui::ModelMapView& map, int i, int j) {
    const ImVec2 p = map.cell_min(i, j);
    return ImVec2(p.x + map.cell / 2, p.y + map.cell / 2);
}

// The cells whose centres lie on the map now: the first and last visible rows and columns, and the middle.
std::vector<std::pair<int, int>> corners_and_centre(const ui::ModelMapView& map) {
    const auto first = [&](float from, float origin) { return static_cast<int>((from - origin) / map.cell + 0.5f); };
    const auto last = [&](float to, float origin) { return static_cast<int>((to - origin) / map.cell - 0.5f); };
    const int i0 = first(map.area.Min.y, map.origin.y), i1 = last(map.area.Max.y, map.origin.y);
    const int j0 = first(map.area.Min.x, map.origin.x), j1 = last(map.area.Max.x, map.origin.x);
    return {{i0, j0}, {i0, j1}, {i1, j0}, {i1, j1}, {(i0 + i1) / 2, (j0 + j1) / 2}};
}

// Hovering each corner cell and the centre names the query and key (from 1); a click selects them.
void every_corner_answers(headless::Ui& ui) {
    ui::ModelService& m = ui.st().view.state<ui::ModelService>();
    const auto& map = ui.st().view.state<ui::ModelMapView>();
    const std::vector<std::string>& labels = m.shown->labels;
    for (const std::pair<int, int>& cell : corners_and_centre(map)) {
        const int i = cell.first, j = cell.second;
        CAPTURE(i);
        CAPTURE(j);
        REQUIRE(map.area.Contains(centre(map, i, j)));
        ui.move(centre(map, i, j));
        ui.frame();
        CHECK(ui.shows("query " + labels[static_cast<std::size_t>(i)] + " (position " + std::to_string(i + 1) + ")", "##Tooltip_00"));
        CHECK(ui.shows("key " + labels[static_cast<std::size_t>(j)] + " (position " + std::to_string(j + 1) + ")", "##Tooltip_00"));
        ui.click(centre(map, i, j));
        ui.frame();
        CHECK(m.query_position() == i);
        CHECK(m.key == j);
    }
}

} // namespace

TEST_CASE("model head map: every corner cell and the centre answer the pointer at 1366×768 and 1920×1080, fitted, zoomed and stretched") {
    NEED_CHECKPOINTS();
    for (const ImVec2 size : {ImVec2(1366, 768), ImVec2(1920, 1080), ImVec2(1280, 720)}) {
        CAPTURE(size.x);
        headless::Ui ui(core::preset_three_tokens(), size);
        ui::View& v = ui.st().view;
        ui::ModelService& m = v.state<ui::ModelService>();
        m.prompt = "the cat sat on the mat and the dog sat on the log";
        REQUIRE(m.open(tiny("gpt2"), v));
        until_run(ui);
        ui.frames(2);
        ui::ModelMapView& map = v.state<ui::ModelMapView>();
        REQUIRE(map.layer == 0);
        every_corner_answers(ui);
        map.stretch = !map.stretch;
        ui.frames(2);
        every_corner_answers(ui);
        ui.wheel(map.area.GetCenter(), 3.0f); // zoomed in about the centre
        ui.frames(2);
        REQUIRE(map.zoom > 1.0f);
        every_corner_answers(ui);
    }
}

TEST_CASE_FIXTURE(LaptopModelWorkspace, "model positions count from 1 where a person reads them: a chip's tooltip, Next token's heading, the rollout map's cells") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat");
    const int t = m.shown->t();
    const std::vector<std::string>& labels = m.shown->labels;
    ui.move(ui.item("model chip 0"));
    ui.frame();
    CHECK(ui.shows("position 1 · id " + std::to_string(m.shown->ids[0]), "##Tooltip_00"));
    CHECK(ui.shows("(position " + std::to_string(t) + "):", "Next-token predictions")); // after the last token
    ui.click(ui.item("model chip 2"));
    ui.frames(2);
    CHECK(ui.shows("(position 3):", "Next-token predictions"));
    v.open["model_rollout"] = true;
    ui.frames(2);
    for (const auto& [row, column] : {std::pair{0, 0}, std::pair{t - 1, 0}, std::pair{t - 1, t - 1}, std::pair{t / 2, t / 2}}) {
        const int i = row, j = column;
        CAPTURE(i);
        CAPTURE(j);
        ui.move(ui.grid_cell("rollout", i, j));
        ui.frame();
        CHECK(ui.shows("position " + std::to_string(i + 1) + " (" + labels[static_cast<std::size_t>(i)] + ") after the last layer", "##Tooltip_00"));
        CHECK(ui.shows("on input " + std::to_string(j + 1) + " (" + labels[static_cast<std::size_t>(j)] + ")", "##Tooltip_00"));
    }
}
