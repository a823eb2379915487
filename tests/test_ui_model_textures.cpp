// The Model workspace's maps as textures, driven headless: the grid's thumbnails are one texture,
// painted when a run's data arrives or the colour map changes and kept while nothing changes, drawn
// in one draw call; the head view draws the lines that cross its visible part, and only those.
#include "headless.h"
#include "tests/model_ui.h"

#include "ui/colour_maps.h"
#include "ui/panels/model_grid.h"
#include "ui/panels/model_head_view.h"
#include "ui/texture_atlas.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <map>
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
