// The file dialog's model on a temporary folder tree: listing (folders first, sorted, sizes,
// hidden files), the filter, breadcrumbs, keyboard selection, typed paths (relative, absolute, ~)
// and what Enter does in Open and in Save.
#include "core/io/file_browser.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using core::io::FileBrowser;
using Kind = FileBrowser::Outcome::Kind;

// root/{b.json (5 bytes), A.npy (3 bytes), c.txt, .hidden.json, zeta/, Alpha/{inner.json}}
struct TempTree {
    fs::path root = fs::temp_directory_path() / ("attnviz_browser_" + std::to_string(::getpid()));
    TempTree() {
        fs::remove_all(root);
        fs::create_directories(root / "zeta");
        fs::create_directories(root / "Alpha");
        std::ofstream(root / "b.json") << "{ }\n ";
        std::ofstream(root / "A.npy") << "abc";
        std::ofstream(root / "c.txt") << "x";
        std::ofstream(root / ".hidden.json") << "{}";
        std::ofstream(root / "Alpha" / "inner.json") << "{}";
    }
    ~TempTree() { fs::remove_all(root); }
    std::string operator/(const char* name) const { return (root / name).string(); }
};

std::vector<std::string> entry_names(const FileBrowser& b) {
    std::vector<std::string> out;
    for (const auto& e : b.entries()) out.push_back(e.name);
    return out;
}

const std::vector<core::io::FileFilter> scenarios = {{"Scenarios", {".json"}}, {"Arrays", {".npy", ".npz"}}};

} // namespace

TEST_CASE("file browser: folders first, then files, by name without case, with sizes, and hidden files on demand") {
    TempTree t;
    FileBrowser b(FileBrowser::Mode::open, scenarios, t.root.string());
    CHECK(b.folder() == t.root.string());
    CHECK(entry_names(b) == std::vector<std::string>{"Alpha", "zeta", "b.json"});
    CHECK(b.entries()[0].folder);
    CHECK(b.entries()[2].size == 5);
    CHECK(b.entries()[2].modified > 1700000000);
    b.set_filter(2); // All files, added at the end
    CHECK(b.filters()[2].label == "All files");
    CHECK(entry_names(b) == std::vector<std::string>{"Alpha", "zeta", "A.npy", "b.json", "c.txt"});
    b.set_hidden(true);
    CHECK(entry_names(b) == std::vector<std::string>{"Alpha", "zeta", ".hidden.json", "A.npy", "b.json", "c.txt"});
    b.set_filter(1);
    CHECK(entry_names(b) == std::vector<std::string>{"Alpha", "zeta", "A.npy"});
    CHECK(b.filters()[1].text() == "Arrays (.npy .npz)");
    CHECK(core::io::FileFilter{"x", {".labelled.png"}}.matches("heat.LABELLED.png"));
    CHECK_FALSE(core::io::FileFilter{"x", {".labelled.png"}}.matches("heat.png"));
}

