// Copy and save from the window: right-click a matrix's title, pick a format.
#include "headless.h"
#include "tests/python.h"

#include "core/io/npy.h"
#include "ui/panels/shared/matrix_menu.h"

#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

namespace {

// Right-clicks the title `name` recorded, then clicks `item` of its menu.
void right_click_then(headless::Ui& ui, const std::string& name, const std::string& item) {
    const ImVec2 title = ui.st().view.items.at(name + " title").GetCenter();
    ImGuiIO& io = ImGui::GetIO();
    ui.move(title);
    io.MouseDown[1] = true;
    ui.frame();
    io.MouseDown[1] = false;
    ui.frame();
    ui.frame();
    if (!item.empty()) ui.click(ui.st().view.items.at(name + " menu: " + item).GetCenter());
}

} // namespace

TEST_CASE("window: right-click A's title, Copy as LaTeX puts the article's A on the clipboard") {
    headless::Ui ui;
    ui.frames(3);
    ImGui::SetClipboardText("");
    right_click_then(ui, "A", "Copy as LaTeX");
    CHECK(std::string(ImGui::GetClipboardText()) ==
          "\\begin{pmatrix} 0.446 & 0.108 & 0.446 \\\\ 0.164 & 0.164 & 0.673 \\\\ 0.187 & 0.045 & 0.768 \\end{pmatrix}\n");
    right_click_then(ui, "Q", "Copy as Markdown");
    CHECK(std::string(ImGui::GetClipboardText()) == "| | 1 | 2 |\n|---|---:|---:|\n| the | 1 | 0 |\n| cat | 1 | 2 |\n| sat | 2 | 2 |\n");
    right_click_then(ui, "scaled", "Copy as CSV");
    CHECK(std::string(ImGui::GetClipboardText()).rfind(",the,cat,sat\nthe,1.414213562373095", 0) == 0);
}

// Picks `item` of the title's menu, then types `path` into the file dialog's name box and saves.
void save_through_dialog(headless::Ui& ui, const std::string& name, const std::string& item, const std::string& path) {
    right_click_then(ui, name, item);
    ui.frames(2); // the modal appears, then its name box takes the keyboard
    REQUIRE(ui.st().dialog.open());
    ui.type(path); // the suggested name is selected: typing replaces it
    ui.key(headless::key_enter);
    CHECK_FALSE(ui.st().dialog.open());
}

TEST_CASE("window: save a matrix as .npy and the heatmap as SVG and PNG from the title's menu") {
    const std::string dir = test_python::temp_dir();
    headless::Ui ui;
    ui.frames(3);
    right_click_then(ui, "Z", "Save as NumPy .npy…");
    ui.frame();
    CHECK(ui.st().dialog.title() == "Save Z");
    CHECK(ui.st().dialog.typed == "Z.npy"); // suggested
    ui.key(headless::key_escape);
    save_through_dialog(ui, "Z", "Save as NumPy .npy…", dir + "/Z"); // the extension is added
    const core::io::Tensor z = core::io::read_npy(dir + "/Z.npy");
    const core::Matrix& Z = ui.head().output;
    CHECK(z.shape == std::vector<std::int64_t>{3, 2});
    CHECK(z.values == std::vector<double>(Z.data(), Z.data() + Z.size()));
    CHECK(ui.st().view.status == "Saved " + dir + "/Z.npy");

    save_through_dialog(ui, "heatmap", "Save as SVG figure…", dir + "/A.svg");
    CHECK(fixtures::read(dir + "/A.svg").find(">sat</text>") != std::string::npos);
    save_through_dialog(ui, "heatmap", "Save as PNG, a pixel per cell…", dir + "/A.png");
    CHECK(fixtures::read(dir + "/A.png") == core::io::png_bytes(core::io::heatmap_texels(ui.head().weights, false)));
    CHECK(ui.st().settings.recent_files.front() == dir + "/A.png");
}
