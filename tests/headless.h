// tests/headless.h — ui::App on an ImGui context with no window and no GL, driven by synthetic
// input (ImGui 1.86: io.MousePos / MouseDown / MouseWheel / KeysDown / AddInputCharacter).
//
// Every frame runs NewFrame → App::frame → Render, then checks that the scenario is still valid.
#pragma once

#include "core/presets.h"
#include "ui/app_state.h"
#include "ui/panel_table.h"
#include "ui/workspace_table.h"
#include "ui/headless.h"

#include <doctest/doctest.h>
#include <imgui.h>
#include <imgui_internal.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace headless {

// Key indices as the GLFW backend uses them (letters are their upper-case ASCII codes).
enum Key : int {
    key_escape = ui::glfw_keys::escape, key_enter = ui::glfw_keys::enter, key_tab = ui::glfw_keys::tab,
    key_backspace = ui::glfw_keys::backspace, key_delete = ui::glfw_keys::del, key_right = ui::glfw_keys::right,
    key_left = ui::glfw_keys::left, key_down = ui::glfw_keys::down, key_up = ui::glfw_keys::up,
    key_home = ui::glfw_keys::home, key_end = ui::glfw_keys::end
};

inline bool file_exists(const char* path) { return std::ifstream(path).good(); }

// How long a test waits on a worker between two frames, at most: a worker's wait_idle returns as
// soon as it is idle, so a fast machine never waits this long, and a slow one (the sanitizers, the
// emulator of tests/emulated_cpu.py, 50 times slower) is not taken for a hang.
constexpr double worker_wait = 1.0; // seconds

class Ui {
public:
    explicit Ui(core::Scenario s = core::preset_three_tokens(), ImVec2 display = ImVec2(1600, 1000))
        : context_(display), app_(std::make_unique<ui::App>(std::move(s), textures_)) {}
    Ui(const Ui&) = delete;
    Ui& operator=(const Ui&) = delete;

    ui::App& app() { return *app_; }
    ui::App::State& st() { return app_->state(); }
    const core::Scenario& scenario() { return app_->scenario(); }
    const core::HeadResult& head(int h = 0) { return app_->result().heads.at(h); }

    void frame() {
        ImGui::NewFrame();
        app_->frame();
        ImGui::Render();
        REQUIRE(core::validate(app_->scenario()) == "");
        ImGui::GetIO().MouseWheel = 0.0f;
    }
    void frames(int count) {
        for (int k = 0; k < count; ++k) frame();
    }
    // The text on screen after the last frame, read back from the glyph quads in ImGui's draw data,
    // so it covers widgets and draw-list text alike. One line per text row (sorted by position),
    // "|" where a row has a wide gap (another column or window); spaces are not drawn, so they are
    // not there: compare with shows(), which ignores spaces.
    // With `window`, only that window and its child windows are read (windows may overlap).
    std::string screen_text(const char* window = nullptr) const {
        std::vector<const ImDrawList*> lists;
        if (window) {
            const ImGuiWindow* root = ImGui::FindWindowByName(window);
            REQUIRE(root != nullptr);
            for (const ImGuiWindow* w : ImGui::GetCurrentContext()->Windows)
                if (w->RootWindow == root) lists.push_back(w->DrawList);
        }
        std::map<std::pair<float, float>, std::pair<const ImFontGlyph*, const ImFont*>> by_uv;
        for (const ImFont* font : ImGui::GetIO().Fonts->Fonts)
            for (const ImFontGlyph& g : font->Glyphs)
                if (g.Visible) by_uv[{g.U0, g.V0}] = {&g, font};
        struct Placed { float top, x0, x1; ImWchar c; };
        std::vector<Placed> placed;
        const ImDrawData* data = ImGui::GetDrawData();
        for (int l = 0; l < data->CmdListsCount; ++l) {
            if (window && std::find(lists.begin(), lists.end(), data->CmdLists[l]) == lists.end()) continue;
            const ImVector<ImDrawVert>& v = data->CmdLists[l]->VtxBuffer;
            for (int i = 0; i + 3 < v.Size; ++i) {
                const auto it = by_uv.find({v[i].uv.x, v[i].uv.y});
                if (it == by_uv.end()) continue;
                const ImFontGlyph& g = *it->second.first;
                if (v[i + 2].uv.x != g.U1 || v[i + 2].uv.y != g.V1 || v[i + 1].uv.x != g.U1 || v[i + 3].uv.y != g.V1) continue;
                placed.push_back({v[i].pos.y - g.Y0, v[i].pos.x, v[i + 2].pos.x, static_cast<ImWchar>(g.Codepoint)});
                i += 3;
            }
        }
        // Rows by position from the top, then each row from left to right.
        const float font = ImGui::GetFontSize();
        std::sort(placed.begin(), placed.end(), [](const Placed& a, const Placed& b) { return a.top < b.top; });
        std::string out;
        for (size_t start = 0; start < placed.size();) {
            size_t end = start + 1;
            while (end < placed.size() && placed[end].top - placed[start].top < 0.3f * font) ++end;
            std::sort(placed.begin() + static_cast<long>(start), placed.begin() + static_cast<long>(end),
                      [](const Placed& a, const Placed& b) { return a.x0 < b.x0; });
            for (size_t k = start; k < end; ++k) {
                if (k > start && placed[k].x0 - placed[k - 1].x1 > 1.2f * font) out += '|';
                char utf8[5];
                out += ImTextCharToUtf8(utf8, placed[k].c);
            }
            out += '\n';
            start = end;
        }
        return out;
    }
    // Whether `text` is on screen (in `window`, if given), spaces aside.
    bool shows(std::string text, const char* window = nullptr) const {
        text.erase(std::remove(text.begin(), text.end(), ' '), text.end());
        return screen_text(window).find(text) != std::string::npos;
    }

