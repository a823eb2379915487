// The query arrow's query–key plane for d_k > 2, driven headless: the plane and the variance it
// states are core::heads::query_key_view's, hovering a query draws its lines, a click selects it.
#include "headless.h"

#include "core/edits.h"
#include "core/heads/qk_view.h"
#include "ui/canvas.h"
#include "ui/panels/explore/query_arrow.h"
#include "ui/widgets.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

using headless::Ui;

namespace {

std::string kept(const core::heads::QKView& v) {
    char text[64];
    std::snprintf(text, sizeof text, "keeps %.1f %% of the variance", 100.0 * v.variance_kept);
    return text;
}

// Picks entry k of the plane combo with two clicks, as a user does.
void pick_plane(Ui& ui, int k) { headless::pick_combo_entry(ui, "arrow_plane", k); }

int top_key(const core::HeadResult& h, int i) {
    Eigen::Index j = 0;
    h.weights.row(i).maxCoeff(&j);
    return static_cast<int>(j);
}

} // namespace

TEST_CASE("ui: for d_k = 8 the query arrow shows the query–key plane the core computes, and a hovered query's lines") {
    Ui ui(core::random_scenario(core::Shape{}.with_tokens(6).with_width(8), 5));
    ui.frames(2);
    const ui::ArrowView& av = ui.st().view.state<ui::ArrowView>();
    REQUIRE(av.plane_kind == ui::ArrowPlane::principal);

    const core::heads::QKView expected = core::heads::query_key_view(ui.head().Q, ui.head().K);
    CHECK(av.qk.view.plane == core::heads::QKPlane::principal);
    CHECK((av.qk.view.basis - expected.basis).cwiseAbs().maxCoeff() < 1e-12);
    CHECK((av.qk.view.query_points - expected.query_points).cwiseAbs().maxCoeff() < 1e-12);
    CHECK((av.qk.view.key_points - expected.key_points).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(expected.variance_kept > 0.0);
    CHECK(expected.variance_kept < 1.0);
    CHECK(ui.shows("plane: principal components 1 and 2", "Query arrow"));
    CHECK(ui.shows(kept(expected), "Query arrow"));
    CHECK_FALSE(ui.shows("dim 1", "Query arrow"));

    // Hovering query 4 draws its six lines; its tooltip names its top key and weight.
    ui.move(av.qk.query_dots[3]);
    ui.frame();
    CHECK(av.qk.hovered_query == 3);
    CHECK(av.qk.lines_drawn == 6);
    const int top = top_key(ui.head(), 3);
    char tooltip[96];
    std::snprintf(tooltip, sizeof tooltip, "top key k_%s, w = %.3f", ui.scenario().tokens[static_cast<size_t>(top)].c_str(),
                  ui.head().weights(3, top));
    CHECK(ui.shows(tooltip, "##Tooltip_00"));
    ui.click(av.qk.query_dots[3]);
    CHECK(ui.st().view.selected_row == 3);

    // The plane of query 4 and its top key: the core's, for that pair.
    pick_plane(ui, 1);
    ui.frame();
    REQUIRE(av.plane_kind == ui::ArrowPlane::query_and_key);
    const core::heads::QKView pair = core::heads::query_key_view(ui.head().Q, ui.head().K, core::heads::QKPlane::query_and_key, 3, top);
    CHECK(av.qk.top_key == top);
    CHECK((av.qk.view.basis - pair.basis).cwiseAbs().maxCoeff() < 1e-12);
    CHECK(ui.shows("plane: the query and its top key", "Query arrow"));
    CHECK(ui.shows(kept(pair), "Query arrow"));

    // Causal: the first query sees one key, so it draws one line.
    ui.click(ui.item("causal"));
    REQUIRE(ui.scenario().causal);
    ui.move(av.qk.query_dots[0]);
    ui.frame();
    CHECK(av.qk.hovered_query == 0);
    CHECK(av.qk.lines_drawn == 1);

    // Two raw dimensions, as before.
    pick_plane(ui, 2);
    ui.frame();
    CHECK(av.plane_kind == ui::ArrowPlane::dimensions);
    CHECK(ui.shows("dim 1", "Query arrow"));
    CHECK_FALSE(ui.shows("plane: principal components", "Query arrow"));
}

namespace {

// The plane's view equals the core's principal view of the focused head as it is now.
void check_principal_view(Ui& ui) {
    const ui::ArrowView& av = ui.st().view.state<ui::ArrowView>();
    const core::heads::QKView expected = core::heads::query_key_view(ui.head().Q, ui.head().K);
    REQUIRE(av.qk.view.basis.rows() == expected.basis.rows());
    CHECK((av.qk.view.query_points - expected.query_points).cwiseAbs().maxCoeff() < 1e-12);
    CHECK((av.qk.view.key_points - expected.key_points).cwiseAbs().maxCoeff() < 1e-12);
}

} // namespace

TEST_CASE("ui: the query–key plane keeps its view and names while nothing changes, and remakes them when a token, d_k or the plane does") {
    Ui ui(core::random_scenario(core::Shape{}.with_tokens(6).with_width(8), 5));
    ui.frames(2);
    const ui::ArrowView& av = ui.st().view.state<ui::ArrowView>();
    const int views = av.qk.views_made, dots = av.qk.layout.made;
    REQUIRE(views >= 1);
    ui.frames(5); // nothing changes: nothing is remade
    CHECK(av.qk.views_made == views);
    CHECK(av.qk.layout.made == dots);
    check_principal_view(ui);

    // A token's embedding: a new view, its query elsewhere.
    const ImVec2 before = av.qk.query_dots[2];
    REQUIRE(core::edits::set_cell(ui.st().scenario, core::edits::Which::X, 0, 2, 1, 3.0));
    ui.frame();
    CHECK(av.qk.views_made == views + 1);
    CHECK(av.qk.layout.made == dots + 1);
    check_principal_view(ui);
    CHECK(std::hypot(av.qk.query_dots[2].x - before.x, av.qk.query_dots[2].y - before.y) > 1.0f);

    // A token's name: the new names on screen.
    REQUIRE(core::edits::rename_token(ui.st().scenario, 4, "zebra"));
    ui.frame();
    CHECK(ui.shows("q_zebra", "Query arrow"));
    CHECK(ui.shows("k_zebra", "Query arrow"));

    // d_k: the view of the narrower queries and keys.
    core::edits::set_d_k(ui.st().scenario, 5);
    ui.frame();
    REQUIRE(ui.head().Q.cols() == 5);
    CHECK(av.qk.view.basis.rows() == 5);
    check_principal_view(ui);

    // Another selected query leaves the principal view as it was; its plane with its top key is new.
    const int settled = av.qk.views_made;
    ui.st().view.selected_row = 3;
    ui.frames(2);
    CHECK(av.qk.views_made == settled);
    pick_plane(ui, 1);
    ui.frame();
    REQUIRE(av.plane_kind == ui::ArrowPlane::query_and_key);
    CHECK(av.qk.views_made == settled + 1);
    const int top = top_key(ui.head(), 3);
    const core::heads::QKView pair = core::heads::query_key_view(ui.head().Q, ui.head().K, core::heads::QKPlane::query_and_key, 3, top);
    CHECK((av.qk.view.basis - pair.basis).cwiseAbs().maxCoeff() < 1e-12);
    ui.frames(3);
    CHECK(av.qk.views_made == settled + 1);
}

TEST_CASE("ui: the query–key plane's dots are one texture, a square at each key and a disc at each query, drawn again on a hover") {
    Ui ui(core::random_scenario(core::Shape{}.with_tokens(6).with_width(8), 5));
    ui.frames(2);
    const ui::QKPlaneView& pv = ui.st().view.state<ui::ArrowView>().qk;
    REQUIRE(pv.dots.texture != nullptr);
    const ImGuiWindow* panel = ImGui::FindWindowByName("Query arrow");
    REQUIRE(panel != nullptr);
    CHECK(std::any_of(panel->DrawList->CmdBuffer.begin(), panel->DrawList->CmdBuffer.end(), [&](const ImDrawCmd& c) { return c.TextureId == pv.dots.texture; }));
    const int drawings = pv.dots.drawings;
    ui.frames(3);
    CHECK(pv.dots.drawings == drawings); // nothing changed: nothing drawn again

    // The texel under each dot's centre: its colour, opaque where nothing else lies over it.
    const ui::CanvasTexture& dots = pv.dots;
    REQUIRE(dots.width == static_cast<int>(std::ceil(pv.rect.GetWidth())));
    const auto texel = [&](ImVec2 screen) {
        const int x = static_cast<int>(screen.x - pv.rect.Min.x), y = static_cast<int>(screen.y - pv.rect.Min.y);
        return &dots.texels[static_cast<size_t>((y * dots.width + x) * 4)];
    };
    const auto alone = [&](ImVec2 c, const std::vector<ImVec2>& others, size_t self) {
        for (size_t k = 0; k < others.size(); ++k)
            if (k != self && std::hypot(others[k].x - c.x, others[k].y - c.y) < 0.7f * ImGui::GetFontSize()) return false;
        return true;
    };
    int seen = 0;
    for (size_t j = 0; j < pv.key_dots.size(); ++j) {
        if (!alone(pv.key_dots[j], pv.key_dots, j) || !alone(pv.key_dots[j], pv.query_dots, pv.query_dots.size())) continue;
        const unsigned char* p = texel(pv.key_dots[j]);
        CHECK(p[3] == 255);
        CHECK(p[2] > p[0]); // the keys' blue
        ++seen;
    }
    CHECK(seen > 0);
    seen = 0;
    for (size_t i = 0; i < pv.query_dots.size(); ++i) {
        if (!alone(pv.query_dots[i], pv.query_dots, i) || !alone(pv.query_dots[i], pv.key_dots, pv.key_dots.size())) continue;
        const unsigned char* p = texel(pv.query_dots[i]);
        CHECK(p[3] >= 150); // the queries' colour, at least 0.6 opaque
        const ImU32 want = ui::selection_color();
        CHECK(std::abs(p[0] - static_cast<int>((want >> IM_COL32_R_SHIFT) & 0xFF)) <= 2);
        CHECK(std::abs(p[2] - static_cast<int>((want >> IM_COL32_B_SHIFT) & 0xFF)) <= 2);
        ++seen;
    }
    CHECK(seen > 0);
    // Hovering a query draws the dots again with that query larger.
    ui.move(pv.query_dots[2]);
    ui.frame();
    CHECK(pv.hovered_query == 2);
    CHECK(pv.dots.drawings == drawings + 1);
    CHECK(pv.dots_drawn.hovered == 2);
}
