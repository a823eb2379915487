// The desktop habits, driven headless: every row of the keyboard-shortcut table pressed and its
// effect checked, the title and the unsaved-changes question, Recent files, the layout on a
// projector and on a 4K screen, and the colour maps.
#include "headless.h"

#include "core/io/files.h"
#include "core/io/scenario_io.h"
#include "ui/about.h"
#include "ui/appearance.h"
#include "ui/colour_maps.h"
#include "ui/panel_table.h"
#include "ui/panels/explore/heatmap.h"
#include "ui/shortcuts.h"
#include "ui/workspace_table.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <unistd.h>

using headless::Ui;

namespace {

namespace fs = std::filesystem;

std::string temp_file(const std::string& name) {
    return (fs::temp_directory_path() / ("attnviz_desktop_" + std::to_string(::getpid()) + "_" + name)).string();
}

// A Ui with ImGui's keyboard navigation on, as the window has it.
void keyboard_navigation(Ui& ui) {
    ImGuiIO& io = ImGui::GetIO();
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
    io.KeyMap[ImGuiKey_Space] = 32; // GLFW_KEY_SPACE, which navigation requires
    io.KeyMap[ImGuiKey_KeyPadEnter] = 335;
    ui.frames(2);
}

ImVec2 title_bar_of(const char* title) {
    const ImGuiWindow* w = ImGui::FindWindowByName(title);
    REQUIRE(w != nullptr);
    return ImVec2(w->Pos.x + w->Size.x * 0.5f, w->Pos.y + 0.5f * ImGui::GetFrameHeight());
}

// A button on the last line of a modal window, found by sweeping along that line.
ImVec2 button_of_modal(Ui& ui, const char* modal, const char* button) {
    const ImGuiWindow* w = ImGui::FindWindowByName(modal);
    REQUIRE(w != nullptr);
    const float y = w->Pos.y + w->Size.y - ImGui::GetStyle().WindowPadding.y - 0.5f * ImGui::GetFrameHeight();
    return headless::find_item(ui, modal, {button}, ImVec2(w->Pos.x, y), ImVec2(w->Pos.x + w->Size.x, y));
}

void press(Ui& ui, const ui::Shortcut& s) {
    ui.key(s.key, s.mods != ui::Mods::none, s.mods == ui::Mods::ctrl_shift);
}

// One row of the table, pressed in a fresh Ui; checks what it says it does.
void check_shortcut(const ui::Shortcut& s) {
    Ui ui;
    keyboard_navigation(ui);
    ui::App::State& st = ui.st();
    const core::Scenario start = ui.scenario();
    switch (s.command) {
    case ui::Command::open:
        press(ui, s);
        CHECK(st.dialog.title() == "Open scenario");
        break;
    case ui::Command::open_recent_latest: {
        const std::string path = temp_file("recent.json");
        core::Scenario other = start;
        other.X(0, 0) = 42.0;
        core::io::save_scenario_file(path, other);
        st.settings.recent_files = {path};
        press(ui, s);
        CHECK(ui.scenario().X(0, 0) == 42.0);
        CHECK(st.path == path);
        fs::remove(path);
        break;
    }
    case ui::Command::save: {
        const std::string path = temp_file("save.json");
        st.path = path;
        st.scenario.X(0, 0) = 7.0;
        ui.frames(2);
        CHECK(ui.app().has_unsaved_changes());
        press(ui, s);
        CHECK(core::io::load_scenario_file(path).X(0, 0) == 7.0);
        CHECK_FALSE(ui.app().has_unsaved_changes());
        CHECK(st.settings.recent_files.front() == fs::absolute(path).lexically_normal().string());
        fs::remove(path);
        break;
    }
    case ui::Command::save_as:
        press(ui, s);
        CHECK(st.dialog.title() == "Save scenario as");
        break;
    case ui::Command::quit:
        press(ui, s);
        CHECK(ui.app().wants_to_quit()); // no named file: nothing to ask
        break;
    case ui::Command::undo:
    case ui::Command::redo:
        st.scenario.X(0, 0) = 5.0;
        ui.frames(2); // committed as one undo step
        ui.key('Z', true);
        CHECK(ui.scenario().X(0, 0) == start.X(0, 0));
        if (s.command == ui::Command::undo) break;
        press(ui, s);
        CHECK(ui.scenario().X(0, 0) == 5.0);
        break;
    case ui::Command::zoom_in:
        press(ui, s);
        CHECK(st.settings.zoom_percent == 110);
        break;
    case ui::Command::zoom_out:
        press(ui, s);
        CHECK(st.settings.zoom_percent == 90);
        break;
    case ui::Command::zoom_reset:
        st.settings.zoom_percent = 200;
        press(ui, s);
        CHECK(st.settings.zoom_percent == 100);
        break;
    case ui::Command::shortcuts:
        press(ui, s);
        CHECK(st.show_shortcuts);
        for (const ui::Shortcut& row : ui::shortcut_table()) CHECK(ui.shows(row.what, ui::shortcuts_window_title));
        press(ui, s);
        CHECK_FALSE(st.show_shortcuts);
        break;
    case ui::Command::workspace_1:
    case ui::Command::workspace_2:
    case ui::Command::workspace_3:
    case ui::Command::workspace_4: {
        const int k = static_cast<int>(s.command) - static_cast<int>(ui::Command::workspace_1);
        if (k == 0) ui.key('3', true); // start elsewhere, so that Ctrl+1 has somewhere to come back from
        press(ui, s);
        CHECK(ui.app().workspace() == ui::workspace_table()[static_cast<std::size_t>(k)].id);
        break;
    }
    case ui::Command::previous_row:
    case ui::Command::next_row: {
        ui.click(title_bar_of("Controls")); // elsewhere: the arrows leave the row alone
        st.view.selected_row = 1;
        press(ui, s);
        CHECK(st.view.selected_row == 1);
        ui.click(title_bar_of(ui::find_panel("heatmap")->title));
        press(ui, s);
        CHECK(st.view.selected_row == (s.command == ui::Command::next_row ? 2 : 0));
        break;
    }
    case ui::Command::edit_cell:
    case ui::Command::next_cell:
    case ui::Command::cancel_edit: {
        ui.click(ui.grid_cell("X", 0, 0)); // focuses the cell without changing it
        CHECK(ui.scenario().X(0, 0) == start.X(0, 0));
        ui.key(ui::keys::enter);
        CHECK(ImGui::GetIO().WantTextInput); // typing into the focused cell
        ui.type("3");
        if (s.command == ui::Command::edit_cell) {
            ui.key(ui::keys::enter);
            CHECK(ui.scenario().X(0, 0) == 3.0);
        } else if (s.command == ui::Command::next_cell) {
            ui.key(ui::keys::tab);
            CHECK(ui.scenario().X(0, 0) == 3.0);
            CHECK(ImGui::GetIO().WantTextInput); // now typing into the next cell
            ui.type("4");
            ui.key(ui::keys::enter);
            CHECK(ui.scenario().X(0, 1) == 4.0);
        } else {
            ui.key(ui::keys::escape);
            CHECK(ui.scenario().X(0, 0) == start.X(0, 0));
            CHECK_FALSE(ImGui::GetIO().WantTextInput);
        }
        break;
    }
    }
}

} // namespace

