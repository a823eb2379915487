// core/learn/lesson.cpp — applying a step's actions, and the states a lesson opens its steps on.
#include "core/learn/lesson.h"

#include "core/explain.h"
#include "core/presets.h"

#include <algorithm>

namespace core::learn {

const std::vector<std::string>& panel_ids() {
    static const std::vector<std::string> ids = {"controls", "tokens", "weights", "matrices", "heatmap", "calculation",
                                                 "query_arrow", "heads", "decode", "scaling", "order", "lesson"};
    return ids;
}

const std::vector<NamedPreset>& named_presets() {
    static const std::vector<NamedPreset> list = {
        {"worked_example", preset_three_tokens},
        {"numpy_example", preset_numpy_random},
        {"it_sentence", preset_it_sentence},
        {"eight_heads", preset_eight_heads},
    };
    return list;
}

int Lesson::count(const std::string& kind) const {
    return static_cast<int>(std::count_if(steps.begin(), steps.end(), [&](const Step& s) { return s.kind == kind; }));
}

std::string at_line(const std::string& file, int line, const std::string& what) {
    return file + ":" + std::to_string(line) + ": " + what;
}

namespace {

void apply_pin(const Actions& a, StepState& st, std::vector<std::string>& problems) {
    Scenario& s = st.scenario;
    if (a.pin == Actions::Pin::release) s.pin.reset();
    if (a.pin != Actions::Pin::pin) return;
    const int row = a.pin_row.empty() ? st.selected_row : find_row(s, a.pin_row);
    if (row < 0) {
        problems.push_back("no token \"" + a.pin_row + "\" to pin");
        return;
    }
    Vector q;
    if (a.q) {
        if (static_cast<int>(a.q->size()) != s.d_k()) {
            problems.push_back("q has " + std::to_string(a.q->size()) + " numbers, d_k is " + std::to_string(s.d_k()));
            return;
        }
        q = Eigen::Map<const Vector>(a.q->data(), static_cast<Eigen::Index>(a.q->size()));
    } else {
        q = compute(s).heads[static_cast<size_t>(st.selected_head)].Q.row(row).transpose(); // (d_k), positions included
    }
    s.pin = QueryPin{st.selected_head, row, q};
    st.selected_row = row;
}

} // namespace

std::vector<std::string> apply(const Actions& a, StepState& st) {
    std::vector<std::string> problems;
    if (a.load) {
        st.scenario = *a.load;
        st.selected_row = st.selected_head = 0;
    }
    Scenario& s = st.scenario;
    if (a.causal) s.causal = *a.causal;
    if (a.scale) s.scale = *a.scale;
    if (a.head) {
        if (*a.head >= 1 && *a.head <= static_cast<int>(s.heads.size())) st.selected_head = *a.head - 1;
        else problems.push_back("no head " + std::to_string(*a.head));
    }
    if (!a.select.empty()) {
        const int row = find_row(s, a.select);
        if (row >= 0) st.selected_row = row;
        else problems.push_back("no token \"" + a.select + "\" to select");
    }
    apply_pin(a, st, problems);
    st.open_panels = a.open;
    st.highlights.clear();
    if (!a.highlight.empty()) {
        const Result r = compute(s);
        for (const Expr& e : a.highlight) {
            try {
                st.highlights.push_back(e.place(s, r));
            } catch (const ExprError& err) {
                problems.push_back("highlight " + e.text() + ": " + err.what());
            }
        }
    }
    st.selected_row = std::clamp(st.selected_row, 0, s.n() - 1);
    st.selected_head = std::clamp(st.selected_head, 0, static_cast<int>(s.heads.size()) - 1);
    return problems;
}

StepState opening_state(const Lesson& lesson, int k) {
    StepState st;
    st.scenario = lesson.start;
    for (int i = 0; i <= k && i < static_cast<int>(lesson.steps.size()); ++i) apply(lesson.steps[static_cast<size_t>(i)].actions, st);
    return st;
}

} // namespace core::learn
