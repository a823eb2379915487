// Check yourself, explain it back and recap in the built-in lessons: every question answered right
// and wrong, with its feedback; the key ideas found in the model answers; the recap links.
#include "core/learn/lesson_load.h"
#include "core/learn/question.h"

#include <doctest/doctest.h>

#include <functional>
#include <map>

using namespace core::learn;

namespace {

// How a learner does each act-in-the-app question right, as an edit of the scenario.
const std::map<std::string, std::function<void(core::Scenario&)>>& act_solutions() {
    static const std::map<std::string, std::function<void(core::Scenario&)>> m = {
        {"every-token/check-steer", [](core::Scenario& s) { s.pin->q = core::Vector::Map(std::vector<double>{-0.4, 1.8}.data(), 2); }},
        {"worked-example/check-mask", [](core::Scenario& s) { s.causal = true; }},
        {"step-by-step/check-unscaled", [](core::Scenario& s) { s.scale = core::ScoreScale::none; }},
    };
    return m;
}

// The first wrong choice, or -1.
int first_wrong(const Question& q) {
    for (size_t i = 0; i < q.choices.size(); ++i)
        if (!q.choices[i].correct) return static_cast<int>(i);
    return -1;
}

} // namespace

TEST_CASE("lesson checks: every question of every built-in lesson, answered right and wrong") {
    const std::vector<Lesson> lessons = builtin_lessons();
    REQUIRE(lessons.size() == 5);
    int questions = 0;
    for (const Lesson& lesson : lessons) {
        int in_lesson = 0;
        for (size_t k = 0; k < lesson.steps.size(); ++k) {
            const Step& step = lesson.steps[k];
            if (!step.question) continue;
            ++in_lesson;
            const Question& q = *step.question;
            const std::string id = lesson.id + "/" + step.id;
            CAPTURE(id);
            CHECK_FALSE(q.why.empty());
            const ReviewCard card = question_card(lesson.id, step.id, q);
            CHECK(card.id == id);
            CHECK(card.back.find(q.why) != std::string::npos); // the card carries the why
            switch (q.form) {
            case Question::Form::single:
            case Question::Form::multiple: {
                std::vector<int> right;
                for (size_t i = 0; i < q.choices.size(); ++i) {
                    CHECK_FALSE(q.choices[i].why.empty()); // every choice explains itself
                    if (q.choices[i].correct) right.push_back(static_cast<int>(i));
                }
                const Verdict good = judge_choices(q, right);
                CHECK(good.correct);
                const Verdict bad = judge_choices(q, {first_wrong(q)});
                CHECK_FALSE(bad.correct);
                CHECK(bad.correct_answer == good.your_answer);
                CHECK(choices_correct(card, right));
                CHECK_FALSE(choices_correct(card, {first_wrong(q)}));
                if (q.form == Question::Form::multiple) CHECK_FALSE(judge_choices(q, {right.front()}).correct); // all are needed
                break;
            }
            case Question::Form::number: {
                char typed[32];
                std::snprintf(typed, sizeof typed, "%g", q.answer);
                CHECK(judge_number(q, typed)->correct);
                std::snprintf(typed, sizeof typed, "%g", q.answer + q.tolerance + 1);
                CHECK_FALSE(judge_number(q, typed)->correct);
                CHECK_FALSE(judge_number(q, "about one"));
                break;
            }
            case Question::Form::act: {
                StepState st = opening_state(lesson, static_cast<int>(k));
                CHECK_FALSE(judge_act(q, st.scenario, core::compute(st.scenario)).correct); // nothing done yet
                REQUIRE(act_solutions().count(id) == 1);
                act_solutions().at(id)(st.scenario);
                CHECK(judge_act(q, st.scenario, core::compute(st.scenario)).correct);
                break;
            }
            }
        }
        CAPTURE(lesson.id);
        CHECK(in_lesson >= (lesson.id == "every-token" ? 6 : 4));
        CHECK(in_lesson <= 7);
        questions += in_lesson;
    }
    CHECK(questions >= 16);
}

TEST_CASE("lesson checks: the model answer names every key idea — a vague answer names none") {
    int explains = 0;
    for (const Lesson& lesson : builtin_lessons())
        for (const Step& step : lesson.steps) {
            if (!step.explain) continue;
            ++explains;
            CAPTURE(lesson.id);
            const std::vector<bool> model = ideas_found(*step.explain, step.explain->model_answer);
            CHECK(std::count(model.begin(), model.end(), true) == static_cast<long>(model.size()));
            const std::vector<bool> vague = ideas_found(*step.explain, "It is hard to say; the model just figures it out.");
            CHECK(std::count(vague.begin(), vague.end(), true) <= 1);
        }
    CHECK(explains == 3);
}

