// The Model panel's prompt box driven headless in a narrow panel: a long prompt wraps at words to
// the box's width, the model gets exactly what was typed, Backspace at a wrap point deletes the
// character before it, typed newlines survive re-wrapping, a wider panel re-wraps, undo, a long paste
// and invalid UTF-8; the second prompt of "Compare two prompts" wraps too.
#include "headless.h"
#include "tests/model_ui.h"

#include "ui/model_service.h"
#include "ui/panels/model/model_compare.h"
#include "ui/panels/model/model_prompt.h"
#include "tests/text_lines.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

using model_ui::ModelWorkspace;
using model_ui::until_run;

// The width text has inside the box `item` (what its frame, padding and scrollbar leave).
float inner_width(ui::View& v, const char* item) {
    const ImGuiStyle& s = ImGui::GetStyle();
    return v.items.at(item).GetWidth() - 2 * s.FramePadding.x - s.ScrollbarSize;
}

// Every line of the box, measured as ImGui draws text, fits the box.
void check_lines_fit(const ui::WrappedInput& box, float width) {
    for (const std::string& line : lines_of(box.shown())) {
        INFO(line);
        CHECK(ImGui::CalcTextSize(line.c_str()).x <= width);
    }
}

void resize_model_panel(headless::Ui& ui, float width_em) {
    REQUIRE(ImGui::FindWindowByName("Model") != nullptr);
    ImGui::SetWindowSize("Model", ImVec2(width_em * ImGui::GetFontSize(), 16 * ImGui::GetFontSize()));
    ui.frames(3);
}

// The fixture's model open in a Model panel `width_em` wide, `text` typed over the prompt.
const ui::WrappedInput& type_in_narrow_panel(ModelWorkspace& w, float width_em, const std::string& text) {
    w.open("gpt2");
    resize_model_panel(w.ui, width_em);
    w.ui.click(w.ui.item("model prompt"));
    w.ui.key('A', true);
    w.ui.type(text);
    return w.v.state<ui::ModelPromptView>().box;
}

// A click a little into line `line` (from 0) of the box `item`, at its start.
ImVec2 line_start(ui::View& v, const char* item, int line) {
    const ImRect& r = v.items.at(item);
    const ImGuiStyle& s = ImGui::GetStyle();
    return ImVec2(r.Min.x + s.FramePadding.x + 1, r.Min.y + s.FramePadding.y + (static_cast<float>(line) + 0.5f) * ImGui::GetTextLineHeight());
}

} // namespace

TEST_CASE_FIXTURE(ModelWorkspace, "model prompt: a long prompt in a narrow panel wraps at words — the model gets what was typed — Backspace, newlines, resizing and undo") {
    NEED_CHECKPOINTS();
    const std::string typed = "the cat sat on the mat and the dog ran to the big park";
    const ui::WrappedInput& box = type_in_narrow_panel(*this, 11, typed);
    until_run(ui);
    // (1) The model session gets exactly what was typed.
    CHECK(m.prompt == typed);
    REQUIRE(m.shown);
    CHECK(m.shown->request.text == typed);
    CHECK(m.shown->ids == encoded_prompt());
    // (2) The first and the last words on screen; several lines, each within the box.
    CHECK(ui.shows("the cat", "Model"));
    CHECK(ui.shows("big park", "Model"));
    const float narrow = inner_width(v, "model prompt");
    REQUIRE(box.lines() >= 3);
    check_lines_fit(box, narrow);
    // (3) Backspace at the start of the second line deletes the character before it: the space the
    // line broke at. The cursor stays there: what is typed next goes between the two words.
    const std::vector<std::string> lines = lines_of(box.shown());
    const std::size_t at = lines[0].size(); // the space the first line broke at
    REQUIRE(typed[at] == ' ');
    ui.click(line_start(v, "model prompt", 1));
    ui.key(headless::key_backspace);
    std::string want = typed;
    want.erase(at, 1);
    CHECK(m.prompt == want);
    ui.type("X");
    want.insert(at, "X");
    CHECK(m.prompt == want);
    check_lines_fit(box, narrow);
    // Undo: the X (one typed word), then the space.
    ui.key('Z', true);
    CHECK(m.prompt == typed.substr(0, at) + typed.substr(at + 1));
    ui.key('Z', true);
    CHECK(m.prompt == typed);
    ui.key('Y', true);
    CHECK(m.prompt == typed.substr(0, at) + typed.substr(at + 1));
    ui.key('Z', true);
    CHECK(m.prompt == typed);
    // (4) A typed newline is the user's and survives re-wrapping.
    ui.key(headless::key_end, true);
    ui.key(headless::key_enter);
    ui.type("the end");
    until_run(ui);
    CHECK(m.prompt == typed + "\nthe end");
    CHECK(m.shown->request.text == typed + "\nthe end");
    // (5) A wider panel re-wraps: fewer, longer lines, still within the box, the text the same.
    const int narrow_lines = box.lines();
    const std::size_t narrow_first = lines_of(box.shown())[0].size();
    resize_model_panel(ui, 30);
    const float wide = inner_width(v, "model prompt");
    REQUIRE(wide > narrow);
    CHECK(box.lines() < narrow_lines);
    CHECK(lines_of(box.shown())[0].size() > narrow_first);
    check_lines_fit(box, wide);
    CHECK(lines_of(box.shown()).back() == "the end");
    CHECK(m.prompt == typed + "\nthe end");
    CHECK(box.wrap_width() <= wide);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model prompt: Backspace at a break inside a long word deletes the last character of the line before") {
    NEED_CHECKPOINTS();
    const std::string word = "abcdefghijklmnopqrstuvwxyzabcdefghijklmnop";
    const ui::WrappedInput& box = type_in_narrow_panel(*this, 12, word);
    CHECK(m.prompt == word);
    REQUIRE(box.lines() >= 2);
    check_lines_fit(box, inner_width(v, "model prompt"));
    const std::size_t first = lines_of(box.shown())[0].size();
    ui.click(line_start(v, "model prompt", 1));
    ui.key(headless::key_backspace);
    CHECK(m.prompt == word.substr(0, first - 1) + word.substr(first));
    ui.key(headless::key_delete);
    const std::string edited = word.substr(0, first - 1) + word.substr(first + 1);
    CHECK(m.prompt == edited);
    // Escape goes back to the text the edit started from, as ImGui's own box does.
    ui.click(ui.item("model chip 0")); // out of the box
    ui.click(line_start(v, "model prompt", 1));
    ui.type(" and more");
    ui.type(" words");
    CHECK(m.prompt != edited);
    ui.key(headless::key_escape);
    CHECK(m.prompt == edited);
    CHECK(box.shown().find(" and") == std::string::npos);
    // An arrow key steps over a break inside a word by a character: the break is no place of its own.
    const std::size_t end1 = lines_of(box.shown())[0].size(); // the text position both sides of the break stand for
    ui.click(ui.item("model chip 0")); // out of the box
    ui.click(line_start(v, "model prompt", 1));
    ui.key(headless::key_left);
    ui.type("X");
    std::string want = edited;
    want.insert(end1 - 1, "X");
    CHECK(m.prompt == want);
    ui.click(ui.item("model chip 0")); // out of the box
    ui.click(line_start(v, "model prompt", 1));
    const std::size_t end1_now = lines_of(box.shown())[0].size();
    ui.key(headless::key_left);
    ui.key(headless::key_right);
    ui.key(headless::key_right);
    ui.type("Y");
    want.insert(end1_now + 1, "Y");
    CHECK(m.prompt == want);
}

