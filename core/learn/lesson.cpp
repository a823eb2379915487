// core/learn/lesson.cpp — the panels and presets a lesson may name, and the states a lesson opens
// its steps on (the actions themselves are in core/learn/actions.cpp).
#include "core/learn/lesson.h"

#include "core/explain.h"
#include "core/presets.h"

#include <algorithm>

namespace core::learn {

const std::vector<std::string>& panel_ids() {
    static const std::vector<std::string> ids = {"controls", "tokens", "weights", "matrices", "heatmap", "calculation",
                                                 "query_arrow", "state", "heads", "decode", "scaling", "order", "lesson", "train"};
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

StepState opening_state(const Lesson& lesson, int k) {
    StepState st;
    st.scenario = lesson.start;
    std::vector<std::string> opened;
    bool train = false;
    for (int i = 0; i <= k && i < static_cast<int>(lesson.steps.size()); ++i) {
        apply(lesson.steps[static_cast<size_t>(i)].actions, st);
        for (const std::string& id : st.open_panels)
            if (std::find(opened.begin(), opened.end(), id) == opened.end()) opened.push_back(id);
        train = train || st.train;
    }
    st.open_panels = std::move(opened);
    st.train = train;
    return st;
}

} // namespace core::learn
