// The file dialog and drag and drop, driven headless: File ▸ Open navigated with clicks and with
// keys, a typed path, the filter, hidden files, a recent folder, an imported .npy, Save with the
// overwrite question; dropped arrays, scenarios and broken files. Arrays are written with our own
// .npy writer.
#include "headless.h"

#include "core/io/npy.h"
#include "core/io/scenario_io.h"
#include "ui/panels/model/attention.h"
#include "ui/panels/learn/lesson.h"
#include "tests/array_files.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace {

namespace fs = std::filesystem;
using headless::Ui;

// root/{a.json, arr.npy, .hid.json, sub/{inner.json}}
struct Tree {
    fs::path root;
    core::Scenario inner = core::preset_it_sentence();
    Tree() {
        std::string dir = "/tmp/attnviz-dialog-XXXXXX";
        REQUIRE(::mkdtemp(dir.data()) != nullptr);
        root = dir;
        fs::create_directories(root / "sub");
        core::io::save_scenario_file((root / "a.json").string(), core::preset_three_tokens());
        core::io::save_scenario_file((root / "sub" / "inner.json").string(), inner);
        std::ofstream(root / ".hid.json") << "{}";
        write({2, 2}, "arr.npy");
    }
    ~Tree() { fs::remove_all(root); }
    std::string operator/(const std::string& name) const { return (root / name).string(); }
    // A (rows, cols) or (heads, rows, cols) array of 0.5, 1.5, 2.5, … written as root/name.
    std::string write(std::vector<std::int64_t> shape, const std::string& name) const {
        core::io::Tensor t{shape, {}, core::io::DType::f64};
        std::int64_t count = 1;
        for (std::int64_t d : shape) count *= d;
        for (std::int64_t i = 0; i < count; ++i) t.values.push_back(0.5 + static_cast<double>(i));
        fixtures::write_npy((root / name).string(), t);
        return (root / name).string();
    }
};

ImVec2 at(Ui& ui, const std::string& item) { return ui.st().dialog.items.at(item).GetCenter(); }

// Menu ▸ item opens the dialog titled `title`; the path is typed into its path box and taken.
void choose_through_menu(Ui& ui, const char* menu, const char* item, const std::string& title, const std::string& path) {
    headless::menu_click(ui, menu, item);
    ui.frames(2);
    REQUIRE(ui.st().dialog.title() == title);
    ui.type(path);
    ui.key(headless::key_enter);
}

std::vector<std::string> names(Ui& ui) {
    std::vector<std::string> out;
    for (const auto& e : ui.st().dialog.browser->entries()) out.push_back(e.name);
    return out;
}

// File ▸ Open…, then `path` typed into the path box and Enter.
void open_dialog_at(Ui& ui, const std::string& folder) {
    choose_through_menu(ui, "File", "Open…", "Open scenario", folder);
    REQUIRE(ui.st().dialog.browser->folder() == folder);
}

core::Matrix matrix_2x2() {
    core::Matrix m(2, 2);
    m << 0.5, 1.5, 2.5, 3.5;
    return m;
}

} // namespace

TEST_CASE("file dialog: File ▸ Open walks folders with keys and clicks, filters, and opens a typed relative path") {
    Tree t;
    Ui ui;
    ui.frames(2);
    open_dialog_at(ui, t.root.string());
    CHECK(ui.st().dialog.typed.empty()); // the typed folder was entered
    CHECK(names(ui) == std::vector<std::string>{"sub", "a.json"});
    CHECK(ui.shows("a.json", "Open scenario"));
    CHECK(ui.shows("Modified", "Open scenario"));

    // Keys: Down selects, Enter enters, Backspace goes back up with the folder still selected.
    ui.key(headless::key_down);
    CHECK(ui.st().dialog.browser->selected() == 0);
    ui.key(headless::key_enter);
    CHECK(ui.st().dialog.browser->folder() == t / "sub");
    CHECK(names(ui) == std::vector<std::string>{"inner.json"});
    ui.key(headless::key_backspace);
    CHECK(ui.st().dialog.browser->folder() == t.root.string());
    CHECK(ui.st().dialog.browser->selected() == 0);

    // Clicks: a double click enters, a breadcrumb and the parent button come back.
    ui.double_click(at(ui, "entry sub"));
    CHECK(ui.st().dialog.browser->folder() == t / "sub");
    const int crumbs = static_cast<int>(core::io::breadcrumbs(t / "sub").size());
    ui.click(at(ui, "crumb " + std::to_string(crumbs - 2)));
    CHECK(ui.st().dialog.browser->folder() == t.root.string());
    ui.double_click(at(ui, "entry sub"));
    ui.click(at(ui, "up"));
    CHECK(ui.st().dialog.browser->folder() == t.root.string());

    // The filter: arrays; then all files with the hidden ones.
    ui.click(at(ui, "filter"));
    ui.frame(); // the list has its place from its second frame on
    ui.click(at(ui, "filter 1"));
    CHECK(names(ui) == std::vector<std::string>{"sub", "arr.npy"});
    ui.click(at(ui, "filter"));
    ui.frame();
    ui.click(at(ui, "filter 2"));
    ui.click(at(ui, "hidden"));
    CHECK(names(ui) == std::vector<std::string>{"sub", ".hid.json", "a.json", "arr.npy"});

    // A path relative to the folder shown, typed while the list has the keys: it goes to the box.
    ui.key(headless::key_down);
    ui.type("sub/../sub/inner.json");
    ui.frames(3);
    CHECK(ui.st().dialog.typed == "sub/../sub/inner.json");
    ui.key(headless::key_enter);
    CHECK_FALSE(ui.st().dialog.open());
    CHECK(ui.scenario() == t.inner);
    CHECK(ui.st().path == t / "sub/inner.json");
    CHECK(ui.st().settings.recent_files.front() == t / "sub/inner.json");
    CHECK(ui.st().settings.recent_folders.front() == t / "sub");
}