TEST_CASE_FIXTURE(ModelWorkspace, "model prompt: a 20,000-character paste and invalid UTF-8 are kept and wrapped") {
    NEED_CHECKPOINTS();
    open("gpt2");
    resize_model_panel(ui, 20);
    const ui::WrappedInput& box = v.state<ui::ModelPromptView>().box;
    std::string pasted;
    while (pasted.size() < 20000) pasted += "Elizabeth walked to the window. ";
    pasted.resize(20000);
    ImGui::SetClipboardText(pasted.c_str());
    ui.click(ui.item("model prompt"));
    ui.key('A', true);
    ui.key('V', true);
    CHECK(m.prompt == pasted);
    CHECK(box.lines() > 200);
    check_lines_fit(box, inner_width(v, "model prompt"));
    // Copy takes the text, not the lines as shown.
    ui.key('A', true);
    ui.key('C', true);
    CHECK(std::string(ImGui::GetClipboardText()) == pasted);
    ui.key('X', true);
    CHECK(m.prompt.empty());
    CHECK(std::string(ImGui::GetClipboardText()) == pasted);
    ui.key('Z', true);
    CHECK(m.prompt == pasted);
    // Invalid UTF-8 from elsewhere (the command line) shows as it is; an edit keeps ImGui's reading of it.
    ui.click(ui.item("model chip 0")); // out of the box
    m.prompt = "caf\xc3 au lait";
    ui.frames(2);
    // ImGui reads a lone lead byte with the byte after it as one bad character.
    CHECK(box.shown() == "caf\xef\xbf\xbd" "au lait");
    CHECK(m.prompt == "caf\xc3 au lait");
    ui.click(ui.item("model prompt"));
    ui.key(headless::key_end, true);
    ui.type("s");
    CHECK(m.prompt == "caf\xef\xbf\xbd" "au laits");
}

TEST_CASE_FIXTURE(ModelWorkspace, "model prompt: the second prompt of Compare wraps — Enter compares what was typed") {
    NEED_CHECKPOINTS();
    open("gpt2", "the cat sat on the mat");
    v.open["model_compare"] = true;
    ui.frames(3);
    REQUIRE(ImGui::FindWindowByName("Compare two prompts") != nullptr);
    ImGui::SetWindowSize("Compare two prompts", ImVec2(22 * ImGui::GetFontSize(), 20 * ImGui::GetFontSize()));
    ui.frames(3);
    const std::string second = "the dog sat on the big mat and looked at the cat for a long time";
    ui.click(ui.item("model_compare.prompt"));
    ui.key('A', true);
    ui.type(second);
    ui.key(headless::key_enter);
    until_run(ui);
    for (int k = 0; k < 100 && !v.state<ui::ModelCompareView>().shown; ++k) {
        m.session.wait_idle(headless::worker_wait);
        ui.frame();
    }
    const ui::ModelCompareView& st = v.state<ui::ModelCompareView>();
    CHECK(st.second == second);
    REQUIRE(st.shown);
    CHECK(st.shown->second == second);
    CHECK(st.box.lines() >= 2);
    check_lines_fit(st.box, inner_width(v, "model_compare.prompt"));
    // Emptied, the box shows what it is for.
    ui.click(ui.item("model_compare.prompt"));
    ui.key('A', true);
    ui.key(headless::key_backspace);
    ui.click(ui.item("model chip 0")); // out of the box
    CHECK(v.state<ui::ModelCompareView>().second.empty());
    CHECK(ui.shows("a second prompt", "Compare two prompts"));
}
