// ui/panels/learn/lesson.cpp — the Lesson panel and the Learn menu.
//
// [SECTION] Starting, applying and saving
// [SECTION] Text
// [SECTION] Predictions
// [SECTION] Challenges
// [SECTION] Panel and menu
// [SECTION] The overlay the other panels read
#include "ui/panels/learn/lesson.h"

#include "core/io/formats.h"
#include "core/edits.h"
#include "core/learn/lesson_load.h"
#include "ui/panels/learn/lesson_checks.h"
#include "ui/widgets.h"
#include "ui/workspace_table.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>

namespace ui {

using namespace core::learn;

namespace {

//-----------------------------------------------------------------------------
// [SECTION] Starting, applying and saving
//-----------------------------------------------------------------------------

void save(LessonView& lv, View& v) {
    if (!lv.keep_progress) return;
    const std::string problem = lv.store.save();
    if (!problem.empty()) v.tell("lesson progress: " + problem, true);
}

void load_store(LessonView& lv, View& v) {
    if (lv.store_loaded) return;
    lv.store_loaded = true;
    if (!lv.keep_progress) return;
    const std::string problem = lv.store.load();
    if (!problem.empty()) v.tell("lesson progress: " + problem, true);
}

// The state of the learner's app right now, as a step would open on it.
StepState live_state(const core::Scenario& s, const View& v) {
    StepState st;
    st.scenario = s;
    st.selected_row = v.selected_row;
    st.selected_head = v.selected_head;
    return st;
}

void go(LessonView& lv, View& v, const core::Scenario& s, int k) {
    std::vector<std::string> problems;
    lv.pending = lv.session->go(k, live_state(s, v), &problems);
    if (!problems.empty()) v.tell("this step could not apply everything to your edited scenario: " + problems.front(), true);
    save(lv, v);
}

bool runs_a_model(const Lesson& lesson) {
    return std::any_of(lesson.steps.begin(), lesson.steps.end(), [](const Step& step) { return !step.actions.model.empty(); });
}

// A lesson on a real model has no use for the toy example's panels of the Learn workspace: they
// close, but for those its step opens, and the model's heads take their place beside the text
// (model_window). A lesson on the toy example brings back those that one closed.
void place_toy_panels(LessonView& lv, View& v, const std::vector<std::string>& step_opens) {
    if (!runs_a_model(lv.session->lesson())) {
        for (const std::string& id : lv.toy_panels_hidden) v.open[id] = true;
        lv.toy_panels_hidden.clear();
        return;
    }
    for (const PanelPlace& p : workspace_table()[static_cast<std::size_t>(find_workspace("learn"))].panels) {
        const std::string id = p.panel;
        const bool named = std::find(step_opens.begin(), step_opens.end(), id) != step_opens.end();
        if (id == "lesson" || id == "train" || named || !v.open[id]) continue;
        v.open[id] = false;
        lv.toy_panels_hidden.push_back(id);
    }
}

// Carries a step's state into the App: one undoable change of the scenario, the selection, the
// panels it opens (brought to the front, unless they sit in the left column, which the Lesson
// panel fills) and its highlights.
void apply_pending(LessonView& lv, core::Scenario& s, View& v) {
    if (!lv.pending) return;
    core::edits::replace_scenario(s, lv.pending->scenario);
    v.selected_row = lv.pending->selected_row;
    v.selected_head = lv.pending->selected_head;
    place_toy_panels(lv, v, lv.pending->open_panels);
    for (const std::string& id : lv.pending->open_panels) {
        v.open[id] = true;
        v.bring_to_front.push_back(id);
    }
    v.lesson.highlights = lv.pending->highlights;
    if (lv.pending->train) v.request_training = true;
    lv.model_heads.picked = lv.circuit.picked = -1; // each step's head is picked anew
    lv.pending.reset();
}

//-----------------------------------------------------------------------------
// [SECTION] Text
//-----------------------------------------------------------------------------

// Spans laid out word by word, wrapping at the panel's edge.
void flow(const std::vector<Span>& spans, float indent) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float left = start.x + indent, right = start.x + std::max(ImGui::GetContentRegionAvail().x, 4.0f * em());
    const float line = ImGui::GetTextLineHeightWithSpacing();
    ImVec2 pen(left, start.y);
    const ImU32 plain = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 bold = selection_color();
    const ImU32 math = ImGui::ColorConvertFloat4ToU32(ImVec4(0.55f, 0.78f, 1.0f, 1.0f));
    for (const Span& sp : spans) {
        ImFont* font = sp.code ? number_font() : ImGui::GetFont();
        const ImU32 colour = sp.bold ? bold : sp.math || sp.code ? math : plain;
        for (size_t i = 0; i < sp.text.size();) {
            size_t end = sp.text.find(' ', i);
            end = end == std::string::npos ? sp.text.size() : end + 1; // a word with its space
            const char* b = sp.text.c_str() + i;
            const char* e = sp.text.c_str() + end;
            const float w = font->CalcTextSizeA(ImGui::GetFontSize(), FLT_MAX, 0.0f, b, e).x;
            const float ink = font->CalcTextSizeA(ImGui::GetFontSize(), FLT_MAX, 0.0f, b, end > i && e[-1] == ' ' ? e - 1 : e).x;
            if (pen.x + ink > right && pen.x > left) pen = ImVec2(left, pen.y + line);
            if (!(pen.x == left && *b == ' ')) {
                dl->AddText(font, ImGui::GetFontSize(), pen, colour, b, e);
                pen.x += w;
            }
            i = end;
        }
    }
    ImGui::Dummy(ImVec2(right - start.x, pen.y + line - start.y));
}

void draw_blocks(const std::vector<Block>& blocks) {
    for (const Block& b : blocks) {
        const float indent = 1.2f * em() * static_cast<float>(std::max(0, b.depth - 1));
        std::vector<Span> spans = b.spans;
        if (b.kind == Block::Kind::bullet) spans.insert(spans.begin(), Span{"•  "});
        if (b.kind == Block::Kind::numbered) spans.insert(spans.begin(), Span{std::to_string(b.number) + ".  "});
        if (b.kind == Block::Kind::heading)
            for (Span& s : spans) s.bold = true;
        flow(spans, indent);
        if (b.kind == Block::Kind::paragraph || b.kind == Block::Kind::heading) ImGui::Spacing();
    }
}

//-----------------------------------------------------------------------------
// [SECTION] Predictions
//-----------------------------------------------------------------------------

void commit(LessonView& lv, View& v, const Value& choice, const core::Scenario& s, const core::Result& r) {
    lv.session->commit(choice, s, r);
    save(lv, v);
}

// The token whose heatmap column the learner clicked (the heatmap records it), or -1.
int clicked_heatmap_column(View& v, const core::Scenario& s) {
    const int col = v.lesson.clicked_column;
    v.lesson.clicked_column = -1;
    return col >= 0 && col < s.n() ? col : -1;
}

void prediction_choices(LessonView& lv, View& v, const Predict& p, const core::Scenario& s, const core::Result& r) {
    if (p.choices.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        ImGui::TextWrapped("Click a column of the heatmap, or pick the token here:");
        ImGui::PopStyleColor();
        const int col = clicked_heatmap_column(v, s);
        if (col >= 0) commit(lv, v, Value::of_token(s.tokens[static_cast<size_t>(col)]), s, r);
    }
    const int count = p.choices.empty() ? std::min(s.n(), 64) : static_cast<int>(p.choices.size());
    for (int k = 0; k < count && !lv.session->committed(); ++k) {
        const Value choice = p.choices.empty() ? Value::of_token(s.tokens[static_cast<size_t>(k)]) : p.choices[static_cast<size_t>(k)];
        const std::string label = choice.text() + "##choice" + std::to_string(k);
        const float w = ImGui::CalcTextSize(choice.text().c_str()).x + 2.0f * ImGui::GetStyle().FramePadding.x;
        if (k > 0) same_line_if_fits(w);
        if (ImGui::Button(label.c_str())) commit(lv, v, choice, s, r);
        remember(v, ("lesson_choice_" + std::to_string(k)).c_str());
    }
}

void reveal(const LessonView& lv, const Predict& p, const core::Scenario& s, const core::Result& r) {
    const PredictionRecord& rec = *lv.session->prediction();
    ImGui::PushStyleColor(ImGuiCol_Text, rec.correct ? good_text_colour() : error_text_colour());
    ImGui::TextWrapped("%s  you: %s · actual: %s", rec.correct ? "✓ Right." : "✗ Not this time.", rec.answer.c_str(), rec.actual.c_str());
    ImGui::PopStyleColor();
    const std::optional<Value> now = lv.session->live_answer(s, r);
    if (now && now->text() != rec.actual) ImGui::TextDisabled("After your edits the answer is now %s.", now->text().c_str());
    if (const std::optional<Labelled> numbers = lv.session->live_numbers(s, r)) {
        const NumberFont mono;
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", numbers->text().c_str());
        ImGui::PopTextWrapPos();
    }
    ImGui::TextWrapped("%s", p.why.c_str());
}

void draw_predict(LessonView& lv, View& v, const Predict& p, const core::Scenario& s, const core::Result& r) {
    ImGui::Separator();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(selection_color()));
    ImGui::TextWrapped("%s", p.question.c_str());
    ImGui::PopStyleColor();
    if (lv.session->committed()) reveal(lv, p, s, r);
    else prediction_choices(lv, v, p, s, r);
}