TEST_CASE("file dialog: it starts in the most recent folder, a recent folder is one click, errors name the file") {
    Tree t;
    Ui ui;
    ui.frames(2);
    ui.st().settings.recent_folders = {t / "sub", t.root.string()};
    headless::menu_click(ui, "File", "Open…");
    ui.frames(2);
    CHECK(ui.st().dialog.browser->folder() == t / "sub");
    CHECK(ui.shows("Recent folders", "Open scenario"));
    ui.click(at(ui, "recent folder 1"));
    CHECK(ui.st().dialog.browser->folder() == t.root.string());

    const core::Scenario before = ui.scenario();
    ui.click(at(ui, "field"));
    ui.type("missing.json");
    ui.key(headless::key_enter);
    CHECK(ui.st().dialog.error() == t / "missing.json" + ": no such file");
    CHECK(ui.shows("missing.json:nosuchfile", "Open scenario"));
    std::ofstream(t / "broken.json") << "{\"X\": [[1, 2], [3";
    ui.key('A', true);
    ui.type("broken.json");
    ui.key(headless::key_enter);
    CHECK(ui.st().dialog.open());
    CHECK(ui.st().dialog.error().find("broken.json") != std::string::npos);
    CHECK(ui.scenario() == before);
    ui.key(headless::key_escape);
    CHECK_FALSE(ui.st().dialog.open());
    CHECK(ui.scenario() == before);
}

TEST_CASE("file dialog: Save as asks before replacing a file and adds the missing .json") {
    Tree t;
    Ui ui;
    ui.frames(2);
    ui.st().scenario.causal = true;
    ui.frames(1);
    ui.key('S', true, true);
    ui.frames(1);
    REQUIRE(ui.st().dialog.title() == "Save scenario as");
    CHECK(ui.st().dialog.typed == "scenario.json");
    ui.type(t / "a"); // replaces the suggested name
    ui.key(headless::key_enter);
    CHECK(ui.st().dialog.overwrite == t / "a.json");
    CHECK(ui.shows("a.json is already there. Replace it?", "Save scenario as"));
    ui.click(at(ui, "keep"));
    CHECK(ui.st().dialog.open());
    CHECK_FALSE(core::io::load_scenario_file(t / "a.json").causal);
    ui.key(headless::key_enter); // the name is still in the box
    REQUIRE(ui.st().dialog.overwrite == t / "a.json");
    ui.click(at(ui, "replace"));
    CHECK_FALSE(ui.st().dialog.open());
    CHECK(core::io::load_scenario_file(t / "a.json") == ui.scenario());
    CHECK(ui.st().path == t / "a.json");

    // A new name: no question.
    ui.key('S', true, true);
    ui.frames(1);
    ui.type("fresh");
    ui.key(headless::key_enter);
    CHECK_FALSE(ui.st().dialog.open());
    CHECK(core::io::load_scenario_file(t / "fresh.json") == ui.scenario());
}

TEST_CASE("file dialog: File ▸ Import puts a .npy into the matrix picked among those it fits") {
    Tree t;
    Ui ui;
    ui.frames(2);
    choose_through_menu(ui, "File", "Import an array into a matrix…", "Import an array into a matrix", t / "arr.npy");
    CHECK_FALSE(ui.st().dialog.open());
    REQUIRE(ui.st().drops.offer.has_value());
    ui.frames(2);
    for (const char* fit : {"X", "W_Q of head 1", "W_K of head 1", "W_V of head 1", "W_O"})
        CHECK(ui.shows(fit, "Put the array in a matrix"));
    ui.click(ui.st().drops.items.at("fill W_K of head 1").GetCenter());
    CHECK_FALSE(ui.st().drops.offer.has_value());
    CHECK(ui.scenario().heads[0].W_K == matrix_2x2());
    CHECK(ui.scenario().heads[0].W_Q == core::preset_three_tokens().heads[0].W_Q);
    ui.key('Z', true); // one undoable step
    CHECK(ui.scenario().heads[0].W_K == core::preset_three_tokens().heads[0].W_K);
}

