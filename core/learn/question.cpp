// core/learn/question.cpp — judging answers to check-yourself questions, finding key ideas in an
// explanation, and the review card a question becomes.
#include "core/learn/question.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace core::learn {

// [SECTION] judging
namespace {

std::string number_text(double x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", x);
    return buf;
}

std::string quoted(const std::string& s) { return "“" + s + "”"; }

std::string join_choices(const Question& q, const std::vector<int>& which) {
    std::string out;
    for (int i : which) out += (out.empty() ? "" : ", ") + quoted(q.choices[static_cast<size_t>(i)].text);
    return out.empty() ? "nothing" : out;
}

} // namespace

Verdict judge_choices(const Question& q, const std::vector<int>& picked) {
    Verdict v;
    std::vector<int> right;
    for (size_t i = 0; i < q.choices.size(); ++i)
        if (q.choices[i].correct) right.push_back(static_cast<int>(i));
    std::vector<int> mine = picked;
    std::sort(mine.begin(), mine.end());
    mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
    v.correct = mine == right;
    v.correct_answer = join_choices(q, right);
    v.your_answer = join_choices(q, mine);
    return v;
}

std::optional<Verdict> judge_number(const Question& q, const std::string& typed) {
    const char* begin = typed.c_str();
    char* end = nullptr;
    const double x = std::strtod(begin, &end);
    while (end && std::isspace(static_cast<unsigned char>(*end))) ++end;
    if (end == begin || !end || *end != '\0' || !std::isfinite(x)) return std::nullopt;
    Verdict v;
    v.correct = std::abs(x - q.answer) <= q.tolerance + 1e-12 * std::abs(q.answer);
    v.correct_answer = number_text(q.answer) + (q.tolerance > 0 ? " (± " + number_text(q.tolerance) + ")" : "");
    v.your_answer = number_text(x);
    return v;
}

Verdict judge_act(const Question& q, const Scenario& s, const Result& r) {
    const Value met = q.goal->evaluate(s, r);
    Verdict v;
    v.correct = met.kind == Value::Kind::boolean && met.boolean;
    v.correct_answer = "`" + q.goal->text() + "`";
    if (const auto left = q.goal->left_value(s, r)) v.your_answer = left->text();
    return v;
}

ReviewCard question_card(const std::string& lesson_id, const std::string& step_id, const Question& q) {
    ReviewCard c;
    c.id = lesson_id + "/" + step_id;
    c.front = q.prompt;
    std::string answer;
    switch (q.form) {
    case Question::Form::single:
    case Question::Form::multiple:
        for (const QuestionChoice& ch : q.choices) {
            c.choices.push_back({ch.text, ch.correct});
            if (ch.correct) answer += (answer.empty() ? "" : "; ") + ch.text;
        }
        break;
    case Question::Form::number:
        answer = number_text(q.answer) + (q.unit.empty() ? "" : " " + q.unit);
        break;
    case Question::Form::act:
        c.front += "\n(Do it in the panels, then reveal.)";
        answer = "Reached when " + q.goal->text() + ".";
        break;
    }
    c.back = answer + (q.why.empty() ? "" : "\n" + q.why);
    return c;
}

// [SECTION] key ideas
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return s;
}

bool is_word_char(char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; }

// `phrase` occurs in `text` starting at a word start.
bool has_word(const std::string& text, const std::string& phrase) {
    if (phrase.empty()) return false;
    for (size_t at = text.find(phrase); at != std::string::npos; at = text.find(phrase, at + 1))
        if (at == 0 || !is_word_char(text[at - 1]) || !is_word_char(phrase[0])) return true;
    return false;
}

std::string trim(const std::string& s) {
    const size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

} // namespace

bool idea_found(const KeyIdea& idea, const std::string& text) {
    const std::string t = lower(text);
    for (const std::string& group : idea.words) {
        bool any = false;
        size_t start = 0;
        while (!any && start <= group.size()) {
            const size_t bar = std::min(group.find('|', start), group.size());
            any = has_word(t, lower(trim(group.substr(start, bar - start))));
            start = bar + 1;
        }
        if (!any) return false;
    }
    return !idea.words.empty();
}

std::vector<bool> ideas_found(const Explain& e, const std::string& text) {
    std::vector<bool> out;
    for (const KeyIdea& idea : e.ideas) out.push_back(idea_found(idea, text));
    return out;
}

} // namespace core::learn
