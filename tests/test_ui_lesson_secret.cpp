// While a prediction is open and not committed, no panel shows the numbers that decide it: every
// predict step of every built-in lesson is opened headless with the panels that show weights, and
// their text on screen is searched for the deciding row's numbers, before and after committing.
#include "headless.h"
#include "state_home.h"

#include "core/explain.h"
#include "core/learn/lesson_load.h"
#include "ui/panel_table.h"
#include "ui/panels/learn/lesson.h"

#include <set>

using headless::Ui;

namespace {

const char* const panels[] = {"matrices", "heatmap", "calculation", "query_arrow", "heads", "decode"};

core::learn::Session& secret_session(Ui& ui) { return *ui.st().view.state<ui::LessonView>().session; }

// A step that runs a model (the circuit lesson's) grows the Lesson panel when its run ends: the
// choices are clicked only after that, where they will stay.
void wait_for_lesson_runs(Ui& ui) {
    ui::LessonView& lv = ui.st().view.state<ui::LessonView>();
    ui.frame();
    lv.model_heads.job.wait_idle();
    lv.circuit.job.wait_idle();
    ui.frames(2);
}

// The text of every panel above, side by side (the Lesson panel's own reveal is not among them).
std::string panels_text(Ui& ui) {
    std::string out;
    for (const char* id : panels) out += ui.screen_text(ui::find_panel(id)->title) + "\n";
    return out;
}

// Every number the deciding rows show (scores, scaled scores, A and Z of those rows, all heads),
// less those that other rows or Q, K, V and X show too: what must not be on screen.
std::set<std::string> deciding_numbers(Ui& ui, const core::learn::Secret& secret) {
    const core::Scenario& s = ui.scenario();
    const core::Result& r = ui.app().result();
    std::set<std::string> hidden, shown;
    for (const core::HeadResult& hr : r.heads)
        for (const core::Matrix* m : {&hr.scores, &hr.scaled, &hr.weights, &hr.output, &hr.Q, &hr.K, &hr.V}) {
            // The delta rule's M and Z come from the normalised q and k, not from the scores: those decide nothing.
            const bool by_scores = m == &hr.scores || m == &hr.scaled;
            const bool derived = m != &hr.Q && m != &hr.K && m != &hr.V && !(by_scores && s.rule == core::AttentionRule::delta);
            for (Eigen::Index i = 0; i < m->rows(); ++i)
                for (Eigen::Index j = 0; j < m->cols(); ++j) {
                    if (!std::isfinite((*m)(i, j))) continue;
                    const bool secret_row = derived && secret.hides("A", static_cast<int>(i));
                    (secret_row ? hidden : shown).insert(core::format_number((*m)(i, j)));
                }
        }
    for (Eigen::Index k = 0; k < s.X.size(); ++k) shown.insert(core::format_number(s.X.data()[k]));
    std::set<std::string> out;
    for (const std::string& x : hidden) { // unless found inside a number shown: "0.557" in "-0.557", "6" in "1.6"
        const bool inside = std::any_of(shown.begin(), shown.end(), [&](const std::string& y) { return y.find(x) != std::string::npos; });
        if (!inside && x.size() >= 4) out.insert(x);
    }
    return out;
}

void check_step(const core::learn::Lesson& lesson, int k) {
    StateHome home;
    Ui ui;
    ui.frame();
    std::string error;
    REQUIRE(ui::start_lesson(ui.st().view, lesson.id, k + 1, error));
    ui.frames(3);
    headless::open_panels(ui, {"matrices", "heatmap", "calculation", "query_arrow", "heads", "decode"});
    wait_for_lesson_runs(ui);
    const core::learn::Step& step = secret_session(ui).step();
    INFO(lesson.id << " step " << k + 1 << " " << step.id);
    REQUIRE(step.predict);
    REQUIRE_FALSE(secret_session(ui).committed());
    const core::learn::Secret secret = secret_session(ui).secret(ui.scenario(), ui.app().result());
    REQUIRE_FALSE(secret.empty());
    const std::set<std::string> deciding = deciding_numbers(ui, secret);
    if (!secret.places.empty()) REQUIRE_FALSE(deciding.empty());

    std::string before = panels_text(ui);
    for (const std::string& x : deciding)
        for (const char* id : panels) CHECK_MESSAGE(ui.screen_text(ui::find_panel(id)->title).find(x) == std::string::npos, x << " is on screen in " << std::string(id));
    if (!secret.places.empty()) CHECK(ui.shows(ui::reveal_hint, ui::find_panel("heatmap")->title));
    if (secret.decoder) CHECK(before.find("onenewrowperstep") == std::string::npos);
    // The Heads panel, which the step opens, keeps d_k back (the shapes of Q and K still show it).
    const std::string d_k = "d_k=" + std::to_string(ui.scenario().d_k());
    if (secret.hides_name("d_k")) CHECK_FALSE(ui.shows(d_k, "Heads"));

    ui.click(ui.item("lesson_choice_0")); // commit: the numbers come back
    ui.frames(2);
    REQUIRE(secret_session(ui).committed());
    const std::string after = panels_text(ui);
    for (const std::string& x : deciding) CHECK_MESSAGE(after.find(x) != std::string::npos, x << " is not back on screen");
    CHECK(after.find(ui::reveal_hint) == std::string::npos);
    if (secret.decoder) CHECK(after.find("onenewrowperstep") != std::string::npos);
    if (secret.hides_name("d_k")) CHECK(ui.shows(d_k, "Heads"));
}

} // namespace

TEST_CASE("lesson secret: an open prediction's deciding numbers are off every panel until it is committed") {
    int checked = 0;
    for (const core::learn::Lesson& lesson : core::learn::builtin_lessons())
        for (size_t k = 0; k < lesson.steps.size(); ++k)
            if (lesson.steps[k].predict) {
                check_step(lesson, static_cast<int>(k));
                ++checked;
            }
    CHECK(checked == 24); // 3 + 4 + 5 + 4 + 4 + 4 predictions (the Train panel and the circuit maps keep the last two lessons' back:
                          // see test_ui_lesson_heads.cpp and test_ui_lesson_circuit.cpp)
}