TEST_CASE("shortcuts: every row of the Keyboard shortcuts list does what it says") {
    for (const ui::Shortcut& s : ui::shortcut_table()) {
        const std::string row = std::string(s.group) + ": " + s.keys + " — " + s.what;
        INFO(row);
        check_shortcut(s);
    }
}

TEST_CASE("shortcuts: each menu item shows the keys of its shortcut") {
    const std::pair<const char*, std::vector<const char*>> menus[] = {
        {"File", {"Ctrl+O", "Ctrl+S", "Ctrl+Shift+S", "Ctrl+Q"}},
        {"Edit", {"Ctrl+Z", "Ctrl+Shift+Z"}},
        {"Help", {"F1"}},
    };
    for (const auto& [menu, keys] : menus) {
        Ui ui;
        ui.frames(2);
        const float bar_y = 0.5f * ImGui::GetFrameHeight();
        ui.click(headless::find_item(ui, "##MainMenuBar", {"##menubar", menu}, ImVec2(0, bar_y), ImVec2(800, bar_y)));
        const std::string where = std::string(menu) + " menu: " + ui.screen_text("##Menu_00");
        INFO(where);
        for (const char* k : keys) CHECK(ui.shows(k, "##Menu_00"));
    }
}

TEST_CASE("desktop: the title names the file and marks unsaved changes — quitting asks about them") {
    const std::string path = temp_file("title.json");
    core::io::save_scenario_file(path, core::preset_three_tokens());
    Ui ui(core::io::load_scenario_file(path));
    ui::App::State& st = ui.st();
    st.path = path;
    ui.frames(2);
    const std::string name = fs::path(path).filename().string();
    CHECK(ui.app().window_title() == "attnviz — " + name);
    st.scenario.X(1, 1) = 9.0;
    ui.frames(2);
    CHECK(ui.app().window_title() == "attnviz — " + name + " •");

    ui.key('Q', true); // Cancel keeps everything
    CHECK(ui.shows("has changes that are not saved"));
    ui.click(button_of_modal(ui, "Unsaved changes", "Cancel"));
    ui.frames(2);
    CHECK_FALSE(ui.app().wants_to_quit());
    CHECK(ui.scenario().X(1, 1) == 9.0);

    ui.app().request_quit(); // the close box: Save writes the file, then quits
    ui.frames(2);
    ui.click(button_of_modal(ui, "Unsaved changes", "Save and quit"));
    CHECK(ui.app().wants_to_quit());
    CHECK(core::io::load_scenario_file(path).X(1, 1) == 9.0);
    CHECK(ui.app().window_title() == "attnviz — " + name);
    fs::remove(path);
}

