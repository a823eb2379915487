// The Lesson panel's question, explain and recap steps, drawn headless in a window of their own and
// clicked like a learner: every question of every built-in lesson answered right and wrong, the
// feedback on screen, the card filed with the rating chosen, the explanation saved with its ideas.
#include "state_home.h"
#include "headless.h"
#include "core/learn/lesson_load.h"
#include "ui/panels/learn/lesson_checks.h"
#include "ui/panels/learn/review.h"
#include "tests/review_now.h"

#include <cstdlib>
#include <unistd.h>

using namespace core::learn;

namespace {



// One step of a lesson drawn by draw_lesson_check in a window of its own, on the ImGui context and
// View of a headless App (whose own panels are not drawn here).
struct Checks {
    headless::Ui ui;
    const Lesson& lesson;
    int index;
    core::Scenario scenario;
    core::Result result;
    int go = -1; // the step a recap link asked for, the last time one did
    float width = 1000; // the window's
    Checks(const Lesson& l, int k) : lesson(l), index(k), scenario(opening_state(l, k).scenario), result(core::compute(scenario)) {
        view().state<ui::ReviewState>().now_for_tests = kNow;
    }
    ui::View& view() { return ui.st().view; }
    void frame() {
        ImGui::NewFrame();
        ImGui::SetNextWindowPos(ImVec2(0, 0));
        ImGui::SetNextWindowSize(ImVec2(width, 980));
        ImGui::Begin("Checks");
        const int asked = ui::draw_lesson_check(view(), lesson, lesson.steps[static_cast<size_t>(index)], scenario, result);
        if (asked >= 0) go = asked;
        ImGui::End();
        ui::settle_pending_answer(view());
        ImGui::Render();
    }
    void click(const std::string& item) {
        const ImRect& r = view().items.at(item);
        ImGuiIO& io = ImGui::GetIO();
        io.MousePos = ImVec2(r.Min.x + std::min(r.GetWidth() * 0.5f, ImGui::GetFrameHeight() * 0.5f), r.GetCenter().y);
        frame();
        io.MouseDown[0] = true;
        frame();
        io.MouseDown[0] = false;
        frame();
        frame();
    }
    void type(const std::string& item, const std::string& text) {
        click(item);
        for (char ch : text) {
            ImGui::GetIO().AddInputCharacter(static_cast<unsigned>(ch));
            frame();
        }
    }
    bool shows(const std::string& text) const { return ui.shows(text, "Checks"); }
    const ReviewStore& store() { return view().state<ui::ReviewState>().store; }
};

std::string squeeze(std::string s) { // what shows() compares: no spaces, no line breaks
    s.erase(std::remove_if(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\n'; }), s.end());
    return s;
}

// Answers question step k right (or wrong) through the panel and checks what it says.
void answer(const Lesson& lesson, int k, bool right) {
    Checks c(lesson, k);
    const Question& q = *lesson.steps[static_cast<size_t>(k)].question;
    c.frame();
    c.frame();
    const std::string id = lesson.id + "/" + lesson.steps[static_cast<size_t>(k)].id;
    CAPTURE(id);
    CAPTURE(right);
    switch (q.form) {
    case Question::Form::single:
    case Question::Form::multiple:
        for (size_t i = 0; i < q.choices.size(); ++i) {
            const bool pick = right ? q.choices[i].correct : (!q.choices[i].correct && i == static_cast<size_t>(std::find_if(q.choices.begin(), q.choices.end(), [](const QuestionChoice& ch) { return !ch.correct; }) - q.choices.begin()));
            if (pick) c.click("question_choice_" + std::to_string(i));
        }
        break;
    case Question::Form::number: {
        char typed[32];
        std::snprintf(typed, sizeof typed, "%g", right ? q.answer : q.answer + q.tolerance + 2);
        c.type("question_number", typed);
        break;
    }
    case Question::Form::act: // answered right by dragging and clicking in the real panels: test_ui_lessons.cpp
        REQUIRE_FALSE(right);
        break;
    }
    c.click("question_check");
    CHECK(c.shows(right ? "Right." : "Notquite."));
    CHECK(c.shows(squeeze(q.why).substr(0, 60)));
    for (const QuestionChoice& ch : q.choices)
        if (ch.correct || !right) CHECK(c.shows(squeeze(ch.text))); // each shown with its mark
    if (q.form == Question::Form::single || q.form == Question::Form::multiple) {
        // The why of the learner's wrong pick is on screen.
        const auto wrong = std::find_if(q.choices.begin(), q.choices.end(), [](const QuestionChoice& ch) { return !ch.correct; });
        if (!right) CHECK(c.shows(squeeze(wrong->why).substr(0, 40)));
    }
    // The proposed rating is the one filed when the learner moves on; here they pick Hard instead.
    const ReviewCard* before = c.store().deck().find(id); // answered once already in this deck?
    const FsrsCard expected = c.store().scheduler().review(before ? before->fsrs : FsrsCard{}, Rating::Hard, kNow);
    c.click("question_file_hard");
    const ReviewCard* card = c.store().deck().find(id);
    REQUIRE(card != nullptr);
    CHECK(card->fsrs == expected);
    CHECK(card->log.back().rating == Rating::Hard);
    CHECK(c.shows("AddedtoReview."));
}

} // namespace

TEST_CASE("ui lesson checks: every question of every lesson, right and wrong, with its feedback — each becomes a card") {
    StateHome home;
    for (const Lesson& lesson : builtin_lessons())
        for (size_t k = 0; k < lesson.steps.size(); ++k)
            if (lesson.steps[k].question) {
                if (lesson.steps[k].question->form != Question::Form::act) answer(lesson, static_cast<int>(k), true);
                answer(lesson, static_cast<int>(k), false);
            }
    const LoadedDeck deck = load_review_deck(home.dir + "/attnviz/review.json");
    CHECK(deck.deck.cards().size() >= 16);
}

TEST_CASE("ui lesson checks: in a narrow panel each choice wraps inside it, and a click on its words picks it") {
    StateHome home;
    for (const Lesson& lesson : builtin_lessons())
        for (size_t k = 0; k < lesson.steps.size(); ++k) {
            const auto& q = lesson.steps[k].question;
            if (!q || (q->form != Question::Form::single && q->form != Question::Form::multiple)) continue;
            CAPTURE(lesson.steps[k].id);
            Checks c(lesson, static_cast<int>(k));
            c.frame();
            c.width = 22 * ImGui::GetFontSize(); // a Lesson panel at 1280 × 720 is about 24 em wide
            c.frame();
            c.frame();
            const float right = c.width - ImGui::GetStyle().WindowPadding.x + 1;
            for (size_t i = 0; i < q->choices.size(); ++i) CHECK(c.view().items.at("question_choice_text_" + std::to_string(i)).Max.x <= right);
            const int pick = static_cast<int>(std::find_if(q->choices.begin(), q->choices.end(), [](const QuestionChoice& ch) { return ch.correct; }) - q->choices.begin());
            c.click("question_choice_text_" + std::to_string(pick));
            c.click("question_check");
            CHECK(c.shows(q->form == Question::Form::single ? "Right." : "(youranswer)"));
        }
}

TEST_CASE("ui lesson checks: an answer left without a rating is filed with the proposed one") {
    StateHome home;
    const std::vector<Lesson> lessons = builtin_lessons();
    const Lesson& lesson = *std::find_if(lessons.begin(), lessons.end(), [](const Lesson& l) { return l.id == "every-token"; });
    const int k = static_cast<int>(std::find_if(lesson.steps.begin(), lesson.steps.end(), [](const Step& s) { return s.id == "check-cache"; }) - lesson.steps.begin());
    Checks c(lesson, k);
    c.frame();
    c.type("question_number", "101");
    c.click("question_check");
    CHECK(c.shows("You:101·answer:1"));
    CHECK(c.store().deck().find("every-token/check-cache") == nullptr); // not yet filed
    // The learner moves on: this step is no longer drawn.
    c.index = 0;
    c.frame();
    c.frame();
    const ReviewCard* card = c.store().deck().find("every-token/check-cache");
    REQUIRE(card != nullptr);
    CHECK(card->log.back().rating == Rating::Again); // wrong proposes Again
    CHECK(card->fsrs.due == kNow + 60);
}

TEST_CASE("ui lesson checks: explain it back saves the answer with its date, ticks found ideas, lists past answers") {
    StateHome home;
    const std::vector<Lesson> lessons = builtin_lessons();
    const Lesson& lesson = *std::find_if(lessons.begin(), lessons.end(), [](const Lesson& l) { return l.id == "every-token"; });
    const int k = static_cast<int>(std::find_if(lesson.steps.begin(), lesson.steps.end(), [](const Step& s) { return s.explain.has_value(); }) - lesson.steps.begin());
    {
        Checks c(lesson, k);
        c.frame();
        c.type("explain_text", "The query of it is compared with each key.");
        c.click("explain_check");
        CHECK(c.shows("Amodelanswer"));
        CHECK(c.shows("(inyourwords)"));
        c.click("explain_idea_2"); // the learner ticks one they meant
        const auto saved = c.store().deck().explanations_of("every-token/explain");
        REQUIRE(saved.size() == 1);
        CHECK(saved[0]->time == kNow);
        CHECK(saved[0]->text == "The query of it is compared with each key.");
        CHECK(saved[0]->ideas == std::vector<bool>{true, false, false, false});
        CHECK(c.view().state<ui::LessonChecksView>().steps["every-token/explain"].ticked == std::vector<bool>{true, false, true, false});
    }
    Checks later(lesson, k); // after a restart, a second answer; the first is listed
    later.view().state<ui::ReviewState>().now_for_tests = kNow + 3 * 86400;
    later.frame();
    later.type("explain_text", "Weights add up to 1 and blend the values.");
    later.click("explain_check");
    CHECK(later.store().deck().explanations_of("every-token/explain").size() == 2);
    CHECK(later.shows("Yourearlieranswers"));
}

TEST_CASE("ui lesson checks: a recap line's link opens the step that taught it") {
    const std::vector<Lesson> lessons = builtin_lessons();
    for (const Lesson& lesson : lessons) {
        const int k = static_cast<int>(std::find_if(lesson.steps.begin(), lesson.steps.end(), [](const Step& s) { return s.recap.has_value(); }) - lesson.steps.begin());
        Checks c(lesson, k);
        c.frame();
        const RecapLine& first = lesson.steps[static_cast<size_t>(k)].recap->lines[0];
        CHECK(c.shows(squeeze(first.text).substr(0, 30)));
        const auto target = std::find_if(lesson.steps.begin(), lesson.steps.end(), [&](const Step& s) { return s.id == first.step; });
        CAPTURE(lesson.id);
        CHECK(c.shows(squeeze("→ " + target->title)));
        CHECK(c.go == -1);
        c.click("recap_link_0");
        CHECK(c.go == static_cast<int>(target - lesson.steps.begin()));
    }
}
