// Where attnviz keeps a user's files and looks for their models: one home for all of them
// (core/io/user_dirs.h), with HOME set, with XDG folders (relative ones ignored), and with HOME unset.
#include "app/window/autosave.h"
#include "core/io/file_browser.h"
#include "core/io/settings.h"
#include "core/io/user_dirs.h"
#include "core/learn/progress.h"
#include "core/learn/review_deck.h"
#include "core/model/format/checkpoint.h"
#include "core/model/format/ollama.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <map>
#include <optional>
#include <pwd.h>
#include <string>
#include <unistd.h>

namespace {

// Sets (or, with nullptr, unsets) environment variables for its lifetime.
class Environment {
public:
    explicit Environment(const std::map<std::string, const char*>& values) {
        for (const auto& [name, value] : values) {
            const char* old = std::getenv(name.c_str());
            saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
            if (value) ::setenv(name.c_str(), value, 1);
            else ::unsetenv(name.c_str());
        }
    }
    ~Environment() {
        for (const auto& [name, value] : saved_) {
            if (value) ::setenv(name.c_str(), value->c_str(), 1);
            else ::unsetenv(name.c_str());
        }
    }

private:
    std::map<std::string, std::optional<std::string>> saved_;
};

// Every file attnviz keeps and every store under the home, as the program asks for them.
std::map<std::string, std::string> every_place() {
    return {{"settings", core::io::settings_path()},
            {"progress", core::learn::default_progress_path()},
            {"review", core::learn::default_review_path()},
            {"session", app::default_session_path()},
            {"ollama", core::model::ollama_store_dir()},
            {"hub", core::model::hub_cache_dir()},
            {"typed ~", core::io::resolve_typed_path("~/notes", "/elsewhere")}};
}

std::map<std::string, std::string> under(const std::string& home) {
    return {{"settings", home + "/.config/attnviz/settings.json"},
            {"progress", home + "/.local/state/attnviz/progress.json"},
            {"review", home + "/.local/state/attnviz/review.json"},
            {"session", home + "/.local/state/attnviz/session.json"},
            {"ollama", home + "/.ollama/models"},
            {"hub", home + "/.cache/huggingface/hub"},
            {"typed ~", home + "/notes"}};
}

const std::map<std::string, const char*> no_overrides = {
    {"XDG_CONFIG_HOME", nullptr}, {"XDG_STATE_HOME", nullptr}, {"OLLAMA_MODELS", nullptr}, {"HF_HUB_CACHE", nullptr}, {"HF_HOME", nullptr}};

} // namespace

TEST_CASE("user folders: every file attnviz keeps and every store under the home share one home") {
    Environment clean(no_overrides);
    {
        Environment home({{"HOME", "/h/ada"}});
        CHECK(every_place() == under("/h/ada"));
    }
    {
        Environment xdg({{"HOME", "/h/ada"}, {"XDG_CONFIG_HOME", "/cfg"}, {"XDG_STATE_HOME", "/state"}});
        CHECK(core::io::settings_path() == "/cfg/attnviz/settings.json");
        CHECK(core::learn::default_progress_path() == "/state/attnviz/progress.json");
        CHECK(app::default_session_path() == "/state/attnviz/session.json");
    }
    {
        Environment relative({{"HOME", "/h/ada"}, {"XDG_CONFIG_HOME", "cfg"}, {"XDG_STATE_HOME", "state"}}); // ignored, as the spec says
        CHECK(every_place() == under("/h/ada"));
    }
}

TEST_CASE("user folders: with HOME unset or empty, the password database's home, for every place alike") {
    const passwd* entry = ::getpwuid(::getuid());
    const std::string expected = entry && entry->pw_dir && *entry->pw_dir ? entry->pw_dir : "/tmp/attnviz-" + std::to_string(::getuid());
    Environment clean(no_overrides);
    for (const char* home : {static_cast<const char*>(nullptr), ""}) {
        Environment unset({{"HOME", home}});
        CHECK(core::io::home_dir() == expected);
        CHECK(every_place() == under(expected));
    }
}
