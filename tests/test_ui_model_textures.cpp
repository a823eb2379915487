// The Model workspace's maps as textures, driven headless: the grid's thumbnails are one texture,
// painted when a run's data arrives or the colour map changes and kept while nothing changes, drawn
// in one draw call; the head map is one texture of the forward's weights; the head view draws the
// lines that cross its visible part, and only those, into a texture drawn again only on a change.
#include "headless.h"
#include "tests/model_ui.h"

#include "ui/colour_maps.h"
#include "ui/panels/model/model_grid.h"
#include "ui/canvas.h"
#include "ui/panels/model/model_head_view.h"
#include "ui/panels/model/model_map.h"
#include "ui/panels/shared/texture_atlas.h"
#include "ui/widgets.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace {

using model_ui::ModelWorkspace;

// Keeps every texel it is sent, to read back what a texture shows.
struct KeepingUploader final : ui::TextureUploader {
    struct Texture { int width, height; std::vector<unsigned char> rgba; };
    std::map<ImTextureID, Texture> textures;
    int made = 0;
    ImTextureID create(int width, int height) override {
        const ImTextureID id = reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(++made));
        textures[id] = {width, height, std::vector<unsigned char>(static_cast<size_t>(width * height * 4), 7)};
        return id;
    }
    void write_rows(ImTextureID id, int first, int rows, const unsigned char* rgba) override {
        Texture& t = textures.at(id);
        std::copy(rgba, rgba + rows * t.width * 4, t.rgba.begin() + first * t.width * 4);
    }
    void release(ImTextureID id) override { textures.erase(id); }
};

void grey(unsigned char* rgba, float w, float top) {
    const auto v = static_cast<unsigned char>(255.0f * w / top);
    rgba[0] = rgba[1] = rgba[2] = v, rgba[3] = 255;
}

// The draw command of `window` that samples `texture`, or nullptr.
const ImDrawCmd* command_with(const char* window, ImTextureID texture) {
    const ImGuiWindow* w = ImGui::FindWindowByName(window);
    REQUIRE(w != nullptr);
    for (const ImDrawCmd& c : w->DrawList->CmdBuffer)
        if (c.TextureId == texture) return &c;
    return nullptr;
}

// The lines of head (l, h) a head view must draw: weight ≥ min_weight, crossing rows first … last.
int lines_seen(const core::model::Snapshot& s, int l, int h, int first, int last) {
    const std::shared_ptr<const core::model::MatrixF> map = s.head_map(l, h);
    const float* a = map->data();
    const int t = s.t();
    int count = 0;
    for (int i = 0; i < t; ++i)
        for (int j = 0; j < t; ++j) count += a[i * t + j] >= ui::ModelHeadView::min_weight && std::max(i, j) >= first && std::min(i, j) <= last;
    return count;
}

} // namespace

