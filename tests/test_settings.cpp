// The settings file: a round trip keeps every value; bad and unknown values are ignored one by
// one with a message naming the file and the key; writing is atomic and makes the folder.
#include "core/io/settings.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

bool mentions(const std::vector<std::string>& problems, const std::string& a, const std::string& b) {
    for (const std::string& p : problems)
        if (p.find(a) != std::string::npos && p.find(b) != std::string::npos) return true;
    return false;
}

core::io::Settings everything_changed() {
    core::io::Settings s;
    s.theme = core::io::Theme::light;
    s.zoom_percent = 200;
    s.weights_map = core::io::WeightsMap::cividis;
    s.signed_map = core::io::SignedMap::purple_orange;
    s.recent_files = {"/data/heads.json", "/data/cat sat ü.json"};
    s.recent_folders = {"/data", "/home/me/models"};
    s.window = core::io::WindowGeometry{-30, 40, 1280, 720, true};
    return s;
}

} // namespace

TEST_CASE("settings: a round trip through the file keeps every value") {
    const fs::path dir = fs::temp_directory_path() / ("attnviz_settings_" + std::to_string(::getpid()));
    fs::remove_all(dir);
    const std::string path = (dir / "attnviz" / "settings.json").string();
    const core::io::Settings s = everything_changed();
    REQUIRE(s != core::io::Settings{});
    core::io::save_settings(path, s); // makes the folder
    std::vector<std::string> problems;
    const core::io::Settings back = core::io::load_settings(path, problems);
    CHECK(problems.empty());
    CHECK(back == s);
    CHECK(back.window->x == -30);
    CHECK(back.recent_files[1] == "/data/cat sat ü.json");
    // No temporary file is left beside it.
    int files = 0;
    for (const auto& entry : fs::directory_iterator(dir / "attnviz")) files += entry.is_regular_file();
    CHECK(files == 1);
    fs::remove_all(dir);
}

TEST_CASE("settings: a missing file is the defaults, without a message") {
    std::vector<std::string> problems;
    CHECK(core::io::load_settings("/nonexistent/attnviz/settings.json", problems) == core::io::Settings{});
    CHECK(problems.empty());
}

TEST_CASE("settings: bad and unknown values are ignored one by one, with the file and key named") {
    const std::string text = R"({"theme": "pink", "zoom_percent": 130, "colour_maps": {"weights": "cividis", "signed": 3, "rainbow": "x"},
        "recent_files": ["/a.json", 7, "", "/a.json", "/b.json"], "window": {"x": 1, "y": 2, "width": 50, "height": 600},
        "fullscreen": true})";
    std::vector<std::string> problems;
    const core::io::Settings s = core::io::parse_settings(text, "settings.json", problems);
    CHECK(s.theme == core::io::Theme::dark);
    CHECK(s.zoom_percent == 100);
    CHECK(s.weights_map == core::io::WeightsMap::cividis); // the good value next to bad ones is kept
    CHECK(s.signed_map == core::io::SignedMap::blue_red);
    CHECK(s.recent_files == std::vector<std::string>{"/a.json", "/b.json"});
    CHECK_FALSE(s.window.has_value());
    CHECK(mentions(problems, "settings.json: theme", "\"pink\""));
    CHECK(mentions(problems, "zoom_percent", "not one of the zoom steps"));
    CHECK(mentions(problems, "colour_maps.signed", "ignored"));
    CHECK(mentions(problems, "colour_maps.rainbow", "unknown"));
    CHECK(mentions(problems, "recent_files[1]", "not a file name"));
    CHECK(mentions(problems, "window.width", "50"));
    CHECK(mentions(problems, "fullscreen", "unknown setting"));
}

