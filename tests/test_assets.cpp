// The shipped assets are found beside the program, never through the source tree.
#include "core/assets.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

TEST_CASE("assets: found beside the program, or where ATTNVIZ_ASSETS points") {
    const std::string dir = core::asset_dir();
    REQUIRE_FALSE(dir.empty());
    CHECK(std::filesystem::path(dir).filename() == "attnviz");
    CHECK(std::filesystem::exists(core::asset_path("screenshot.png")));

    setenv("ATTNVIZ_ASSETS", "/tmp/elsewhere", 1);
    CHECK(core::asset_path("lessons/x.toml") == "/tmp/elsewhere/lessons/x.toml");
    unsetenv("ATTNVIZ_ASSETS");
    CHECK(core::asset_dir() == dir);
}