    void move(ImVec2 p) {
        ImGui::GetIO().MousePos = p;
        frame();
    }
    void press() {
        ImGui::GetIO().MouseDown[0] = true;
        frame();
    }
    void release() {
        ImGui::GetIO().MouseDown[0] = false;
        frame();
    }
    void click(ImVec2 p) {
        move(p);
        press();
        release();
    }
    void double_click(ImVec2 p) {
        click(p);
        press();
        release();
    }
    void drag(ImVec2 from, ImVec2 to, int steps = 8) {
        move(from);
        press();
        for (int k = 1; k <= steps; ++k) {
            const float t = static_cast<float>(k) / static_cast<float>(steps);
            move(ImVec2(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t));
        }
        release();
    }
    void wheel(ImVec2 p, float amount) {
        move(p);
        ImGui::GetIO().MouseWheel = amount;
        frame();
    }
    void type(const std::string& text) {
        ImGui::GetIO().AddInputCharactersUTF8(text.c_str());
        frame();
    }
    // Types `text` into the number cell or box at `at` as a user would: double-click it, select
    // what is there (Ctrl+A), type, Enter.
    void type_into(ImVec2 at, const std::string& text) {
        double_click(at);
        key('A', true);
        type(text);
        key(key_enter);
    }
    void key(int k, bool ctrl = false, bool shift = false) {
        ImGuiIO& io = ImGui::GetIO();
        io.KeyCtrl = ctrl;
        io.KeyShift = shift;
        io.KeysDown[k] = true;
        frame();
        io.KeysDown[k] = false;
        frame();
        io.KeyCtrl = io.KeyShift = false;
        frame();
    }
    const ui::NullTextureUploader& textures() const { return textures_; }
    // Centre of cell (row, col) of a grid that a panel recorded.
    ImVec2 grid_cell(const std::string& grid, int row, int col) {
        const ui::GridGeometry& g = st().view.grids.at(grid);
        return ImVec2(g.cell_origin.x + (static_cast<float>(col) + 0.5f) * g.cell_size.x,
                      g.cell_origin.y + (static_cast<float>(row) + 0.5f) * g.cell_size.y);
    }
    // A point inside a control a panel recorded, a little in from its left edge (labels sit on the right).
    ImVec2 item(const std::string& name) {
        const ImRect& r = st().view.items.at(name);
        return ImVec2(r.Min.x + std::min(r.GetWidth() * 0.5f, ImGui::GetFrameHeight() * 0.5f), r.GetCenter().y);
    }

private:
    ui::HeadlessContext context_;
    ui::NullTextureUploader textures_;
    std::unique_ptr<ui::App> app_; // goes first: its textures, then the context
};

// A matrix of `rows` × `cols`.
template <class M>
void check_shape(const M& m, int rows, int cols) {
    CHECK(m.rows() == rows);
    CHECK(m.cols() == cols);
}

// Every matrix of the scenario and of every head's result has the shape the scenario says.
inline void check_shapes(const core::Scenario& s, const core::Result& r) {
    REQUIRE(core::validate(s) == "");
    const int H = static_cast<int>(s.heads.size());
    CHECK(static_cast<int>(s.tokens.size()) == s.n());
    for (const core::Head& h : s.heads) {
        check_shape(h.W_Q, s.d_model(), s.d_k());
        check_shape(h.W_K, s.d_model(), s.d_k());
        check_shape(h.W_V, s.d_model(), s.d_v());
    }
    CHECK(static_cast<int>(r.heads.size()) == H);
    for (const core::HeadResult& h : r.heads) {
        check_shape(h.Q, s.n(), s.d_k());
        CHECK(h.K.cols() == s.d_k());
        CHECK(h.V.cols() == s.d_v());
        check_shape(h.weights, s.n(), s.n());
        CHECK(h.output.cols() == s.d_v());
    }
    if (s.W_O.size() != 0) {
        check_shape(s.W_O, H * s.d_v(), s.d_model());
        CHECK(r.output.cols() == s.d_model());
    } else {
        CHECK(r.output.cols() == H * s.d_v());
    }
    check_shape(r.concat, s.n(), H * s.d_v());
}