TEST_CASE("texture atlas: each cell's values land in their place of the texture, coloured, and a row is sent whole") {
    KeepingUploader up;
    ui::TextureAtlas atlas;
    CHECK(atlas.reshape(up, 2, 3, 2)); // 2 rows of 3 cells of 2 × 2 texels
    CHECK_FALSE(atlas.reshape(up, 2, 3, 2));
    const std::vector<float> cells[3] = {{0, 0.25f, 0.5f, 1}, {1, 1, 1, 1}, {0.5f, 0, 0, 0.5f}};
    for (int col = 0; col < 3; ++col) atlas.put(col, cells[col].data(), 1.0f, grey);
    atlas.send(1);
    const KeepingUploader::Texture& t = up.textures.at(atlas.texture());
    REQUIRE(t.width == 6);
    REQUIRE(t.height == 4);
    const auto texel = [&t](int x, int y) { return t.rgba[static_cast<size_t>((y * t.width + x) * 4)]; };
    CHECK(texel(1, 2) == 63);  // cell (1, 0), texel (0, 1): 0.25
    CHECK(texel(1, 3) == 255); // cell (1, 0), texel (1, 1): 1
    CHECK(texel(4, 2) == 127); // cell (1, 2), texel (0, 0): 0.5
    CHECK(texel(5, 2) == 0);
    CHECK(texel(0, 0) == 7);   // row 0 was never sent
    CHECK(atlas.reshape(up, 3, 3, 2)); // another shape: another texture, the old one released
    CHECK(up.textures.size() == 1);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model grid: the thumbnails are one texture, painted when a run's data arrives or the colour map changes, drawn in one call") {
    NEED_CHECKPOINTS();
    open("gpt2", "one two three four five six");
    const auto& g = v.state<ui::ModelGridView>();
    const std::shared_ptr<const core::model::Snapshot> first = m.shown;
    const int L = first->layers(), H = first->heads();
    REQUIRE(g.atlas.texture() != nullptr);
    REQUIRE(g.paintings >= 1);
    const int paintings = g.paintings;
    const long long rows = ui.textures().rows_written;
    ui.frames(5); // nothing changes: nothing is painted or sent
    CHECK(g.paintings == paintings);
    CHECK(ui.textures().rows_written == rows);
    const ImDrawCmd* cmd = command_with("Layers × heads", g.atlas.texture());
    REQUIRE(cmd != nullptr);
    CHECK(cmd->ElemCount == static_cast<unsigned>(6 * L * H)); // a quad per head, in one draw call

    // A new prompt's run: painted again with its weights, a row of thumbnails per layer.
    m.prompt = "one two three four five six seven eight nine ten";
    m.run_prompt();
    model_ui::until_run(ui);
    ui.frame();
    CHECK(m.shown->t() > first->t());
    CHECK(g.paintings == paintings + 1);
    CHECK(ui.textures().rows_written >= rows + L * g.atlas.side());
    CHECK(g.atlas.side() == g.side);

    // Another colour map: painted again.
    ui.st().settings.weights_map = core::io::WeightsMap::cividis;
    ui.frames(2);
    CHECK(g.paintings == paintings + 2);
    ui.st().settings.weights_map = core::io::WeightsMap::viridis;
    ui.frames(2);
    ui::use_colour_maps({});
}

TEST_CASE("model head view: the lines drawn are those that cross the visible part of the panel, and only those") {
    NEED_CHECKPOINTS();
    headless::Ui ui(core::preset_three_tokens(), ImVec2(1280, 720));
    ui::View& v = ui.st().view;
    ui::ModelService& m = v.state<ui::ModelService>();
    REQUIRE(m.open(model_ui::tiny("gpt2"), v));
    model_ui::until_run(ui);
    m.prompt.clear();
    for (int k = 0; k < 30; ++k) m.prompt += k % 2 ? " cat" : " dog"; // within the fixture's context of 32
    m.run_prompt();
    model_ui::until_run(ui);
    ui.frames(2);
    REQUIRE(m.shown != nullptr);
    const auto& hv = v.state<ui::ModelHeadView>();
    const core::model::Snapshot& s = *m.shown;
    REQUIRE(s.t() >= 30);
    REQUIRE(hv.last_seen < s.t() - 1); // the panel shows the first rows only
    CHECK(hv.first_seen == 0);
    CHECK(static_cast<int>(hv.lines.size()) == lines_seen(s, m.layer, m.head, hv.first_seen, hv.last_seen));
    CHECK(static_cast<int>(hv.lines.size()) < lines_seen(s, m.layer, m.head, 0, s.t() - 1));
    for (const auto& line : hv.lines) CHECK(std::min(line.query, line.key) <= hv.last_seen);

    // Scrolled down: the lines crossing the new band.
    const ImGuiWindow* panel = ImGui::FindWindowByName("Head view");
    REQUIRE(panel != nullptr);
    ui.wheel(ImVec2(panel->Rect().GetCenter().x, panel->Rect().Max.y - 3 * ImGui::GetFontSize()), -10.0f);
    ui.frames(2);
    REQUIRE(hv.first_seen > 0);
    CHECK(static_cast<int>(hv.lines.size()) == lines_seen(s, m.layer, m.head, hv.first_seen, hv.last_seen));
    for (const auto& line : hv.lines) CHECK(std::max(line.query, line.key) >= hv.first_seen);
}