//-----------------------------------------------------------------------------
// [SECTION] Challenges
//-----------------------------------------------------------------------------

// "“cat” · the weight “it” gives “ate” 0.12": the goal's left side now, and the value the step
// shows as progress when it names one.
std::string live_value(const Challenge& c, const ChallengeStatus& st) {
    std::string out = st.left ? (st.left->kind == Value::Kind::token ? "“" + st.left->token + "”" : st.left->text()) : "";
    if (st.shown && c.show) out += (out.empty() ? "" : " · ") + c.show->describe() + " " + st.shown->text();
    return out;
}

void draw_challenge(LessonView& lv, View& v, const Challenge& c, const core::Scenario& s) {
    Session& session = *lv.session;
    const ChallengeStatus& st = session.status();
    ImGui::Separator();
    const bool done = session.is_done(session.index());
    if (done) ImGui::TextColored(good_text_colour(), "✓ Done");
    else if (st.holds) ImGui::TextColored(good_text_colour(), "Holding… %.1f s", std::max(0.0, Challenge::hold_seconds - st.held));
    ImGui::TextWrapped("Goal: %s.", c.goal.describe().c_str());
    tip(c.goal.text().c_str()); // the expression as the lesson file writes it
    const std::string now = live_value(c, st);
    if (!now.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("now: %s", now.c_str());
        ImGui::PopTextWrapPos();
    }
    if (!st.error.empty()) { // what to do next in the normal colour of guidance; a fault in red
        ImGui::PushTextWrapPos(0.0f);
        if (st.awaiting) ImGui::TextDisabled("%s", st.error.c_str());
        else ImGui::TextColored(error_text_colour(), "%s", st.error.c_str());
        ImGui::PopTextWrapPos();
    }
    for (int k = 0; k < st.hints_shown; ++k) ImGui::TextWrapped("Hint %d: %s", k + 1, c.hints[static_cast<size_t>(k)].c_str());
    if (st.hints_shown < static_cast<int>(c.hints.size())) {
        if (ImGui::Button(st.hints_shown == 0 ? "Hint" : "Another hint")) session.request_hint();
        remember(v, "lesson_hint");
    } else if (session.can_show_me()) {
        if (ImGui::Button(session.showing() ? "Showing…" : "Show me")) session.show_me(s);
        remember(v, "lesson_show_me");
        tip("Moves the query arrow to a solution");
    }
}

