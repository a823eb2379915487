// The restore notice: start-up brought back the autosaved session; keep it or start over.
#include "headless.h"

TEST_CASE("restore notice: start from the worked example, and undo brings the session back") {
    headless::Ui ui(core::preset_it_sentence());
    ui.app().notify_restored("attnviz restored the scenario you had open last time (/x/session.json).", true);
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
    headless::Ui ui(core::preset_it_sentence());
    ui.app().notify_restored("attnviz restored the scenario you had open last time (/x/session.json).", true);
    ui.frames(3);
    ui.click(ui.item("restore_keep"));
    ui.frames(2);
    CHECK(ui.scenario() == core::preset_it_sentence());
    CHECK_FALSE(ui.shows("attnviz restored"));
}

TEST_CASE("restore notice: a session that could not be read is explained, with one button") {
    headless::Ui ui;
    ui.app().notify_restored("Your last session could not be restored, so this is the worked example.\n\nsession.json: invalid JSON", false);
    ui.frames(3);
    CHECK(ui.shows("session.json: invalid JSON"));
    CHECK(ui.st().view.items.count("restore_default") == 0);
    ui.click(ui.item("restore_ok"));
    ui.frames(2);
    CHECK_FALSE(ui.shows("session.json: invalid JSON"));
    CHECK(ui.scenario() == core::preset_three_tokens());
}