TEST_CASE("canvas: a line covers its texels by the part of each inside it, and lines blend over those before") {
    ui::Canvas r;
    r.reset(20, 10);
    r.line(ImVec2(2, 5), ImVec2(12, 5), 2.0f, IM_COL32(255, 0, 0, 128)); // rows 4 and 5, columns 2 … 11
    std::vector<unsigned char> px;
    r.to_rgba8(px);
    const auto at = [&px](int x, int y, int c) { return static_cast<int>(px[static_cast<size_t>((y * 20 + x) * 4 + c)]); };
    CHECK(at(5, 4, 3) == 128);
    CHECK(at(5, 5, 3) == 128);
    CHECK(at(5, 4, 0) == 255);
    CHECK(at(5, 4, 1) == 0);
    CHECK(at(5, 3, 3) == 0);
    CHECK(at(5, 6, 3) == 0);
    CHECK(at(1, 4, 3) == 0);
    CHECK(at(12, 4, 3) == 0);
    // A blue line over it, half opaque: alpha 1 − ½ · ½, colour ½ blue over ¼ red, unpremultiplied.
    r.line(ImVec2(5.5f, 0), ImVec2(5.5f, 10), 1.0f, IM_COL32(0, 0, 255, 128));
    r.to_rgba8(px);
    const double a1 = 128 / 255.0, a = a1 + a1 * (1 - a1);
    CHECK(at(5, 4, 3) == static_cast<int>(std::lround(255 * a)));
    CHECK(at(5, 4, 2) == static_cast<int>(std::lround(255 * a1 / a)));
    CHECK(at(5, 4, 0) == static_cast<int>(std::lround(255 * a1 * (1 - a1) / a)));
    // A diagonal line leaves as much ink as its area, length × thickness.
    r.reset(64, 64);
    r.line(ImVec2(4, 8), ImVec2(54, 40), 1.5f, IM_COL32(255, 255, 255, 255));
    r.to_rgba8(px);
    double ink = 0;
    for (size_t k = 3; k < px.size(); k += 4) ink += px[k] / 255.0;
    CHECK(ink == doctest::Approx(std::hypot(50.0, 32.0) * 1.5).epsilon(0.03));
}

TEST_CASE("canvas: lines() draws a band of rows at a time, texel for texel what line() draws one line after another") {
    // 2000 texels wide: bands of 8 rows, so that most lines cross several bands and their edges.
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> x(-40.0f, 2040.0f), y(-20.0f, 80.0f), thick(0.5f, 4.0f);
    std::vector<ui::Canvas::Stroke> strokes;
    for (int k = 0; k < 300; ++k) {
        ImVec2 from(x(rng), y(rng)), to(x(rng), y(rng));
        if (k % 10 == 0) to.y = from.y;           // flat
        if (k % 10 == 1) to.x = from.x;           // upright
        if (k % 10 == 2) to.x = from.x + 3.0f;    // steep
        strokes.push_back({from, to, thick(rng), IM_COL32(40 + k % 200, 255 - k % 250, k % 7 * 30, 30 + k % 220)});
    }
    ui::Canvas banded, one_by_one;
    banded.reset(2000, 60);
    one_by_one.reset(2000, 60);
    banded.lines(strokes);
    for (const ui::Canvas::Stroke& s : strokes) one_by_one.line(s.from, s.to, s.thickness, s.colour);
    std::vector<unsigned char> a, b;
    banded.to_rgba8(a);
    one_by_one.to_rgba8(b);
    REQUIRE(a.size() == b.size());
    CHECK(std::count_if(b.begin(), b.end(), [](unsigned char c) { return c != 0; }) > 10000); // the lines left ink
    CHECK(std::mismatch(a.begin(), a.end(), b.begin()).first == a.end());
}

