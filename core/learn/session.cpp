// core/learn/session.cpp — the step engine, and the answers it gives as JSON.
//
// [SECTION] Navigation
// [SECTION] Predictions
// [SECTION] Challenges
// [SECTION] JSON for the command line
#include "core/learn/session.h"

#include "core/learn/patch_run.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace core::learn {

//-----------------------------------------------------------------------------
// [SECTION] Navigation
//-----------------------------------------------------------------------------

Session::Session(Lesson lesson, LessonProgress& progress) : lesson_(std::move(lesson)), progress_(progress) {
    index_ = std::clamp(progress_.current, 0, size() - 1);
}

StepState Session::go(int k, const StepState& live, std::vector<std::string>* problems) {
    k = std::clamp(k, 0, size() - 1);
    if (k != index_ + 1) return open(k);
    if (step().kind.empty() || step().kind == "recap") mark_done(step().id); // read to the end
    StepState state = live;
    std::vector<std::string> p = apply(lesson_.steps[static_cast<size_t>(k)].actions, state);
    if (problems) *problems = std::move(p);
    opened_[k] = state;
    enter(k);
    return state;
}

StepState Session::open(int k) {
    k = std::clamp(k, 0, size() - 1);
    auto it = opened_.find(k);
    if (it == opened_.end()) it = opened_.emplace(k, opening_state(lesson_, k)).first;
    enter(k);
    return it->second;
}

void Session::enter(int k) {
    index_ = k;
    progress_.current = k;
    status_ = ChallengeStatus{};
    animation_.reset();
}

bool Session::can_next() const { return index_ + 1 < size() && (step().kind != "predict" || committed()); }

bool Session::is_done(int k) const {
    return k >= 0 && k < size() && progress_.done.count(lesson_.steps[static_cast<size_t>(k)].id) > 0;
}

//-----------------------------------------------------------------------------
// [SECTION] Predictions
//-----------------------------------------------------------------------------

bool Session::committed() const { return prediction() != nullptr; }

const PredictionRecord* Session::prediction() const {
    const auto it = progress_.predictions.find(step().id);
    return it == progress_.predictions.end() ? nullptr : &it->second;
}

int Session::predictions_made() const {
    int made = 0;
    for (const Step& s : lesson_.steps) made += s.kind == "predict" && progress_.predictions.count(s.id) ? 1 : 0;
    return made;
}

std::optional<Value> Session::live_answer(const Scenario& s, const Result& r) const {
    if (!step().predict) return std::nullopt;
    try {
        return step().predict->answer.evaluate(s, r, &facts_);
    } catch (const ExprError&) {
        return std::nullopt;
    }
}

std::optional<Labelled> Session::live_numbers(const Scenario& s, const Result& r) const {
    if (!step().predict) return std::nullopt;
    try {
        return decisive_numbers(*step().predict, s, r);
    } catch (const ExprError&) {
        return std::nullopt;
    }
}

std::optional<Labelled> decisive_numbers(const Predict& p, const Scenario& s, const Result& r) {
    if (p.numbers) return numbers_at(p.numbers->place(s, r), s, r);
    return p.answer.evidence(s, r);
}

namespace {

// The matrices a row of which gives away the others' (scores → scaled → A → Z).
bool same_family(const std::string& a, const std::string& b) {
    auto derived = [](const std::string& m) { return m == "scores" || m == "scaled" || m == "A" || m == "Z"; };
    return a == b || (derived(a) && derived(b));
}

} // namespace

bool Secret::hides(const std::string& matrix, int row) const {
    return std::any_of(places.begin(), places.end(), [&](const MatrixPlace& p) {
        return same_family(p.matrix, matrix) && (p.row < 0 || row < 0 || p.row == row);
    });
}

Secret Session::secret(const Scenario& s, const Result& r) const {
    Secret out;
    if (!step().predict || committed()) return out;
    const Predict& p = *step().predict;
    try {
        out.places = p.answer.places_read(s, r);
        if (p.numbers) out.places.push_back(p.numbers->place(s, r));
    } catch (const ExprError&) {
        // The learner's edits removed a token the answer names: nothing it reads can be shown.
    }
    for (MatrixPlace& place : out.places) place.col = -1; // a cell stands for its row
    out.decoder = p.answer.reads_decoder();
    out.names = p.answer.names_read();
    return out;
}

PredictionRecord Session::commit(const Value& choice, const Scenario& s, const Result& r) {
    if (const PredictionRecord* done = prediction()) return *done;
    const Predict& p = *step().predict;
    const std::optional<Value> actual = live_answer(s, r);
    PredictionRecord rec{choice.text(), actual ? actual->text() : "?", false};
    if (actual && actual->kind == Value::Kind::number && !p.choices.empty()) {
        // The choice nearest to the live number is the right one (choices are rounded).
        const auto nearest = std::min_element(p.choices.begin(), p.choices.end(), [&](const Value& a, const Value& b) {
            return std::abs(a.number - actual->number) < std::abs(b.number - actual->number);
        });
        rec.correct = choice == *nearest;
    } else if (actual) {
        rec.correct = choice == *actual;
    }
    progress_.predictions[step().id] = rec;
    mark_done(step().id);
    return rec;
}

//-----------------------------------------------------------------------------
// [SECTION] Challenges
//-----------------------------------------------------------------------------