//-----------------------------------------------------------------------------
// [SECTION] Panel and menu
//-----------------------------------------------------------------------------

// Learn ▸ Open lesson file… and the chooser's button: the file dialog, for .toml files.
void ask_lesson_file(View& v) {
    v.file_request = FileRequest{core::io::FileBrowser::Mode::open, "Open lesson file", {core::io::filter_of(core::io::Kind::lesson, "Lessons")}, "", "",
                                 [&v](const std::string& path) {
                                     std::string error;
                                     if (!start_lesson(v, path, 0, error)) throw LessonError(error);
                                 }};
}

void step_list(LessonView& lv, View& v, const core::Scenario& s) {
    Session& session = *lv.session;
    const std::string preview = "Step " + std::to_string(session.index() + 1) + " of " + std::to_string(session.size());
    ImGui::SetNextItemWidth(std::min(ImGui::GetContentRegionAvail().x, 9.0f * em()));
    if (ImGui::BeginCombo("##steps", preview.c_str(), ImGuiComboFlags_HeightLarge)) {
        for (int k = 0; k < session.size(); ++k) {
            const Step& step = session.lesson().steps[static_cast<size_t>(k)];
            const std::string label = std::string(session.is_done(k) ? "✓ " : "   ") + std::to_string(k + 1) + ". " + step.title + "##step" + std::to_string(k);
            if (ImGui::Selectable(label.c_str(), k == session.index()) && k != session.index()) go(lv, v, s, k);
        }
        ImGui::EndCombo();
    }
    remember(v, "lesson_steps");
}