// Moves the mouse along a line until the item with ID path `path` in `window` is hovered; returns where.
inline ImVec2 find_item(Ui& ui, const char* window, std::initializer_list<const char*> path, ImVec2 from, ImVec2 to) {
    const ImGuiWindow* w = ImGui::FindWindowByName(window);
    REQUIRE(w != nullptr);
    ImGuiID id = w->ID;
    for (const char* label : path) id = ImHashStr(label, 0, id);
    const char* label = *(path.end() - 1);
    for (int k = 0; k <= 200; ++k) {
        const float t = static_cast<float>(k) / 200.0f;
        const ImVec2 p(from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t);
        ui.move(p);
        if (ImGui::GetCurrentContext()->HoveredId == id) return p;
    }
    FAIL("no item \"" << label << "\" in " << window);
    return from;
}

// Opens the main menu bar's menu `menu`: its popup window.
inline const ImGuiWindow* open_menu(Ui& ui, const char* menu) {
    const float bar_y = 0.5f * ImGui::GetFrameHeight();
    ui.click(find_item(ui, "##MainMenuBar", {"##menubar", menu}, ImVec2(0, bar_y), ImVec2(800, bar_y)));
    const ImGuiWindow* popup = ImGui::FindWindowByName("##Menu_00");
    REQUIRE(popup != nullptr);
    return popup;
}

// Where `item` of the open menu window `popup` (named `name`) is, the pointer on it.
inline ImVec2 menu_item(Ui& ui, const ImGuiWindow* popup, const char* name, const char* item) {
    const float x = popup->Pos.x + 2.0f * ImGui::GetFontSize();
    return find_item(ui, name, {item}, ImVec2(x, popup->Pos.y), ImVec2(x, popup->Pos.y + popup->Size.y));
}

// Clicks `item` of the main menu bar's menu `menu`.
inline void menu_click(Ui& ui, const char* menu, const char* item) {
    ui.click(menu_item(ui, open_menu(ui, menu), "##Menu_00", item));
}

// As menu_click, for `item` of the submenu `submenu` of `menu` (View ▸ Model panels ▸ …): the
// pointer rests on the submenu's item, which opens it, then clicks the item in it.
inline void submenu_click(Ui& ui, const char* menu, const char* submenu, const char* item) {
    ui.move(menu_item(ui, open_menu(ui, menu), "##Menu_00", submenu));
    ui.frames(2);
    const ImGuiWindow* inner = ImGui::FindWindowByName("##Menu_01");
    REQUIRE(inner != nullptr);
    ui.click(menu_item(ui, inner, "##Menu_01", item));
}

// The panels workspace `workspace` starts with open (ui/workspace_table.h), in table order.
inline std::vector<const ui::PanelSpec*> panels_open_at_start(const char* workspace = "explore") {
    std::vector<const ui::PanelSpec*> panels;
    const int k = ui::find_workspace(workspace);
    REQUIRE(k >= 0);
    for (const ui::PanelPlace& p : ui::workspace_table()[static_cast<std::size_t>(k)].panels)
        if (p.open_at_start) panels.push_back(ui::find_panel(p.panel));
    return panels;
}

// Opens these panels (by PanelSpec::id) and draws a few frames.
inline void open_panels(Ui& ui, std::initializer_list<const char*> ids) {
    for (const char* id : ids) {
        REQUIRE(ui::find_panel(id) != nullptr);
        ui.st().view.open[id] = true;
    }
    ui.frames(3);
}

// Every panel of the View menu's topics group (they start closed).
inline void open_topic_panels(Ui& ui) {
    for (const ui::PanelSpec& p : ui::panel_table())
        if (p.menu == ui::Menu::view_topics) ui.st().view.open[p.id] = true;
    ui.frames(3);
}

// Opens the combo `id` with a click and clicks its entry k (from 0), as a user does; the caller draws
// the frames that take the choice.
inline void pick_combo_entry(Ui& ui, const char* id, int k) {
    ui.click(ui.item(id));
    ui.frame(); // a popup takes its size in the frame after it opens
    const ImGuiWindow* popup = ImGui::FindWindowByName("##Combo_00");
    REQUIRE(popup != nullptr);
    REQUIRE(popup->Active);
    const ImGuiStyle& st = ImGui::GetStyle();
    const float line = ImGui::GetTextLineHeight();
    ui.click(ImVec2(popup->Pos.x + 2.0f * line, popup->DC.CursorStartPos.y + static_cast<float>(k) * (line + st.ItemSpacing.y) + 0.5f * line));
}

// Each of the items `names` lies inside the window `window`, and no two of them overlap.
inline void check_inside_apart(Ui& ui, const char* window, std::initializer_list<const char*> names) {
    const ImGuiWindow* w = ImGui::FindWindowByName(window);
    REQUIRE(w != nullptr);
    for (const char* a : names) {
        CAPTURE(a);
        const ImRect& ra = ui.st().view.items.at(a);
        CHECK(w->InnerRect.Contains(ra));
        for (const char* b : names) {
            if (a == b) continue;
            CAPTURE(b);
            CHECK_FALSE(ra.Overlaps(ui.st().view.items.at(b)));
        }
    }
}

} // namespace headless
