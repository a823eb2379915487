// core/learn/step_kinds.cpp — the kinds a step may have: how each is read and checked.
//
// [SECTION] predict
// [SECTION] challenge
// [SECTION] The table
#include "core/learn/step_kinds.h"

#include "core/learn/question_kinds.h"

#include <algorithm>
#include <cmath>

namespace core::learn {

namespace {

int line_of(const Step& s, const char* key) {
    const auto it = s.lines.find(key);
    return it != s.lines.end() ? it->second : s.line;
}

//-----------------------------------------------------------------------------
// [SECTION] predict
//-----------------------------------------------------------------------------

void read_predict(const toml::table& t, Step& s, const LessonReader& r) {
    Predict p;
    p.question = r.string(t, "question", true, s.line);
    p.answer = *r.expression(t, "answer", true, s.line);
    p.why = r.string(t, "why", true, s.line);
    p.numbers = r.expression(t, "numbers", false, s.line);
    if (p.numbers && !p.numbers->is_place()) r.fail(line_of(s, "numbers"), "numbers `" + p.numbers->text() + "` must name a row, a column or a cell, like A[\"it\"]");
    if (const toml::node* c = t.get("choices")) {
        const toml::array* a = c->as_array();
        if (!a || a->size() < 2) r.fail(LessonReader::line(*c), "\"choices\" must list at least two answers");
        for (const toml::node& item : *a) {
            if (item.is_string()) p.choices.push_back(Value::of_token(item.value<std::string>().value_or("")));
            else if (item.is_number()) p.choices.push_back(Value::of(item.value<double>().value_or(0.0)));
            else r.fail(LessonReader::line(item), "each choice must be a token (a string) or a number");
        }
    }
    s.predict = std::move(p);
}

void check_predict(const Step& s, const StepState& opening, const LessonReader& r) {
    const Predict& p = *s.predict;
    const Result res = compute(opening.scenario);
    const Value answer = r.evaluate(p.answer, line_of(s, "answer"), opening, res);
    if (answer.kind == Value::Kind::boolean) r.fail(line_of(s, "answer"), "answer `" + p.answer.text() + "` is true or false; a prediction's answer is a token or a number");
    if (p.choices.empty() && answer.kind != Value::Kind::token)
        r.fail(line_of(s, "answer"), "answer `" + p.answer.text() + "` is a number: give \"choices\" (without them the learner clicks a token)");
    for (const Value& c : p.choices) {
        if (c.kind != answer.kind)
            r.fail(line_of(s, "choices"), "choice " + c.text() + " is a " + (c.kind == Value::Kind::token ? "token" : "number") + " but the answer is " + answer.text());
        if (c.kind == Value::Kind::token && std::find(opening.scenario.tokens.begin(), opening.scenario.tokens.end(), c.token) == opening.scenario.tokens.end())
            r.fail(line_of(s, "choices"), "choice \"" + c.token + "\" is not a token of the scenario");
    }
    if (answer.kind == Value::Kind::token && !p.choices.empty() && std::find(p.choices.begin(), p.choices.end(), answer) == p.choices.end())
        r.fail(line_of(s, "choices"), "the answer on this step's scenario is \"" + answer.token + "\", which is not among the choices");
    if (p.numbers) {
        try {
            p.numbers->place(opening.scenario, res);
        } catch (const ExprError& e) {
            r.fail_expr(line_of(s, "numbers"), *p.numbers, e);
        }
    }
}

//-----------------------------------------------------------------------------
// [SECTION] challenge
//-----------------------------------------------------------------------------

void read_challenge(const toml::table& t, Step& s, const LessonReader& r) {
    Challenge c;
    c.goal = *r.expression(t, "goal", true, s.line);
    c.show = r.expression(t, "show", false, s.line);
    c.hints = r.strings(t, "hints");
    if (const toml::node* n = t.get("solution")) {
        const toml::array* a = n->as_array();
        if (!a || a->empty()) r.fail(LessonReader::line(*n), "\"solution\" must be the pinned query that meets the goal, like [0.5, 2]");
        std::vector<double> q;
        for (const toml::node& item : *a) {
            const std::optional<double> v = item.value<double>();
            if (!v || !std::isfinite(*v) || std::abs(*v) > Limits::max_abs_value) r.fail(LessonReader::line(item), "each entry of \"solution\" must be a finite number");
            q.push_back(*v);
        }
        c.solution = std::move(q);
    }
    s.challenge = std::move(c);
}

void check_solution(const Step& s, const StepState& opening, const LessonReader& r) {
    const Challenge& c = *s.challenge;
    const int at = line_of(s, "solution");
    if (!opening.scenario.pin) r.fail(at, "a solution moves the pinned query: pin one in this step's actions (pin = \"TOKEN\")");
    if (static_cast<int>(c.solution->size()) != opening.scenario.d_k())
        r.fail(at, "the solution has " + std::to_string(c.solution->size()) + " numbers; the query has d_k = " + std::to_string(opening.scenario.d_k()));
    StepState solved = opening;
    solved.scenario.pin->q = Eigen::Map<const Vector>(c.solution->data(), static_cast<Eigen::Index>(c.solution->size()));
    const Value met = r.evaluate(c.goal, line_of(s, "goal"), solved, compute(solved.scenario));
    if (!met.boolean) r.fail(at, "the solution does not meet the goal `" + c.goal.text() + "`");
}

void check_challenge(const Step& s, const StepState& opening, const LessonReader& r) {
    const Challenge& c = *s.challenge;
    const Result res = compute(opening.scenario);
    const Value goal = r.evaluate(c.goal, line_of(s, "goal"), opening, res);
    if (goal.kind != Value::Kind::boolean) r.fail(line_of(s, "goal"), "goal `" + c.goal.text() + "` must be a comparison (true or false), not " + goal.text());
    if (goal.boolean && !c.goal.reads_facts())
        r.fail(line_of(s, "goal"), "goal `" + c.goal.text() + "` already holds when the step opens: there is nothing to do");
    if (c.show) {
        const Value shown = r.evaluate(*c.show, line_of(s, "show"), opening, res);
        if (shown.kind == Value::Kind::boolean) r.fail(line_of(s, "show"), "show `" + c.show->text() + "` must be a number or a token");
    }
    if (c.solution) check_solution(s, opening, r);
}

} // namespace

//-----------------------------------------------------------------------------
// [SECTION] The table
//-----------------------------------------------------------------------------

const std::vector<StepKind>& step_kinds() {
    static const std::vector<StepKind> kinds = {
        {"predict", {"question", "answer", "choices", "why", "numbers"}, read_predict, check_predict},
        {"challenge", {"goal", "show", "hints", "solution"}, read_challenge, check_challenge},
        {"question", {"question", "choice", "multiple", "answer", "tolerance", "unit", "goal", "why"}, read_question, check_question},
        {"explain", {"prompt", "model_answer", "idea"}, read_explain, check_nothing},
        {"recap", {"line"}, read_recap, check_nothing},
    };
    return kinds;
}

} // namespace core::learn