TEST_CASE_FIXTURE(ModelWorkspace, "model head map: one texture of the forward's weights, painted again only when what it shows changes") {
    NEED_CHECKPOINTS();
    open("gpt2", "one two three four five six seven eight");
    m.layer = 1, m.head = 1;
    ui.frames(3);
    const auto& st = v.state<ui::ModelMapView>();
    REQUIRE(st.texture != nullptr);
    const core::model::ForwardResult direct = own_model().model->forward(encoded_prompt());
    const core::model::MatrixF A = direct.maps.head(1, 1); // (t, t)
    const int t = static_cast<int>(A.rows());
    REQUIRE(st.painted.step == 1);
    REQUIRE(st.painted.rows == t);
    REQUIRE(st.painted.cols == t);
    const float top = *std::max_element(A.data(), A.data() + t * t); // "stretch" is on
    for (int i = 0; i < t; ++i)
        for (int j = 0; j < t; ++j) {
            const float w = A.data()[i * t + j];
            unsigned char want[4];
            ui::put_rgba(want, j > i && w == 0.0f ? ui::masked_color() : ui::sequential_color(w / top));
            const unsigned char* got = &st.texels[static_cast<size_t>((i * t + j) * 4)];
            CHECK(std::equal(want, want + 4, got));
        }
    REQUIRE(command_with("Head map", st.texture) != nullptr);
    const int paintings = st.paintings;
    ui.frames(4);
    CHECK(st.paintings == paintings);
    ui.wheel(st.area.GetCenter(), 3.0f); // zoomed in: fewer cells, painted again
    ui.frames(2);
    CHECK(st.paintings > paintings);
    CHECK(st.painted.rows < t);
    m.head = 0; // another head: painted again
    ui.frames(2);
    CHECK(st.painted.head == 0);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model head view: the lines are drawn into a texture, each at its weight, and drawn again only on a change") {
    NEED_CHECKPOINTS();
    open("gpt2", "one two three four five six");
    ui.frames(2);
    const auto& hv = v.state<ui::ModelHeadView>();
    REQUIRE(hv.image.texture != nullptr);
    REQUIRE_FALSE(hv.lines.empty());
    const ImGuiWindow* lines = nullptr; // the child window (its name ends in its id)
    for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
        if (std::string(w->Name).rfind("Head view/lines", 0) == 0) lines = w;
    REQUIRE(lines != nullptr);
    CHECK(std::any_of(lines->DrawList->CmdBuffer.begin(), lines->DrawList->CmdBuffer.end(), [&](const ImDrawCmd& c) { return c.TextureId == hv.image.texture; }));
    const int rasters = hv.image.drawings;
    ui.frames(4);
    CHECK(hv.image.drawings == rasters);

    // Hover the last query: only its lines, each at its key's end as opaque as its weight.
    const int t = m.shown->t(), q = t - 1;
    ui.move(ui.item(("model head view query " + std::to_string(q)).c_str()));
    ui.frames(2);
    CHECK(hv.image.drawings > rasters);
    const core::model::ForwardResult direct = own_model().model->forward(encoded_prompt());
    const core::model::MatrixF A = direct.maps.head(m.layer, m.head);
    int expected = 0;
    for (int j = 0; j < t; ++j) expected += A.data()[q * t + j] >= ui::ModelHeadView::min_weight;
    REQUIRE(static_cast<int>(hv.lines.size()) == expected);
    const ui::ModelHeadView::Fan& f = hv.drawn;
    // In a texel column just inside the keys' end each line leaves its alpha times the height of its
    // band there, thickness · √(1 + slope²).
    const int w = hv.image.width, x = w - 2;
    const auto y_of = [&](int i) { return (f.y0 + (static_cast<float>(i) + 0.5f) * f.row - hv.image_min.y) * f.scale; };
    for (const auto& line : hv.lines) {
        CHECK(line.query == q);
        const float y_key = y_of(line.key), slope = (y_key - y_of(q)) / ((f.x1 - f.x0) * f.scale);
        double ink = 0;
        for (int y = static_cast<int>(y_key) - 4; y <= static_cast<int>(y_key) + 4; ++y)
            if (y >= 0 && y < hv.image.height) ink += hv.image.texels[static_cast<size_t>((y * w + x) * 4 + 3)] / 255.0;
        const double want = std::min(1.0f, line.weight) * f.thickness * f.scale * std::sqrt(1.0 + slope * slope);
        CHECK(std::fabs(ink - want) <= 0.01 + 0.03 * want);
    }
}
