// core/learn/lesson.h — a lesson: a list of steps, each with text, actions and an optional kind.
//
// Lessons are TOML files (docs/lessons.md has the schema); core/learn/lesson_load.h reads them.
// Nothing here stores an answer: predictions and challenges are expressions (core/learn/expr.h)
// evaluated on the live scenario.
#pragma once

#include "core/learn/expr.h"
#include "core/learn/markdown.h"
#include "core/learn/question.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace core::learn {

// A problem in a lesson file; what() is "FILE:LINE: what is wrong".
struct LessonError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// The panels a step may open, by id (the UI's panel table has a row for each).
const std::vector<std::string>& panel_ids();

// The scenarios a lesson may start from by name ("worked_example", "it_sentence", …).
struct NamedPreset {
    const char* id;
    Scenario (*make)();
};
const std::vector<NamedPreset>& named_presets();

// What a step does when it opens. Every field is optional; they apply in this order.
struct Actions {
    std::shared_ptr<const Scenario> load;    // preset = "…" or file = "…" (read when the lesson loads; shared, not copied)
    std::optional<bool> causal, scale;
    std::optional<AttentionRule> rule;       // rule = "softmax" | "linear" | "delta"
    std::optional<double> beta, decay;       // the delta rule's, from 0 to 1
    std::optional<int> window;               // the sliding window, 0 = off
    std::optional<int> head;                 // 1-based
    std::string select;                      // a token or 1-based row; "" keeps the selection
    enum class Pin { keep, pin, release };
    Pin pin = Pin::keep;
    std::string pin_row;                     // pin = "it": that row; "" = the selected row
    std::optional<std::vector<double>> q;    // the pinned query's value (d_k numbers)
    std::vector<std::string> open;           // panel ids
    std::vector<Expr> highlight;             // places: A, A["it"], A["it", "cat"], Q@2[3]
    bool train = false;                      // train = true: the Train panel trains its repeat run
    std::string model, model_text;           // model = "DIR" (a model directory), model_text: the text
                                             // its heads are shown on, to pick one (see docs/lessons.md)
    struct Patch {
        std::string corrupt;                 // the corrupted prompt; model_text is the clean one
        std::string answer, vs;              // one token each: the metric is their logit difference
        std::vector<std::string> show{"recovery", "attribution", "lens"}; // the views shown
        bool shows(const std::string& view) const { return std::find(show.begin(), show.end(), view) != show.end(); }
    };
    std::optional<Patch> patch;              // patch = { … }: the model's circuit maps instead of its grid
    std::map<std::string, int> lines;        // source line of each key given, for messages
};

// What a step opens on: the scenario and the view choices its actions made.
struct StepState {
    Scenario scenario;
    int selected_row = 0;  // 0-based
    int selected_head = 0; // 0-based
    std::vector<std::string> open_panels;   // asked for by this step
    std::vector<MatrixPlace> highlights;    // this step's
    bool train = false;                     // this step asks the Train panel to train its run
};

// Applies `a` on top of `state`, through the table of actions (core/learn/actions.h). A piece that
// cannot apply (the learner renamed the token it selects, …) is skipped and described in the
// returned list; the rest still applies.
std::vector<std::string> apply(const Actions& a, StepState& state);

// kind = "predict": a question whose answer the learner commits before the reveal.
struct Predict {
    std::string question;
    Expr answer;                    // evaluated on the live scenario when the learner commits
    std::vector<Value> choices;     // empty: click a token (the answer must be a token)
    std::string why;                // one sentence shown with the reveal
    std::optional<Expr> numbers;    // the live numbers shown beside the reveal (default: what `answer` reads)
};

// kind = "challenge": a goal over the live Result, done when it holds for hold_seconds.
struct Challenge {
    static constexpr double hold_seconds = 0.5;
    static constexpr double first_hint_seconds = 30.0;
    Expr goal;                                 // a comparison: true or false
    std::optional<Expr> show;                  // the live value shown as progress (default: the goal's left side)
    std::vector<std::string> hints;            // in order; after the last, "show me"
    std::optional<std::vector<double>> solution; // a pinned query that meets the goal ("show me" animates to it)
};

struct Step {
    std::string id;
    std::string title;
    std::string kind;           // "" (read), "predict", "challenge", …
    std::string text;           // Markdown as written
    std::vector<Block> blocks;  // parsed
    int line = 0;               // where its [[step]] starts
    std::map<std::string, int> lines; // source line of each key, for messages
    Actions actions;
    std::optional<Predict> predict;
    std::optional<Challenge> challenge;
    std::optional<Question> question; // kind = "question" (core/learn/question.h)
    std::optional<Explain> explain;   // kind = "explain"
    std::optional<Recap> recap;       // kind = "recap"
};

struct Lesson {
    std::string id;       // the file name without .toml unless the file says otherwise
    std::string title;
    std::string summary;
    int order = 100;      // built-in lessons are listed by order, then title
    std::string path;     // the file it was read from
    Scenario start;       // before step 1: preset = / file = at the top, else the worked example
    std::vector<Step> steps;

    int count(const std::string& kind) const;
};

// The state step `k` (0-based) opens on when the lesson is followed from its start without edits:
// with the panels every step up to it opened, and the Train panel's run asked for if a step up to it
// asked (a lesson resumed at a later step needs what the earlier ones set up).
StepState opening_state(const Lesson& lesson, int k);

// "FILE:LINE: what".
std::string at_line(const std::string& file, int line, const std::string& what);

} // namespace core::learn