void footer(LessonView& lv, View& v, const core::Scenario& s) {
    Session& session = *lv.session;
    ImGui::Separator();
    ImGui::BeginDisabled(session.index() == 0);
    if (ImGui::Button("◀ Back")) go(lv, v, s, session.index() - 1);
    ImGui::EndDisabled();
    remember(v, "lesson_back");
    ImGui::SameLine();
    const bool last = session.index() + 1 >= session.size();
    ImGui::BeginDisabled(!session.can_next());
    if (ImGui::Button(last ? "Last step" : "Next ▶")) go(lv, v, s, session.index() + 1);
    ImGui::EndDisabled();
    remember(v, "lesson_next");
    if (!last && !session.can_next() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("Commit your prediction first");
    ImGui::SameLine();
    if (ImGui::Button("Close lesson")) close_lesson(v);
    remember(v, "lesson_close");
    tip("The scenario stays as it is; reopen the lesson from the Learn menu to resume");
}

// The Controls panel sits in the left column, under the Lesson panel: when a step opens it (to
// switch the mask or the scaling), its switches are drawn here, under the step's text.
void inline_controls(const Step& step, core::Scenario& s, const core::Result& r, View& v) {
    const std::vector<std::string>& open = step.actions.open;
    if (std::find(open.begin(), open.end(), "controls") == open.end() || !v.draw_panel_content) return;
    ImGui::Separator();
    ImGui::TextDisabled("Controls");
    ImGui::PushID("lesson_controls");
    v.draw_panel_content("controls", s, r);
    ImGui::PopID();
}

// The real model's grid of heads, or its circuit maps, in a window of their own beside the Lesson
// panel (`beside`: its top-right corner) to the screen's right edge, where the toy panels were.
void model_window(LessonView& lv, const Step& step, View& v, ImVec2 beside, float height) {
    const ImGuiViewport* screen = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(beside, ImGuiCond_Always);
    ImGui::SetNextWindowSize(ImVec2(std::max(10 * em(), screen->WorkPos.x + screen->WorkSize.x - beside.x), height), ImGuiCond_Always);
    const ImGuiWindowFlags fixed = ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoCollapse | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize;
    if (ImGui::Begin(lesson_model_window, nullptr, fixed)) {
        if (step.actions.patch) draw_circuit_maps(lv.circuit, step.actions.model, step.actions.model_text, *step.actions.patch, v);
        else draw_model_heads(lv.model_heads, step.actions.model, step.actions.model_text, v);
    }
    ImGui::End();
}

void draw_step(LessonView& lv, View& v, core::Scenario& s, const core::Result& r) {
    Session& session = *lv.session;
    const Step& step = session.step();
    const ImVec2 beside(ImGui::GetWindowPos().x + ImGui::GetWindowSize().x, ImGui::GetWindowPos().y);
    const float height = ImGui::GetWindowSize().y;
    ImGui::TextDisabled("%s", session.lesson().title.c_str());
    step_list(lv, v, s);
    if (session.predictions_total() > 0) {
        ImGui::SameLine();
        ImGui::TextDisabled("%d of %d made", session.predictions_made(), session.predictions_total());
    }
    ImGui::Separator();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(selection_color()));
    ImGui::TextWrapped("%s%s", session.is_done(session.index()) ? "✓ " : "", step.title.c_str());
    ImGui::PopStyleColor();
    ImGui::Spacing();
    const float footer_h = ImGui::GetFrameHeightWithSpacing() + ImGui::GetStyle().ItemSpacing.y * 2.0f;
    ImGui::BeginChild("##lesson_body", ImVec2(0.0f, -footer_h));
    draw_blocks(step.blocks);
    inline_controls(step, s, r, v);
    if (step.predict) draw_predict(lv, v, *step.predict, s, r);
    if (step.challenge) draw_challenge(lv, v, *step.challenge, s);
    const int link = draw_lesson_check(v, session.lesson(), step, s, r); // question, explain, recap
    if (!session.is_done(session.index()) && lesson_check_finished(v, session.lesson(), step)) {
        session.complete();
        save(lv, v);
    }
    ImGui::EndChild();
    if (link >= 0) go(lv, v, s, link);
    footer(lv, v, s); // it may close the lesson: `session` and `step` are not to be read after it
    if (lv.session && !lv.session->step().actions.model.empty()) model_window(lv, lv.session->step(), v, beside, height);
}