TEST_CASE("desktop: File > Recent files opens a file again — a bad one is explained and changes nothing") {
    const std::string good = temp_file("good.json"), bad = temp_file("bad.json");
    core::Scenario other = core::preset_three_tokens();
    other.X(2, 0) = -3.0;
    core::io::save_scenario_file(good, other);
    core::io::write_file_atomically(bad, "{\"X\": [[1, 0]], \"W_Q\": ");
    Ui ui;
    ui.st().settings.recent_files = {bad, good};
    ui.frames(2);
    const core::Scenario before = ui.scenario();
    ui.st().open_path = bad; // what clicking its menu item asks
    ui.frames(2);
    CHECK(ui.scenario() == before);
    CHECK(ui.st().view.status_is_error);
    CHECK(ui.st().view.status.find(bad) != std::string::npos);
    headless::menu_click(ui, "File", "Recent files");
    ui.frames(2);
    const std::string shown = ui.screen_text();
    INFO(shown);
    CHECK(ui.shows(fs::path(good).filename().string()));
    ui.st().open_path = good;
    ui.frames(2);
    CHECK(ui.scenario().X(2, 0) == -3.0);
    CHECK(ui.st().settings.recent_files.front() == good);
    fs::remove(good);
    fs::remove(bad);
}

TEST_CASE("desktop: on a 1280×720 projector and a 4K screen at 200 % every default panel is on screen") {
    for (const auto& [display, scale] : {std::pair{ImVec2(1280, 720), 1.0f}, std::pair{ImVec2(3840, 2160), 2.0f}}) {
        Ui ui(core::preset_three_tokens(), display);
        ImVector<ImWchar> ranges;
        ui::rebuild_fonts(*ImGui::GetIO().Fonts, ranges, ui::Appearance{scale, 100, core::io::Theme::dark}, std::cerr);
        ImGui::GetIO().Fonts->SetTexID(reinterpret_cast<ImTextureID>(1));
        ui::apply_style(ui::Appearance{scale, 100, core::io::Theme::dark});
        ui.frames(3);
        for (const ui::PanelSpec* panel : headless::panels_open_at_start()) {
            const ui::PanelSpec& p = *panel;
            const std::string where = std::string(p.title) + " at " + std::to_string(display.x) + " x " + std::to_string(display.y);
            INFO(where);
            const ImGuiWindow* w = ImGui::FindWindowByName(p.title);
            REQUIRE(w != nullptr);
            CHECK(w->Active);
            CHECK(w->Rect().Min.x >= 0.0f);
            CHECK(w->Rect().Max.x <= display.x);
            CHECK(w->Rect().Max.y <= display.y);
            CHECK(w->Size.x >= 15.0f * ImGui::GetFontSize()); // room for its content, not a sliver
            CHECK(w->Size.y >= 6.0f * ImGui::GetFontSize());
        }
    }
}

