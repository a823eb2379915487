// The restore notice: start-up brought back the autosaved session; keep it or start over.
#include "headless.h"

#include "app/window/autosave.h"
#include "core/io/scenario_io.h"

#include <cstdio>
#include <fstream>
#include <unistd.h>

namespace {

// What choose_start says for a session file holding `text` (nullptr: no file).
app::Start start_from(const char* text) {
    const std::string path = "/tmp/attnviz_test_restore_" + std::to_string(getpid()) + ".json";
    std::remove(path.c_str());
    std::remove((path + ".bad").c_str());
    if (text) std::ofstream(path) << text;
    app::Autosave autosave(path);
    app::Start start = app::choose_start(autosave, core::preset_three_tokens());
    std::remove(path.c_str());
    std::remove((path + ".bad").c_str());
    return start;
}

} // namespace

TEST_CASE("choose_start: the saved session with a notice, the worked example and the reason, or nothing to say") {
    const app::Start saved = start_from(core::io::to_json_text(core::preset_it_sentence()).c_str());
    CHECK(saved.scenario == core::preset_it_sentence());
    CHECK(saved.offer_default);
    CHECK(saved.notice.find("attnviz restored the scenario you had open last time") == 0);
    const app::Start broken = start_from("{ not json");
    CHECK(broken.scenario == core::preset_three_tokens());
    CHECK_FALSE(broken.offer_default);
    CHECK(broken.notice.find("Your last session could not be restored, so this is the worked example.") == 0);
    CHECK(broken.notice.size() > 80); // and why
    const app::Start none = start_from(nullptr);
    CHECK(none.scenario == core::preset_three_tokens());
    CHECK(none.notice.empty());
}

TEST_CASE("restore notice: start from the worked example, and undo brings the session back") {
    const app::Start start = start_from(core::io::to_json_text(core::preset_it_sentence()).c_str());
    headless::Ui ui(start.scenario);
    ui.app().notify_restored(start.notice, start.offer_default);
    ui.frames(3);
    CHECK(ui.shows("attnviz restored the scenario you had open last time"));
    ui.click(ui.item("restore_default"));
    ui.frames(2);
    CHECK(ui.scenario() == core::preset_three_tokens());
    CHECK_FALSE(ui.shows("attnviz restored"));
    ui.key('Z', true);
    CHECK(ui.scenario() == core::preset_it_sentence());
}

TEST_CASE("restore notice: continue keeps the restored session") {
    const app::Start start = start_from(core::io::to_json_text(core::preset_it_sentence()).c_str());
    headless::Ui ui(start.scenario);
    ui.app().notify_restored(start.notice, start.offer_default);
    ui.frames(3);
    ui.click(ui.item("restore_keep"));
    ui.frames(2);
    CHECK(ui.scenario() == core::preset_it_sentence());
    CHECK_FALSE(ui.shows("attnviz restored"));
}

TEST_CASE("restore notice: a session that could not be read is explained, with one button") {
    const app::Start start = start_from("{ not json");
    headless::Ui ui(start.scenario);
    ui.app().notify_restored(start.notice, start.offer_default);
    ui.frames(3);
    CHECK(ui.shows("Your last session could not be restored"));
    CHECK(ui.st().view.items.count("restore_default") == 0);
    ui.click(ui.item("restore_ok"));
    ui.frames(2);
    CHECK_FALSE(ui.shows("Your last session could not be restored"));
    CHECK(ui.scenario() == core::preset_three_tokens());
}
