// Check yourself, explain it back and recap in the built-in lessons: every question answered right
// and wrong, with its feedback; the key ideas found in the model answers; the recap links; every
// number the sixth lesson's text states, against the Result its step opens on.
#include "core/attention.h"
#include "core/learn/lesson_load.h"
#include "core/learn/question.h"
#include "core/presets.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
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
    REQUIRE(lessons.size() == 6);
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

namespace {

// The sixth lesson's step `id`, and the scenario and Result it opens on.
struct Opened {
    const Step* step = nullptr;
    core::Scenario s;
    core::Result r;
    std::string words; // everything the step says: text, question, why, hints, choices
};

Opened opened(const Lesson& l, const std::string& id) {
    for (size_t k = 0; k < l.steps.size(); ++k) {
        const Step& step = l.steps[k];
        if (step.id != id) continue;
        Opened o{&step, opening_state(l, static_cast<int>(k)).scenario, {}, step.text};
        o.r = core::compute(o.s);
        if (step.predict) o.words += step.predict->question + step.predict->why;
        if (step.challenge)
            for (const std::string& h : step.challenge->hints) o.words += h;
        if (step.question) o.words += step.question->prompt + step.question->why;
        return o;
    }
    FAIL("no step " << id);
    return {};
}

// `x` as the lesson writes it: 3 decimals (`decimals` 2 for the larger sums), a true minus sign.
std::string written(double x, int decimals = 3) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, x);
    std::string s = buf;
    return s[0] == '-' ? "−" + s.substr(1) : s;
}

void says(const Opened& o, double x, int decimals = 3) {
    CAPTURE(o.step->id);
    CAPTURE(x);
    CHECK(o.words.find(written(x, decimals)) != std::string::npos);
}

} // namespace

TEST_CASE("lesson checks: beyond softmax — every number its text states, from the Result its step opens on") {
    const Lesson l = find_lesson("beyond-softmax");
    const int sat = 2, the = 0, cat = 1;

    const Opened window = opened(l, "window");
    CHECK(window.s.window == 2);
    CHECK(window.r.heads[0].weights(sat, the) == 0.0);
    says(window, window.r.heads[0].weights(cat, the));
    CHECK(window.r.heads[0].weights(cat, cat) == doctest::Approx(0.5));

    const Opened pw = opened(l, "predict-window");
    core::Scenario no_window = pw.s;
    no_window.window = 0;
    says(pw, core::compute(no_window).heads[0].weights(sat, cat));
    const double e_cat = std::exp(pw.r.heads[0].scaled(sat, cat)), e_sat = std::exp(pw.r.heads[0].scaled(sat, sat));
    says(pw, pw.r.heads[0].scaled(sat, cat));
    says(pw, pw.r.heads[0].scaled(sat, sat));
    says(pw, e_cat, 2);
    says(pw, e_cat + e_sat, 2);
    says(pw, pw.r.heads[0].weights(sat, cat));

    // A sink logit as large as the score of sat on itself.
    const Opened sink = opened(l, "sink");
    CHECK(sink.s.window == 0);
    const core::HeadResult& h = sink.r.heads[0];
    const double logit = h.scaled(sat, sat), e_sink = std::exp(logit);
    double sum = 0;
    for (int j = 0; j < 3; ++j) sum += std::exp(h.scaled(sat, j));
    says(sink, logit);
    says(sink, e_sink, 2);
    says(sink, sum, 2);
    says(sink, sum + e_sink, 2);
    const double share = e_sink / (sum + e_sink);
    says(sink, share);
    for (int j = 0; j < 3; ++j) says(sink, h.weights(sat, j) * (1 - share));
    says(sink, 1 - share);

    const Opened linear = opened(l, "predict-linear");
    CHECK(linear.s.rule == core::AttentionRule::linear);
    for (int j = 0; j < 3; ++j) says(linear, linear.r.heads[0].weights(sat, j));
    says(linear, linear.r.heads[0].weights.row(sat).sum());

    const Opened state = opened(l, "state");
    const core::Matrix S = core::state_at(state.s, state.r, 0, sat); // (2, 2)
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) says(state, S(i, j));
    says(state, state.r.heads[0].output(sat, 0));
    says(state, state.r.heads[0].output(sat, 1));
    CHECK(state.words.find("(2, 2) S_sat") != std::string::npos);
    CHECK(state.r.heads[0].Q.row(sat) == core::rows({{2, 2}}));

    const Opened erase = opened(l, "predict-erase");
    CHECK(erase.s.rule == core::AttentionRule::delta);
    const core::HeadResult& d = erase.r.heads[0];
    says(erase, d.k_hat(sat, 0));
    says(erase, d.k_hat(sat, 1));
    const core::Matrix w = core::delta_columns(erase.s, d, sat); // (2, 3)
    says(erase, w(0, the));
    says(erase, w(1, the));
    says(erase, d.weights(sat, the));
    CHECK(d.q_hat.row(sat).isApprox(core::rows({{0.5, 0.5}}), 1e-6));
    CHECK(d.k_hat.row(the).isApprox(core::rows({{1, 0}}), 1e-6));

    // The hint's formula β (1 − 1.2 β) / 2, and its bound 0.83.
    const Opened beta = opened(l, "try-beta");
    for (double b : {0.2, 0.5, 0.83, 0.84, 1.0}) {
        core::Scenario s = beta.s;
        s.beta = b;
        const double m = core::compute(s).heads[0].weights(sat, the);
        CHECK(m == doctest::Approx(b * (1 - 1.2 * b) / 2).epsilon(1e-5));
        CHECK((m > 0) == (b <= 0.83));
    }

    const Opened decay = opened(l, "predict-decay");
    CHECK(decay.s.decay == 0.5);
    core::Scenario no_decay = decay.s;
    no_decay.decay = 1;
    CHECK(decay.words.find("(−0.1)") != std::string::npos);
    CHECK(core::compute(no_decay).heads[0].weights(sat, the) == doctest::Approx(-0.1).epsilon(1e-5));
    says(decay, decay.r.heads[0].weights(sat, the));

    // The questions: a sink logit of 0 beside three scores of 0; a window of 4 at the 100th token.
    CHECK(opened(l, "check-sink").step->question->answer == doctest::Approx(1.0 / (1 + 3)));
    core::Scenario hundred = core::numpy_random_qkv(1, 100, 2);
    hundred.causal = true;
    hundred.window = 4;
    const core::KeyRange keys = core::visible_keys(hundred, 99);
    CHECK(keys.hi - keys.lo == opened(l, "check-window").step->question->answer);
}