TEST_CASE("colour maps: diverging maps are centred on 0 and follow the theme — the heatmap recolours") {
    ui::use_colour_maps({core::io::WeightsMap::viridis, core::io::SignedMap::blue_red, core::io::Theme::light});
    const ImVec4 zero = ImGui::ColorConvertU32ToFloat4(ui::signed_colour(0.0));
    const ImVec4 neg = ImGui::ColorConvertU32ToFloat4(ui::signed_colour(-1.0));
    const ImVec4 pos = ImGui::ColorConvertU32ToFloat4(ui::signed_colour(1.0));
    CHECK(zero.x + zero.y + zero.z > 2.7f); // near white on the light theme
    CHECK(neg.z > neg.x);                    // negative is blue
    CHECK(pos.x > pos.z);                    // positive is red
    ui::use_colour_maps({core::io::WeightsMap::viridis, core::io::SignedMap::blue_red, core::io::Theme::dark});
    const ImVec4 dark_zero = ImGui::ColorConvertU32ToFloat4(ui::signed_colour(0.0));
    CHECK(dark_zero.x + dark_zero.y + dark_zero.z < 0.6f); // near the dark background
    CHECK(ui::weights_colour(0.0) != ui::weights_colour(1.0));

    Ui ui(core::random_scenario(core::Shape{}.with_tokens(64).with_width(8), 3)); // drawn as a texture
    ui.frames(2);
    const long long rows = ui.textures().rows_written;
    CHECK(rows >= 64);
    ui.st().settings.weights_map = core::io::WeightsMap::cividis;
    ui.frames(2);
    CHECK(ui.textures().rows_written == rows + 64); // coloured again with cividis
    CHECK(ui::weights_colour(0.0) != IM_COL32(68, 1, 84, 255));
    ui::use_colour_maps({});
}

TEST_CASE("desktop: Help > About shows the version, the libraries' licences and where the files live") {
    Ui ui(core::preset_three_tokens());
    ui.app().set_file_locations({"/home/u/.local/state/attnviz/session.json", "/home/u/.config/attnviz/settings.json",
                                 "/home/u/.config/attnviz/imgui.ini"});
    ui.frames(2);
    CHECK_FALSE(ui.shows("Where attnviz keeps your files"));
    headless::menu_click(ui, "Help", "About attnviz");
    ui.frames(2);
    const char* about = ui::about_window_title;
    CHECK(ui.shows(std::string("attnviz ") + ATTNVIZ_VERSION, about));
    CHECK(ui.shows("Eigen", about));
    CHECK(ui.shows("MPL-2.0", about));
    CHECK(ui.shows("/home/u/.local/state/attnviz/session.json", about));
    CHECK(ui.shows("/home/u/.config/attnviz/settings.json", about));
    CHECK(ui.shows("/home/u/.config/attnviz/imgui.ini", about));
}

TEST_CASE("desktop: the menu bar ends with Help, after Learn, as on every desktop") {
    Ui ui;
    ui.frames(2);
    const std::string bar = ui.screen_text("##MainMenuBar");
    const std::string first_row = bar.substr(0, bar.find('\n'));
    INFO(first_row);
    const auto learn = first_row.find("Learn"), help = first_row.find("Help");
    REQUIRE(learn != std::string::npos);
    REQUIRE(help != std::string::npos);
    CHECK(learn < help);
    CHECK(first_row.find("View") < learn);
}
