// core/learn/session.h — following one lesson: which step is open, what it opened on, predictions
// committed, challenges held, hints shown. No ImGui: the Lesson panel draws it, the tests drive it.
//
// Going forward applies the next step's actions on top of the live scenario (the learner's edits
// stay). Going back, or to any step seen before, restores the state that step opened on; a step
// not seen yet in this run opens on the state the lesson reaches from its start.
#pragma once

#include "core/learn/lesson.h"
#include "core/learn/progress.h"

#include <algorithm>
#include <optional>

namespace core::learn {

struct ChallengeStatus {
    bool holds = false;        // the goal holds this frame
    double held = 0.0;         // seconds it has held without a break
    double elapsed = 0.0;      // seconds on this step
    int hints_shown = 0;
    std::optional<Value> left;  // the live value of the goal's left side ("cat" for argmax(A["it"]) == "ate")
    std::optional<Value> shown; // the live value of `show`, when the step has one
    std::string error;         // the goal cannot be evaluated on the live scenario (a token renamed, …)
    bool awaiting = false;     // … because a fact is not measured yet: `error` says how to measure it
};

// What an open prediction keeps off the screen until the learner commits it: the rows its answer
// (and its `numbers`) read, and the decoder's counts for a question about the KV cache.
struct Secret {
    std::vector<MatrixPlace> places; // rows (row -1: every row) of the matrices read
    bool decoder = false;
    std::vector<std::string> names;  // d_k, heads, … (a panel that prints one hides it)
    bool empty() const { return places.empty() && !decoder && names.empty(); }
    bool hides_name(const std::string& name) const { return std::find(names.begin(), names.end(), name) != names.end(); }
    // Whether `row` of `matrix` (X Q K V scores scaled A Z; -1: any row) shows a deciding number.
    // The scores, the scaled scores, A and Z of a row decide one another, so one hides them all.
    bool hides(const std::string& matrix, int row) const;
};

class Session {
public:
    // `progress` (owned by a ProgressStore) must outlive the session.
    Session(Lesson lesson, LessonProgress& progress);

    const Lesson& lesson() const { return lesson_; }
    int index() const { return index_; }
    int size() const { return static_cast<int>(lesson_.steps.size()); }
    const Step& step() const { return lesson_.steps[static_cast<size_t>(index_)]; }
    const LessonProgress& progress() const { return progress_; }

    // Opens step k; returns the state to show, and in `problems` what of its actions could not apply.
    StepState go(int k, const StepState& live, std::vector<std::string>* problems = nullptr);
    // Opens step k with no live state to go on from (a lesson started or resumed at k): the state
    // the lesson reaches from its start.
    StepState open(int k);
    // What the panels measured beyond the scenario in this frame (the Train panel's tiny model), read by
    // answers and goals that name a fact.
    void set_facts(Facts facts) { facts_ = std::move(facts); }
    const Facts& facts() const { return facts_; }

    // A prediction locks "next" until it is committed.
    bool can_next() const;
    bool is_done(int k) const;
    // The open step is done: a question answered, an explanation checked (the panel judges those).
    void complete() { mark_done(step().id); }

    // predict: the learner's answer, judged against the answer on the live scenario. Once only.
    bool committed() const;
    const PredictionRecord* prediction() const;
    PredictionRecord commit(const Value& choice, const Scenario& s, const Result& r);
    int predictions_made() const;
    int predictions_total() const { return lesson_.count("predict"); }
    // The answer on the live scenario now, and the numbers that decide it.
    std::optional<Value> live_answer(const Scenario& s, const Result& r) const;
    std::optional<Labelled> live_numbers(const Scenario& s, const Result& r) const;
    // Empty unless a prediction is open and not yet committed.
    Secret secret(const Scenario& s, const Result& r) const;

    // challenge: call once per frame with the frame's duration. Returns the pinned query to set
    // while "show me" animates it (the caller applies it as an edit).
    std::optional<QueryPin> tick(double dt, const Scenario& s, const Result& r);
    const ChallengeStatus& status() const { return status_; }
    void request_hint();
    bool can_show_me() const;
    void show_me(const Scenario& s);
    bool showing() const { return animation_.has_value(); }

    static constexpr double show_me_seconds = 1.2;

private:
    void mark_done(const std::string& id) { progress_.done.insert(id); }
    void enter(int k); // step k is the open one

    struct Animation {
        QueryPin from;
        Vector to;  // (d_k)
        double t = 0.0;
    };

    Lesson lesson_;
    LessonProgress& progress_;
    int index_ = 0;
    std::map<int, StepState> opened_; // the state each step opened on in this run
    ChallengeStatus status_;
    std::optional<Animation> animation_;
    Facts facts_;
};

// The numbers that decide a prediction: its `numbers` place, else the row its answer reads.
// Throws ExprError when they cannot be found on `s`.
std::optional<Labelled> decisive_numbers(const Predict& p, const Scenario& s, const Result& r);

// The correct answer of each predict step and the goal of each challenge, evaluated on the state
// the step opens on when the lesson is followed from its start, as JSON (what --answers prints).
// A step's patch runs its model here for its facts; the other facts are the window's (null).
std::string answers_json(const Lesson& lesson);
// [{"id": …, "title": …, "steps": N}, …] (what --lessons prints).
std::string lessons_json(const std::vector<Lesson>& lessons);

} // namespace core::learn