TEST_CASE("lesson checks: the soft-lookup key ideas of the third lesson, word by word") {
    Explain e;
    for (const Lesson& lesson : builtin_lessons())
        for (const Step& step : lesson.steps)
            if (lesson.id == "every-token" && step.explain) e = *step.explain;
    REQUIRE(e.ideas.size() == 4);
    CHECK(ideas_found(e, "The query of it is compared with each key.") == std::vector<bool>{true, false, false, false});
    CHECK(ideas_found(e, "Softmax makes weights that sum to 1.") == std::vector<bool>{false, true, false, false});
    CHECK(ideas_found(e, "You get a weighted average of the values.") == std::vector<bool>{false, false, true, false});
    CHECK(ideas_found(e, "It is soft: all values count instead of only one exact match.") == std::vector<bool>{false, false, false, true});
    CHECK_FALSE(idea_found(e.ideas[0], "A monkey queried nothing.")); // words by their start only
}

TEST_CASE("lesson checks: every lesson ends with a recap whose lines link back to real steps") {
    for (const Lesson& lesson : builtin_lessons()) {
        CAPTURE(lesson.id);
        const auto recap = std::find_if(lesson.steps.begin(), lesson.steps.end(), [](const Step& s) { return s.recap.has_value(); });
        REQUIRE(recap != lesson.steps.end());
        CHECK(recap->recap->lines.size() >= 4);
        for (const RecapLine& line : recap->recap->lines)
            CHECK(std::any_of(lesson.steps.begin(), recap, [&](const Step& s) { return s.id == line.step; }));
    }
}

TEST_CASE("lesson checks: bad question, explain and recap steps are reported with their line") {
    const std::string head = "title = \"T\"\npreset = \"worked_example\"\n\n[[step]]\nid = \"a\"\ntitle = \"A\"\ntext = \"x\"\n\n";
    auto error_of = [&](const std::string& body) {
        try {
            parse_lesson(head + body, "bad.toml");
        } catch (const LessonError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(error_of("[[step]]\nkind = \"question\"\ntitle = \"Q\"\nquestion = \"?\"\nwhy = \"w\"\n\n[[step.choice]]\ntext = \"x\"\ncorrect = true\n\n[[step.choice]]\ntext = \"y\"\ncorrect = true\n")
              .find("bad.toml:") == 0);
    CHECK(error_of("[[step]]\nkind = \"question\"\ntitle = \"Q\"\nquestion = \"?\"\nwhy = \"w\"\n\n[[step.choice]]\ntext = \"x\"\ncorrect = true\n\n[[step.choice]]\ntext = \"y\"\ncorrect = true\n")
              .find("2 choices are correct: add multiple = true") != std::string::npos);
    CHECK(error_of("[[step]]\nkind = \"question\"\ntitle = \"Q\"\nquestion = \"?\"\nwhy = \"w\"\nanswer = 1\ngoal = 'n > 1'\n")
              == "bad.toml:9: a question has exactly one of [[step.choice]], answer = NUMBER or goal = 'EXPRESSION'");
    CHECK(error_of("[[step]]\nkind = \"question\"\ntitle = \"Q\"\nquestion = \"?\"\nwhy = \"w\"\ngoal = 'argmax(A[\"dog\"]) == \"cat\"'\n")
              .find("bad.toml:14: in `argmax(A[\"dog\"]) == \"cat\"`: no token \"dog\"") == 0);
    CHECK(error_of("[[step]]\nkind = \"question\"\ntitle = \"Q\"\nquestion = \"?\"\nwhy = \"w\"\nanswer = \"one\"\n") == "bad.toml:14: \"answer\" must be a number");
    CHECK(error_of("[[step]]\nkind = \"recap\"\ntitle = \"R\"\n\n[[step.line]]\ntext = \"t\"\nstep = \"nowhere\"\n")
              == "bad.toml:13: this recap line links to step \"nowhere\", which the lesson does not have");
    CHECK(error_of("[[step]]\nkind = \"explain\"\ntitle = \"E\"\nprompt = \"p\"\nmodel_answer = \"m\"\n\n[[step.idea]]\ntext = \"i\"\n")
              == "bad.toml:15: a key idea needs words = [\"…\"] to find it in the learner's text");
    CHECK(error_of("[[step]]\nkind = \"explain\"\ntitle = \"E\"\nprompt = \"p\"\nmodel_answer = \"m\"\n\n[[step.idea]]\ntext = \"i\"\nwords = [\"w\"]\nweight = 2\n")
              == "bad.toml:18: unknown key \"weight\" in a key idea");
}