TEST_CASE("settings: text that is not a JSON object gives the defaults and one message") {
    for (const char* text : {"", "{\"theme\": ", "[1, 2]", "\"light\"", "{\"theme\": \"light\"} trailing"}) {
        std::vector<std::string> problems;
        CHECK(core::io::parse_settings(text, "s.json", problems) == core::io::Settings{});
        REQUIRE(problems.size() == 1);
        CHECK(problems[0].rfind("s.json: ", 0) == 0);
    }
    std::vector<std::string> problems;
    std::string deep(100, '[');
    CHECK(core::io::parse_settings(deep, "s.json", problems) == core::io::Settings{});
    CHECK(problems.size() == 1);
}

TEST_CASE("settings: recent files are absolute, most recent first, without duplicates, at most ten") {
    core::io::Settings s;
    for (int i = 0; i < 12; ++i) core::io::remember_recent_file(s, "/tmp/f" + std::to_string(i) + ".json");
    REQUIRE(s.recent_files.size() == static_cast<std::size_t>(core::io::max_recent_files));
    CHECK(s.recent_files.front() == "/tmp/f11.json");
    CHECK(s.recent_files.back() == "/tmp/f2.json");
    core::io::remember_recent_file(s, "/tmp/./f5.json");
    CHECK(s.recent_files.front() == "/tmp/f5.json");
    CHECK(std::count(s.recent_files.begin(), s.recent_files.end(), "/tmp/f5.json") == 1);
    core::io::remember_recent_file(s, "relative.json");
    CHECK(fs::path(s.recent_files.front()).is_absolute());
}

TEST_CASE("settings: a recent file remembers its folder, and recent folders are absolute and without duplicates") {
    core::io::Settings s;
    core::io::remember_recent_file(s, "/tmp/a/x.json");
    core::io::remember_recent_file(s, "/tmp/b/y.npy");
    core::io::remember_recent_file(s, "/tmp/a/z.json");
    CHECK(s.recent_folders == std::vector<std::string>{"/tmp/a", "/tmp/b"});
    core::io::remember_recent_folder(s, "/tmp/c/./d/");
    CHECK(s.recent_folders.front() == "/tmp/c/d");
    core::io::remember_recent_folder(s, "/");
    CHECK(s.recent_folders.front() == "/");
    for (int i = 0; i < 12; ++i) core::io::remember_recent_folder(s, "/f" + std::to_string(i));
    CHECK(s.recent_folders.size() == static_cast<std::size_t>(core::io::max_recent_files));
    std::vector<std::string> problems;
    const core::io::Settings back = core::io::parse_settings(R"({"recent_folders": ["/a", 3, "/a", "/b"]})", "s.json", problems);
    CHECK(back.recent_folders == std::vector<std::string>{"/a", "/b"});
    REQUIRE(problems.size() == 1);
    CHECK(problems[0].find("recent_folders[1]") != std::string::npos);
}

TEST_CASE("settings: zoom steps run from 75 % to 300 % and stop at the ends") {
    CHECK(core::io::next_zoom_step(100, +1) == 110);
    CHECK(core::io::next_zoom_step(100, -1) == 90);
    CHECK(core::io::next_zoom_step(300, +1) == 300);
    CHECK(core::io::next_zoom_step(75, -1) == 75);
    int z = 100, steps = 0;
    while (z < 300 && steps < 20) z = core::io::next_zoom_step(z, +1), ++steps;
    CHECK(steps == 7);
}

TEST_CASE("settings: the path follows XDG_CONFIG_HOME, ignoring a relative one") {
    const char* old = std::getenv("XDG_CONFIG_HOME");
    const std::string saved = old ? old : "";
    setenv("XDG_CONFIG_HOME", "/cfg", 1);
    CHECK(core::io::settings_path() == "/cfg/attnviz/settings.json");
    setenv("XDG_CONFIG_HOME", "relative", 1);
    setenv("HOME", std::getenv("HOME") ? std::getenv("HOME") : "/root", 1);
    CHECK(core::io::settings_path() == std::string(std::getenv("HOME")) + "/.config/attnviz/settings.json");
    if (old) setenv("XDG_CONFIG_HOME", saved.c_str(), 1);
    else unsetenv("XDG_CONFIG_HOME");
}
