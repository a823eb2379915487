// ui/panels/learn/lesson_checks.cpp — see lesson_checks.h.
//
// [SECTION] helpers
// [SECTION] question
// [SECTION] explain it back
// [SECTION] recap
// [SECTION] entry points
#include "ui/panels/learn/lesson_checks.h"

#include "ui/panels/shared/review_cards.h"
#include "ui/widgets.h"

#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>

namespace ui {

using core::learn::Question;
using core::learn::Rating;
using core::learn::Step;

// [SECTION] helpers
namespace {

bool picked(const LessonCheck& c, int i) { return std::find(c.picked.begin(), c.picked.end(), i) != c.picked.end(); }

} // namespace

// [SECTION] question
namespace {

// The choices as radio buttons (one answer) or check boxes (several), before the check; after it,
// each with ✓ or ✗ and its own why.
void choice_list(View& v, const Question& q, LessonCheck& c) {
    for (size_t i = 0; i < q.choices.size(); ++i) {
        const int k = static_cast<int>(i);
        ImGui::PushID(k);
        const std::string& text = q.choices[i].text;
        if (!c.verdict) {
            bool on = picked(c, k);
            bool changed = q.form == Question::Form::multiple ? ImGui::Checkbox("##choice", &on) : ImGui::RadioButton("##choice", on);
            remember(v, ("question_choice_" + std::to_string(i)).c_str());
            ImGui::SameLine(); // the label wraps in a narrow panel, and a click on it picks too
            ImGui::TextWrapped("%s", text.c_str());
            remember(v, ("question_choice_text_" + std::to_string(i)).c_str());
            if (ImGui::IsItemClicked()) {
                changed = true;
                if (q.form == Question::Form::multiple) on = !on;
            }
            if (changed) {
                if (q.form == Question::Form::single) c.picked = {k};
                else if (on) c.picked.push_back(k);
                else c.picked.erase(std::find(c.picked.begin(), c.picked.end(), k));
            }
        } else {
            const bool mine = picked(c, k), right = q.choices[i].correct;
            const std::string mark = right ? "✓ " : (mine ? "✗ " : "   ");
            coloured_text(right ? good_text_colour() : (mine ? error_text_colour() : ImGui::GetStyle().Colors[ImGuiCol_Text]), mark + text + (mine ? "  (your answer)" : ""));
            if ((mine || right) && !q.choices[i].why.empty()) {
                ImGui::Indent(1.5f * em());
                dim_text(q.choices[i].why);
                ImGui::Unindent(1.5f * em());
            }
        }
        ImGui::PopID();
    }
}

void check_answer(const Question& q, LessonCheck& c, const core::Scenario& s, const core::Result& r) {
    c.problem.clear();
    switch (q.form) {
    case Question::Form::single:
    case Question::Form::multiple: c.verdict = core::learn::judge_choices(q, c.picked); break;
    case Question::Form::number:
        c.verdict = core::learn::judge_number(q, c.typed);
        if (!c.verdict) c.problem = "Type a number, such as 3 or 0.25.";
        break;
    case Question::Form::act:
        try {
            c.verdict = core::learn::judge_act(q, s, r);
        } catch (const core::learn::ExprError& e) {
            c.problem = std::string("This cannot be checked on the scenario as it is now: ") + e.what();
        }
        break;
    }
}

// After the check: filing the card, with the proposed rating highlighted and the wait under each.
void file_buttons(View& v, const core::learn::ReviewCard& card, Rating proposed, LessonCheck& c) {
    ReviewState& rs = v.state<ReviewState>();
    const core::learn::ReviewCard* existing = rs.store.deck().find(card.id);
    dim_text("Add it to Review as (your answer proposes the highlighted one):");
    const std::optional<Rating> chosen = rating_buttons(v, rs, existing ? existing->fsrs : core::learn::FsrsCard{}, proposed, "question_file_");
    if (!chosen) return;
    const std::string wait = file_review(rs, card, *chosen);
    c.filed = true;
    v.state<LessonChecksView>().pending.reset();
    v.tell(std::string("In Review as ") + rating_label(*chosen) + ": back in " + wait, false);
}

void draw_question(View& v, const core::learn::Lesson& lesson, const Step& step, LessonCheck& c, const core::Scenario& s,
                   const core::Result& r) {
    const Question& q = *step.question;
    ImGui::Spacing();
    ImGui::TextWrapped("%s", q.prompt.c_str());
    ImGui::Spacing();
    if (q.form == Question::Form::single || q.form == Question::Form::multiple) choice_list(v, q, c);
    if (q.form == Question::Form::number) {
        ImGui::SetNextItemWidth(8.0f * em());
        if (c.verdict) ImGui::BeginDisabled();
        ImGui::InputText("##number", &c.typed);
        if (c.verdict) ImGui::EndDisabled();
        remember(v, "question_number");
        if (!q.unit.empty()) {
            ImGui::SameLine();
            ImGui::TextUnformatted(q.unit.c_str());
        }
    }
    if (q.form == Question::Form::act && !c.verdict) dim_text("Answer in the panels, then press Check.");
    if (!c.verdict) {
        const bool ready = q.form == Question::Form::act || (q.form == Question::Form::number ? !c.typed.empty() : !c.picked.empty());
        ImGui::BeginDisabled(!ready);
        if (ImGui::Button("Check")) check_answer(q, c, s, r);
        ImGui::EndDisabled();
        remember(v, "question_check");
        if (!c.problem.empty()) error_text(c.problem);
        return;
    }
    ImGui::Separator();
    coloured_text(c.verdict->correct ? good_text_colour() : error_text_colour(), c.verdict->correct ? "Right." : "Not quite.");
    if (q.form == Question::Form::number && !c.verdict->correct) ImGui::TextWrapped("You: %s · answer: %s", c.verdict->your_answer.c_str(), c.verdict->correct_answer.c_str());
    if (q.form == Question::Form::act && !c.verdict->correct) ImGui::TextWrapped("Not reached yet: %s", c.verdict->correct_answer.c_str());
    ImGui::TextWrapped("%s", q.why.c_str());
    ImGui::Spacing();
    const core::learn::ReviewCard card = core::learn::question_card(lesson.id, step.id, q);
    const Rating proposed = core::learn::proposed_rating(c.verdict->correct);
    if (c.filed) {
        dim_text("Added to Review. It comes back when you are about to forget it.");
        return;
    }
    LessonChecksView& lv = v.state<LessonChecksView>();
    lv.pending = card; // filed with `proposed` if the learner moves on without choosing
    lv.pending_rating = proposed;
    lv.pending_frame = ImGui::GetFrameCount();
    file_buttons(v, card, proposed, c);
}

} // namespace

// [SECTION] explain it back
namespace {

void draw_explain(View& v, const core::learn::Lesson& lesson, const Step& step, LessonCheck& c) {
    const core::learn::Explain& e = *step.explain;
    const std::string id = lesson.id + "/" + step.id;
    ImGui::Spacing();
    ImGui::TextWrapped("%s", e.prompt.c_str());
    if (c.ticked.size() != e.ideas.size()) c.ticked.assign(e.ideas.size(), false);
    ImGui::InputTextMultiline("##explain", &c.text, ImVec2(-FLT_MIN, 7.0f * ImGui::GetTextLineHeightWithSpacing()));
    remember(v, "explain_text");
    ImGui::BeginDisabled(c.text.find_first_not_of(" \n\t") == std::string::npos);
    if (ImGui::Button(c.checked ? "Save this version" : "Check")) {
        ReviewState& rs = v.state<ReviewState>();
        const std::vector<bool> found = core::learn::ideas_found(e, c.text);
        for (size_t i = 0; i < found.size(); ++i) c.ticked[i] = c.ticked[i] || found[i];
        rs.store.explained({id, rs.now(), c.text, c.ticked});
        c.checked = true;
    }
    ImGui::EndDisabled();
    remember(v, "explain_check");
    if (!c.checked) return;
    ImGui::Separator();
    ImGui::TextUnformatted("A model answer");
    ImGui::TextWrapped("%s", e.model_answer.c_str());
    ImGui::Spacing();
    ImGui::TextUnformatted("Key ideas: ticked where your words name them; tick the ones you meant.");
    const std::vector<bool> found = core::learn::ideas_found(e, c.text);
    for (size_t i = 0; i < e.ideas.size(); ++i) {
        bool on = c.ticked[i] || found[i];
        ImGui::PushID(static_cast<int>(i));
        ImGui::BeginDisabled(found[i]);
        if (ImGui::Checkbox(e.ideas[i].text.c_str(), &on)) c.ticked[i] = on;
        ImGui::EndDisabled();
        remember(v, ("explain_idea_" + std::to_string(i)).c_str());
        if (found[i]) {
            ImGui::SameLine();
            dim_text("(in your words)");
        }
        ImGui::PopID();
    }
    const auto past = v.state<ReviewState>().store.deck().explanations_of(id);
    if (past.size() > 1 && ImGui::TreeNode("Your earlier answers")) {
        for (auto it = past.rbegin() + 1; it != past.rend(); ++it) {
            const int ideas = static_cast<int>(std::count((*it)->ideas.begin(), (*it)->ideas.end(), true));
            dim_text(local_time_text((*it)->time) + " · " + std::to_string(ideas) + " of " + std::to_string(e.ideas.size()) + " key ideas");
            ImGui::TextWrapped("%s", (*it)->text.c_str());
        }
        ImGui::TreePop();
    }
}

} // namespace

// [SECTION] recap
namespace {

// `text` with line breaks where it would pass `width`: a button's label does not wrap by itself.
std::string wrapped(const std::string& text, float width) {
    ImFont* font = ImGui::GetFont();
    const float scale = ImGui::GetFontSize() / font->FontSize;
    std::string out;
    const char* at = text.c_str();
    const char* const end = at + text.size();
    while (at < end) {
        const char* cut = font->CalcWordWrapPositionA(scale, at, end, std::max(width, em()));
        if (cut == at) { // one character wider than the line: keep it whole
            unsigned int c = 0;
            cut = at + ImTextCharFromUtf8(&c, at, end);
        }
        out.append(at, cut);
        at = cut;
        while (at < end && *at == ' ') ++at;
        if (at < end) out += '\n';
    }
    return out;
}

int draw_recap(View& v, const core::learn::Lesson& lesson, const Step& step) {
    int go = -1;
    ImGui::Spacing();
    for (size_t i = 0; i < step.recap->lines.size(); ++i) {
        const core::learn::RecapLine& line = step.recap->lines[i];
        const auto target = std::find_if(lesson.steps.begin(), lesson.steps.end(), [&](const Step& s) { return s.id == line.step; });
        ImGui::PushID(static_cast<int>(i));
        ImGui::Bullet();
        ImGui::SameLine();
        ImGui::TextWrapped("%s", line.text.c_str());
        if (target != lesson.steps.end()) {
            ImGui::Indent(1.5f * em());
            const float width = ImGui::GetContentRegionAvail().x - 2.0f * ImGui::GetStyle().FramePadding.x;
            if (ImGui::SmallButton(wrapped("→ " + target->title, width).c_str())) go = static_cast<int>(target - lesson.steps.begin());
            remember(v, ("recap_link_" + std::to_string(i)).c_str());
            ImGui::Unindent(1.5f * em());
        }
        ImGui::PopID();
    }
    return go;
}

} // namespace

// [SECTION] entry points
int draw_lesson_check(View& v, const core::learn::Lesson& lesson, const Step& step, const core::Scenario& s, const core::Result& r) {
    LessonCheck& c = v.state<LessonChecksView>().steps[lesson.id + "/" + step.id];
    if (step.question) draw_question(v, lesson, step, c, s, r);
    else if (step.explain) draw_explain(v, lesson, step, c);
    else if (step.recap) return draw_recap(v, lesson, step);
    return -1;
}

bool lesson_check_finished(View& v, const core::learn::Lesson& lesson, const Step& step) {
    const auto& steps = v.state<LessonChecksView>().steps;
    const auto it = steps.find(lesson.id + "/" + step.id);
    if (it == steps.end()) return false;
    return (step.question && it->second.verdict) || (step.explain && it->second.checked);
}

void settle_pending_answer(View& v) {
    LessonChecksView& lv = v.state<LessonChecksView>();
    if (!lv.pending || ImGui::GetFrameCount() - lv.pending_frame < 2) return;
    file_review(v.state<ReviewState>(), *lv.pending, lv.pending_rating);
    for (auto& [id, c] : lv.steps)
        if (id == lv.pending->id) c.filed = true;
    lv.pending.reset();
}

} // namespace ui