void chooser(LessonView& lv, View& v) {
    ImGui::TextWrapped("Pick a lesson: the panels move under its text as you go.");
    ImGui::Spacing();
    for (const Lesson& l : lv.builtin) {
        if (ImGui::Button(l.title.c_str())) {
            std::string error;
            if (!start_lesson(v, l.path, 0, error)) v.tell(error, true);
        }
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
        ImGui::TextWrapped("%s", l.summary.c_str());
        ImGui::PopStyleColor();
        ImGui::Spacing();
    }
    if (ImGui::Button("Open lesson file…")) ask_lesson_file(v);
}

void list_builtin(LessonView& lv, View& v) {
    if (lv.builtin_loaded) return;
    lv.builtin_loaded = true;
    try {
        lv.builtin = builtin_lessons();
    } catch (const LessonError& e) {
        v.tell(e.what(), true);
    }
}

} // namespace

bool start_lesson(View& v, const std::string& id_or_file, int step, std::string& error) {
    LessonView& lv = v.state<LessonView>();
    load_store(lv, v);
    try {
        Lesson lesson = find_lesson(id_or_file);
        LessonProgress& progress = lv.store.lesson(lesson.id);
        const int resume = step > 0 ? step - 1 : progress.current;
        lv.session.emplace(std::move(lesson), progress);
        lv.pending = lv.session->open(resume);
        lv.secret_key = {};
        save(lv, v);
    } catch (const LessonError& e) {
        error = e.what();
        return false;
    }
    v.open["lesson"] = true;
    v.request_workspace = "learn";
    return true;
}

void close_lesson(View& v) {
    LessonView& lv = v.state<LessonView>();
    lv.session.reset();
    lv.pending.reset();
    lv.secret_key = {};
    v.lesson = {};
    v.open["lesson"] = false;
    for (const std::string& id : lv.toy_panels_hidden) v.open[id] = true;
    lv.toy_panels_hidden.clear();
}

void draw_lesson_panel(core::Scenario& s, const core::Result& r, View& v) {
    LessonView& lv = v.state<LessonView>();
    list_builtin(lv, v);
    if (!lv.session) {
        chooser(lv, v);
        return;
    }
    if (lv.pending) {
        apply_pending(lv, s, v);
        return; // this frame's Result is of the old scenario
    }
    const size_t done_before = lv.session->progress().done.size();
    if (const std::optional<core::QueryPin> pin = lv.session->tick(ImGui::GetIO().DeltaTime, s, r))
        core::edits::pin_query(s, pin->head, pin->row, pin->q);
    if (lv.session->progress().done.size() != done_before) save(lv, v);
    draw_step(lv, v, s, r);
}

void draw_learn_menu(View& v) {
    LessonView& lv = v.state<LessonView>();
    if (!ImGui::BeginMenu("Learn")) return;
    list_builtin(lv, v);
    load_store(lv, v);
    for (const Lesson& l : lv.builtin) {
        const LessonProgress& p = lv.store.lesson(l.id);
        const std::string done = p.done.empty() ? "" : std::to_string(p.done.size()) + " of " + std::to_string(l.steps.size()) + " done";
        if (ImGui::MenuItem(l.title.c_str(), done.c_str())) {
            std::string error;
            if (!start_lesson(v, l.path, 0, error)) v.tell(error, true);
        }
        tip(l.summary.c_str());
    }
    ImGui::Separator();
    if (ImGui::MenuItem("Open lesson file…")) ask_lesson_file(v);
    if (ImGui::MenuItem("Close lesson", nullptr, false, lv.session.has_value())) close_lesson(v);
    ImGui::EndMenu();
}

//-----------------------------------------------------------------------------
// [SECTION] The overlay the other panels read
//-----------------------------------------------------------------------------

void publish_lesson_overlay(const core::Scenario& s, const core::Result& r, View& v) {
    settle_pending_answer(v);
    LessonView& lv = v.state<LessonView>();
    if (lv.session) {
        core::learn::Facts facts = v.facts_frame >= ImGui::GetFrameCount() - 1 ? v.facts : core::learn::Facts{};
        add_model_facts(lv.model_heads, facts);
        add_circuit_facts(lv.circuit, facts);
        lv.session->set_facts(std::move(facts));
    }
    LessonOverlay& o = v.lesson;
    const bool open = lv.session && !lv.pending && lv.session->step().predict && !lv.session->committed();
    o.column_answers = open && lv.session->step().predict->choices.empty();
    if (!o.column_answers) o.clicked_column = -1;
    if (!lv.session) {
        o.secret = {};
        return;
    }
    const LessonView::SecretKey key{v.result_version, lv.session->index(), lv.session->committed()};
    if (key == lv.secret_key) return;
    o.secret = lv.session->secret(s, r);
    lv.secret_key = key;
}

} // namespace ui
