// core/learn/question_kinds.cpp — see question_kinds.h. The keys are documented in docs/lessons.md.
//
// [SECTION] helpers
// [SECTION] question
// [SECTION] explain and recap
#include "core/learn/question_kinds.h"

#include <algorithm>
#include <cmath>

namespace core::learn {

// [SECTION] helpers
namespace {

int key_line(const Step& s, const char* key) {
    const auto it = s.lines.find(key);
    return it != s.lines.end() ? it->second : s.line;
}

// The tables of an array of tables `[[step.KEY]]`; at least `min` of them.
std::vector<const toml::table*> tables(const toml::table& t, const char* key, size_t min, const Step& s, const LessonReader& r) {
    std::vector<const toml::table*> out;
    const toml::node* n = t.get(key);
    if (!n) {
        if (min > 0) r.fail(s.line, std::string("a ") + s.kind + " step needs [[step." + key + "]] tables");
        return out;
    }
    const toml::array* a = n->as_array();
    if (!a) r.fail(LessonReader::line(*n), std::string("\"") + key + "\" must be [[step." + key + "]] tables");
    for (const toml::node& item : *a) {
        if (!item.as_table()) r.fail(LessonReader::line(item), std::string("each ") + key + " must be a table (write [[step." + key + "]])");
        out.push_back(item.as_table());
    }
    if (out.size() < min) r.fail(LessonReader::line(*n), std::string("at least ") + std::to_string(min) + " [[step." + key + "]] are needed");
    return out;
}

void only(const toml::table& t, const std::vector<std::string>& keys, const std::string& what, const LessonReader& r) {
    for (const auto& [k, v] : t)
        if (std::find(keys.begin(), keys.end(), std::string(k.str())) == keys.end())
            r.fail(LessonReader::line(v), "unknown key \"" + std::string(k.str()) + "\" in a " + what);
}

std::optional<double> number(const toml::table& t, const char* key, const LessonReader& r) {
    const toml::node* n = t.get(key);
    if (!n) return std::nullopt;
    const std::optional<double> v = n->value<double>();
    if (!v || !std::isfinite(*v)) r.fail(LessonReader::line(*n), std::string("\"") + key + "\" must be a number");
    return v;
}

bool flag(const toml::table& t, const char* key, const LessonReader& r) { return r.boolean(t, key).value_or(false); }

} // namespace

// [SECTION] question
namespace {

void read_choices(const toml::table& t, Question& q, const Step& s, const LessonReader& r) {
    for (const toml::table* c : tables(t, "choice", 2, s, r)) {
        only(*c, {"text", "correct", "why"}, "choice", r);
        const int line = LessonReader::line(*c);
        q.choices.push_back({r.string(*c, "text", true, line), flag(*c, "correct", r), r.string(*c, "why", false, line)});
    }
    const auto right = std::count_if(q.choices.begin(), q.choices.end(), [](const QuestionChoice& c) { return c.correct; });
    q.form = flag(t, "multiple", r) ? Question::Form::multiple : Question::Form::single;
    if (right == 0) r.fail(s.line, "no choice has correct = true");
    if (right > 1 && q.form == Question::Form::single)
        r.fail(key_line(s, "choice"), std::to_string(right) + " choices are correct: add multiple = true, or keep one");
}

} // namespace

void read_question(const toml::table& t, Step& s, const LessonReader& r) {
    Question q;
    q.prompt = r.string(t, "question", true, s.line);
    q.why = r.string(t, "why", true, s.line);
    q.unit = r.string(t, "unit", false, s.line);
    const int forms = (t.contains("choice") ? 1 : 0) + (t.contains("answer") ? 1 : 0) + (t.contains("goal") ? 1 : 0);
    if (forms != 1) r.fail(s.line, "a question has exactly one of [[step.choice]], answer = NUMBER or goal = 'EXPRESSION'");
    if (t.contains("choice")) {
        read_choices(t, q, s, r);
    } else if (t.contains("answer")) {
        q.form = Question::Form::number;
        q.answer = *number(t, "answer", r);
        q.tolerance = number(t, "tolerance", r).value_or(0.0);
        if (q.tolerance < 0) r.fail(key_line(s, "tolerance"), "\"tolerance\" must be 0 or more");
    } else {
        q.form = Question::Form::act;
        q.goal = r.expression(t, "goal", true, s.line);
    }
    if (q.form != Question::Form::multiple && t.contains("multiple")) r.fail(key_line(s, "multiple"), "\"multiple\" goes with [[step.choice]]");
    if (q.form != Question::Form::number && t.contains("tolerance")) r.fail(key_line(s, "tolerance"), "\"tolerance\" goes with answer = NUMBER");
    s.question = std::move(q);
}

void check_question(const Step& s, const StepState& opening, const LessonReader& r) {
    const Question& q = *s.question;
    if (q.form != Question::Form::act) return;
    const Value v = r.evaluate(*q.goal, key_line(s, "goal"), opening, compute(opening.scenario));
    if (v.kind != Value::Kind::boolean) r.fail(key_line(s, "goal"), "goal `" + q.goal->text() + "` must be a comparison (true or false), not " + v.text());
    if (v.boolean) r.fail(key_line(s, "goal"), "goal `" + q.goal->text() + "` already holds when the step opens: there is nothing to do");
}

// [SECTION] explain and recap
void read_explain(const toml::table& t, Step& s, const LessonReader& r) {
    Explain e;
    e.prompt = r.string(t, "prompt", true, s.line);
    e.model_answer = r.string(t, "model_answer", true, s.line);
    for (const toml::table* i : tables(t, "idea", 1, s, r)) {
        only(*i, {"text", "words"}, "key idea", r);
        KeyIdea idea{r.string(*i, "text", true, LessonReader::line(*i)), r.strings(*i, "words")};
        if (idea.words.empty()) r.fail(LessonReader::line(*i), "a key idea needs words = [\"…\"] to find it in the learner's text");
        e.ideas.push_back(std::move(idea));
    }
    s.explain = std::move(e);
}

void read_recap(const toml::table& t, Step& s, const LessonReader& r) {
    Recap rc;
    for (const toml::table* l : tables(t, "line", 1, s, r)) {
        only(*l, {"text", "step"}, "recap line", r);
        const int line = LessonReader::line(*l);
        rc.lines.push_back({r.string(*l, "text", true, line), r.string(*l, "step", true, line), line});
    }
    s.recap = std::move(rc);
}

void check_nothing(const Step&, const StepState&, const LessonReader&) {}

void check_recap_links(const Lesson& lesson, const LessonReader& r) {
    for (const Step& s : lesson.steps) {
        if (!s.recap) continue;
        for (const RecapLine& l : s.recap->lines) {
            const bool found = std::any_of(lesson.steps.begin(), lesson.steps.end(), [&](const Step& o) { return o.id == l.step; });
            if (!found) r.fail(l.line, "this recap line links to step \"" + l.step + "\", which the lesson does not have");
        }
    }
}

} // namespace core::learn
