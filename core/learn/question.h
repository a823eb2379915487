// core/learn/question.h — the step kinds that come back in Review: "question" (check yourself),
// "explain" (explain it back) and "recap". How they are read from a lesson file is in
// core/learn/question_kinds.cpp; the Lesson panel draws them (ui/panels/learn/lesson_checks.cpp).
#pragma once

#include "core/learn/expr.h"
#include "core/learn/review_deck.h"

#include <optional>
#include <string>
#include <vector>

namespace core::learn {

// kind = "question". Exactly one form: choices (one correct, or several with multiple = true),
// a number within a tolerance, or a goal the learner reaches by acting in the panels.
struct QuestionChoice {
    std::string text;
    bool correct = false;
    std::string why; // shown after answering, beside this choice
};

struct Question {
    enum class Form { single, multiple, number, act };
    Form form = Form::single;
    std::string prompt;
    std::vector<QuestionChoice> choices; // single, multiple
    double answer = 0, tolerance = 0;    // number
    std::string unit;                    // number: shown after the box ("rows", …)
    std::optional<Expr> goal;            // act: true once the learner has done it
    std::string why;                     // the explanation shown with the correct answer
};

// The verdict on one answer, and the lines of feedback to show.
struct Verdict {
    bool correct = false;
    std::string correct_answer; // "1", "“small”", "a negative number", …
    std::string your_answer;
};

Verdict judge_choices(const Question& q, const std::vector<int>& picked);
// `typed` is what the learner typed; a non-number is not judged (nullopt) but reported.
std::optional<Verdict> judge_number(const Question& q, const std::string& typed);
// Evaluates the goal on the live scenario. Throws ExprError when it cannot be evaluated.
Verdict judge_act(const Question& q, const Scenario& s, const Result& r);

// The review card a question becomes: its prompt, the correct answer and why, its choices.
ReviewCard question_card(const std::string& lesson_id, const std::string& step_id, const Question& q);

// kind = "explain": a prompt, a model answer, and the key ideas it should contain.
struct KeyIdea {
    std::string text;
    // Each group must appear in the learner's text; a group is alternatives separated by "|".
    // Matching ignores case and finds words by their start ("key" finds "keys", not "monkey").
    std::vector<std::string> words;
};

struct Explain {
    std::string prompt;
    std::string model_answer;
    std::vector<KeyIdea> ideas;
};

bool idea_found(const KeyIdea& idea, const std::string& text);
std::vector<bool> ideas_found(const Explain& e, const std::string& text);

// kind = "recap": what to remember, each line linked to the step that taught it.
struct RecapLine {
    std::string text;
    std::string step; // the id of a step of the same lesson
    int line = 0;     // in the lesson file
};

struct Recap {
    std::vector<RecapLine> lines;
};

} // namespace core::learn