TEST_CASE("drag and drop: an array fills the matrix picked, and a wrong shape or a broken file changes nothing") {
    Tree t;
    Ui ui;
    ui.frames(2);
    const core::Scenario start = ui.scenario();
    ui.app().drop_files({t.write({4, 2}, "emb.npy")}); // 4 tokens of width 2: only X fits
    ui.frames(3);
    REQUIRE(ui.st().drops.offer.has_value());
    CHECK(ui.st().drops.offer->fits.size() == 1);
    CHECK(ui.shows("shape (4, 2)", "Put the array in a matrix"));
    ui.click(ui.st().drops.items.at("fill X").GetCenter());
    CHECK(ui.scenario().n() == 4);
    CHECK(ui.scenario().X(3, 1) == 7.5);
    CHECK(ui.scenario().tokens[3] == "t4");
    const core::Scenario filled = ui.scenario();

    ui.app().drop_files({t.write({5, 7}, "wide.npy")});
    ui.frames(3);
    CHECK_FALSE(ui.st().drops.offer.has_value());
    const ImGuiWindow* modal = ImGui::FindWindowByName("Dropped files not opened");
    REQUIRE(modal != nullptr);
    REQUIRE(ui.st().drops.problems.size() == 1);
    CHECK(ui.st().drops.problems[0] == t / "wide.npy" + ": an array of shape (5, 7) fits no matrix of this scenario: "
                                                       "X (4, 2), W_Q (2, 2), W_K (2, 2), W_V (2, 2)");
    CHECK(ui.shows("wide.npy: an array of", "Dropped files not opened"));
    CHECK(ui.scenario() == filled);
    ui.click(ui.st().drops.items.at("ok").GetCenter());
    CHECK(ui.st().drops.problems.empty());

    std::ofstream(t / "broken.npy") << "\x93NUMPY garbage";
    ui.app().drop_files({t / "broken.npy", t / "notes.txt"});
    ui.frames(3);
    CHECK(ui.st().drops.problems.size() == 2);
    CHECK(ui.shows("broken.npy", "Dropped files not opened"));
    CHECK(ui.st().drops.problems[1] == t / "notes.txt" +
                                           ": attnviz opens .json scenarios, .toml lessons and arrays (.npy, .npz, .safetensors, .csv, .tsv)");
    CHECK(ui.shows("notes.txt", "Dropped files not opened"));
    CHECK(ui.scenario() == filled);
    CHECK(ui.scenario() != start);
}

TEST_CASE("drag and drop: a scenario opens, asking first about unsaved changes, and several files go in turn") {
    Tree t;
    Ui ui;
    ui.frames(2);
    ui.app().drop_files({t / "sub/inner.json"});
    ui.frames(2);
    CHECK(ui.scenario() == t.inner); // nothing unsaved: no question
    CHECK(ui.st().path == t / "sub/inner.json");

    ui.st().scenario.causal = !t.inner.causal; // an unsaved change
    ui.frames(1);
    ui.app().drop_files({t / "a.json", t.write({3, 3}, "att.npy")});
    ui.frames(3);
    CHECK(ui.shows("a.json instead?", "Open the dropped scenario?"));
    CHECK(ui.scenario() != core::preset_three_tokens());
    ui.click(ui.st().drops.items.at("open anyway").GetCenter());
    ui.frames(2);
    CHECK(ui.scenario() == core::preset_three_tokens());
    // Next in turn: a (3, 3) array fits no matrix of the cat-sat scenario, but is attention weights.
    REQUIRE(ui.st().drops.offer.has_value());
    CHECK(ui.st().drops.offer->fits.empty());
    CHECK(ui.st().drops.offer->attention);
    ui.click(ui.st().drops.items.at("attention").GetCenter());
    ui::AttentionView& viewer = ui.st().view.state<ui::AttentionView>();
    REQUIRE(viewer.file != nullptr);
    CHECK(viewer.file->n() == 3);
    CHECK(ui.st().view.open["attention"]);
    viewer.close(); // before the App's texture uploader goes
}

TEST_CASE("file dialog: Learn ▸ Open lesson file… and a dropped .toml start the lesson, and a bad one is named") {
    Tree t;
    const std::string state = t / "state";
    setenv("XDG_STATE_HOME", state.c_str(), 1); // the lesson's progress goes there
    const std::string lesson = std::string(ATTNVIZ_FIXTURES) + "/../../assets/lessons/worked-example.toml";
    fs::copy_file(lesson, t / "mine.toml");
    std::ofstream(t / "bad.toml") << "title = \n";
    {
        Ui ui;
        ui.frames(2);
        choose_through_menu(ui, "Learn", "Open lesson file…", "Open lesson file", t / "bad.toml");
        CHECK(ui.st().dialog.error().find("bad.toml") != std::string::npos);
        CHECK_FALSE(ui.st().view.state<ui::LessonView>().session.has_value());
        ui.key('A', true);
        ui.type(t / "mine.toml");
        ui.key(headless::key_enter);
        CHECK_FALSE(ui.st().dialog.open());
        REQUIRE(ui.st().view.state<ui::LessonView>().session.has_value());
        CHECK(ui.st().view.open["lesson"]);
        ui::close_lesson(ui.st().view);
        ui.app().drop_files({t / "mine.toml"});
        ui.frames(2);
        CHECK(ui.st().view.state<ui::LessonView>().session.has_value());
    }
    unsetenv("XDG_STATE_HOME");
}