TEST_CASE("file browser: breadcrumbs, parent folder, keys and a bad folder that leaves the current one") {
    TempTree t;
    FileBrowser b(FileBrowser::Mode::open, scenarios, t.root.string());
    const auto crumbs = core::io::breadcrumbs(b.folder());
    REQUIRE(crumbs.size() >= 2);
    CHECK(crumbs.front().label == "/");
    CHECK(crumbs.front().path == "/");
    CHECK(crumbs.back().label == t.root.filename().string());
    CHECK(crumbs.back().path == t.root.string());

    b.move_selection(+1); // Down from nothing: the first entry
    CHECK(b.selected() == 0);
    b.move_selection(+5); // stops at the last
    CHECK(b.selected() == 2);
    b.move_selection(-2);
    CHECK(b.selected() == 0);
    CHECK(b.submit("").kind == Kind::folder_entered); // Enter on "Alpha"
    CHECK(b.folder() == t / "Alpha");
    CHECK(entry_names(b) == std::vector<std::string>{"inner.json"});
    CHECK(b.selected() == -1);
    CHECK(b.go_up());
    CHECK(b.folder() == t.root.string());
    CHECK(b.selected() == 0); // the folder we came from

    CHECK_FALSE(b.go_to(t / "b.json"));
    CHECK(b.error() == t / "b.json" + ": not a folder");
    CHECK_FALSE(b.go_to(t / "nowhere"));
    CHECK(b.error() == t / "nowhere" + ": no such folder");
    CHECK(b.folder() == t.root.string()); // still here, still listed
    CHECK(entry_names(b).size() == 3);
    FileBrowser lost(FileBrowser::Mode::open, scenarios, t / "nowhere"); // starts in the working folder instead
    CHECK(lost.folder() == fs::current_path().string());
    CHECK(lost.error() == t / "nowhere" + ": no such folder");
    const fs::path here = fs::current_path();
    fs::current_path(t.root);
    FileBrowser relative(FileBrowser::Mode::open, scenarios, "Alpha"); // a file opened as "Alpha/x.json"
    fs::current_path(here);
    CHECK(relative.folder() == t / "Alpha");
}

TEST_CASE("file browser: typed paths are relative to the folder, absolute, or from ~") {
    TempTree t;
    CHECK(core::io::resolve_typed_path("Alpha/../b.json", t.root.string()) == t / "b.json");
    CHECK(core::io::resolve_typed_path("/x/./y/", "/elsewhere") == "/x/y");
    const char* home = std::getenv("HOME");
    REQUIRE(home != nullptr);
    CHECK(core::io::resolve_typed_path("~/f.json", "/x") == (fs::path(home) / "f.json").lexically_normal().string());

    FileBrowser b(FileBrowser::Mode::open, scenarios, t.root.string());
    const auto file = b.submit("b.json");
    CHECK(file.kind == Kind::file);
    CHECK(file.path == t / "b.json");
    CHECK(b.submit("zeta").kind == Kind::folder_entered);
    CHECK(b.folder() == t / "zeta");
    CHECK(b.submit("../Alpha/inner.json").path == t / "Alpha/inner.json");
    CHECK(b.submit(t / "c.txt").kind == Kind::file); // a typed name needs no matching filter
    const auto missing = b.submit("gone.json");
    CHECK(missing.kind == Kind::error);
    CHECK(b.error() == t / "zeta/gone.json" + ": no such file");
    CHECK(b.submit("").kind == Kind::nothing); // nothing typed, nothing selected
}

TEST_CASE("file browser: Save adds the extension, says whether the file is there, and needs its folder") {
    TempTree t;
    FileBrowser b(FileBrowser::Mode::save, scenarios, t.root.string());
    const auto fresh = b.submit("new");
    CHECK(fresh.kind == Kind::file);
    CHECK(fresh.path == t / "new.json");
    CHECK_FALSE(fresh.exists);
    const auto again = b.submit("b");
    CHECK(again.path == t / "b.json");
    CHECK(again.exists);
    CHECK(b.submit("b.JSON").path == t / "b.JSON"); // already has it, in any case
    b.set_filter(1);
    CHECK(b.submit("arr").path == t / "arr.npy");
    b.set_filter(2); // All files: the first filter's extension still
    CHECK(b.submit("plain").path == t / "plain.json");
    CHECK(b.submit("Alpha").kind == Kind::folder_entered);
    CHECK(b.submit("../nowhere/x.json").kind == Kind::error);
    CHECK(b.error() == t / "nowhere" + ": no such folder");
}

TEST_CASE("file browser: sizes and dates read as people write them") {
    CHECK(core::io::size_text(812) == "812 B");
    CHECK(core::io::size_text(4300) == "4.2 KB");
    CHECK(core::io::size_text(1572864) == "1.5 MB");
    const std::string date = core::io::date_text(1764532560); // 2025-11-30, some time of day
    CHECK(date.size() == 16);
    CHECK(date.substr(0, 8) == "2025-11-");
}