std::optional<QueryPin> Session::tick(double dt, const Scenario& s, const Result& r) {
    if (!step().challenge) return std::nullopt;
    const Challenge& c = *step().challenge;
    status_.elapsed += dt;
    status_.error.clear();
    status_.awaiting = false;
    try {
        const Value goal = c.goal.evaluate(s, r, &facts_);
        status_.holds = goal.kind == Value::Kind::boolean && goal.boolean;
        status_.left = c.goal.left_value(s, r, &facts_);
        status_.shown = c.show ? std::optional<Value>(c.show->evaluate(s, r, &facts_)) : std::nullopt;
    } catch (const ExprError& e) {
        status_.holds = false;
        status_.left.reset();
        status_.shown.reset();
        status_.error = e.what();
        status_.awaiting = e.awaiting;
    }
    status_.held = status_.holds ? status_.held + dt : 0.0;
    if (status_.held >= Challenge::hold_seconds) mark_done(step().id);
    if (status_.hints_shown == 0 && !c.hints.empty() && status_.elapsed >= Challenge::first_hint_seconds) status_.hints_shown = 1;
    if (!animation_) return std::nullopt;
    animation_->t = std::min(1.0, animation_->t + dt / show_me_seconds);
    const double e = animation_->t * animation_->t * (3.0 - 2.0 * animation_->t); // ease in and out
    QueryPin pin = animation_->from;
    pin.q = animation_->from.q + e * (animation_->to - animation_->from.q);
    if (animation_->t >= 1.0) animation_.reset();
    return pin;
}

void Session::request_hint() {
    if (step().challenge) status_.hints_shown = std::min<int>(status_.hints_shown + 1, static_cast<int>(step().challenge->hints.size()));
}

bool Session::can_show_me() const {
    return step().challenge && step().challenge->solution && status_.hints_shown >= static_cast<int>(step().challenge->hints.size());
}

void Session::show_me(const Scenario& s) {
    if (!can_show_me()) return;
    const std::vector<double>& sol = *step().challenge->solution;
    // From the pinned query, or from the query of the row the step pinned when the learner released it.
    if (!opened_.count(index_)) opened_[index_] = opening_state(lesson_, index_);
    const StepState& opened = opened_.at(index_);
    QueryPin from = s.pin ? *s.pin : opened.scenario.pin.value_or(QueryPin{0, 0, Vector::Zero(s.d_k())});
    if (from.row >= s.n() || from.head >= static_cast<int>(s.heads.size()) || from.q.size() != s.d_k()) return;
    if (!s.pin) from.q = compute(s).heads[static_cast<size_t>(from.head)].Q.row(from.row).transpose();
    if (static_cast<int>(sol.size()) != s.d_k()) return;
    animation_ = Animation{from, Eigen::Map<const Vector>(sol.data(), static_cast<Eigen::Index>(sol.size())), 0.0};
}

//-----------------------------------------------------------------------------
// [SECTION] JSON for the command line
//-----------------------------------------------------------------------------

namespace {

nlohmann::ordered_json json_value(const Value& v) {
    if (v.kind == Value::Kind::token) return v.token;
    if (v.kind == Value::Kind::boolean) return v.boolean;
    return v.number;
}

// What a step's patch measures (every fact but the picked head's), run once for each patch.
const Facts& patch_facts(const Step& step, std::map<std::string, Facts>& runs) {
    static const Facts none;
    if (!step.actions.patch) return none;
    const std::string key = patch_key(step.actions.model, step.actions.model_text, *step.actions.patch);
    if (!runs.count(key)) add_patch_facts(run_patch(step.actions.model, step.actions.model_text, *step.actions.patch), -1, runs[key]);
    return runs.at(key);
}

// The value of an expression that reads facts, or null while one of them is unknown.
nlohmann::ordered_json value_with(const Expr& e, const Scenario& s, const Result& r, const Facts& facts) {
    try {
        return json_value(e.evaluate(s, r, &facts));
    } catch (const ExprError&) {
        return nullptr;
    }
}

} // namespace

std::string answers_json(const Lesson& lesson) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    StepState st;
    st.scenario = lesson.start;
    std::map<std::string, Facts> runs;
    for (size_t k = 0; k < lesson.steps.size(); ++k) {
        const Step& step = lesson.steps[k];
        apply(step.actions, st); // the same walk as opening_state()
        if (!step.predict && !step.challenge) continue;
        const Result r = compute(st.scenario);
        nlohmann::ordered_json entry = {{"step", k + 1}, {"id", step.id}, {"kind", step.kind}};
        if (step.predict && step.predict->answer.reads_facts()) {
            entry["answer"] = value_with(step.predict->answer, st.scenario, r, patch_facts(step, runs)); // else measured in the window
        } else if (step.predict) {
            entry["answer"] = json_value(step.predict->answer.evaluate(st.scenario, r));
            if (const std::optional<Labelled> n = decisive_numbers(*step.predict, st.scenario, r)) entry["numbers"] = n->text();
        } else if (step.challenge->goal.reads_facts()) {
            entry["goal"] = step.challenge->goal.text();
            entry["holds"] = value_with(step.challenge->goal, st.scenario, r, patch_facts(step, runs));
        } else {
            entry["goal"] = step.challenge->goal.text();
            entry["holds"] = step.challenge->goal.evaluate(st.scenario, r).boolean;
            const std::optional<Value> shown = step.challenge->show ? step.challenge->show->evaluate(st.scenario, r) : step.challenge->goal.left_value(st.scenario, r);
            if (shown) entry["value"] = json_value(*shown);
        }
        out.push_back(entry);
    }
    return out.dump(2) + "\n";
}

std::string lessons_json(const std::vector<Lesson>& lessons) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const Lesson& l : lessons) out.push_back({{"id", l.id}, {"title", l.title}, {"steps", l.steps.size()}, {"file", l.path}});
    return out.dump(2) + "\n";
}

} // namespace core::learn
