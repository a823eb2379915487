// tests/state_home.h — XDG_STATE_HOME pointed at a fresh folder for a test's life, so that the
// review and progress files a test writes never touch the user's own.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <unistd.h>

struct StateHome {
    std::string dir;
    std::string old;
    bool had_old = false;
    explicit StateHome(const char* pattern = "/tmp/attnviz-state-XXXXXX") : dir(pattern) {
        REQUIRE(::mkdtemp(dir.data()) != nullptr);
        if (const char* o = std::getenv("XDG_STATE_HOME")) old = o, had_old = true;
        ::setenv("XDG_STATE_HOME", dir.c_str(), 1);
    }
    ~StateHome() {
        if (had_old) ::setenv("XDG_STATE_HOME", old.c_str(), 1);
        else ::unsetenv("XDG_STATE_HOME");
        CHECK(std::system(("rm -rf '" + dir + "'").c_str()) == 0);
    }
    StateHome(const StateHome&) = delete;
    StateHome& operator=(const StateHome&) = delete;
    std::string review_path() const { return dir + "/attnviz/review.json"; }
};
