// ui/panels/shared/wrapped_input.h — a multiline text box that soft-wraps its text at word boundaries to its width
// (ImGui 1.86's InputTextMultiline does not wrap). The caller's string never holds the line breaks
// the box shows: only typed or pasted newlines are in it.
//
// [SECTION] Wrapping and position mapping (pure)
// [SECTION] The box
#pragma once

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Wrapping and position mapping (pure)
//-----------------------------------------------------------------------------

// Where a line of the text breaks: at a space, which the break takes the place of (so no line ends
// in the space it broke at), or inside a word longer than a line, before the character that did
// not fit (a break added between two characters).
struct SoftBreak {
    int at = 0;                  // byte in the text: the space, or the character the break goes before
    bool replaces_space = false;
    bool operator==(const SoftBreak& o) const { return at == o.at && replaces_space == o.replaces_space; }
};

// The width of one character (a Unicode code point) in the box's font.
using CharWidth = std::function<float(unsigned int codepoint)>;

// Greedy word wrap of `text` (UTF-8; newlines end paragraphs) to lines at most `width` wide, the
// breaks in text order. A line holds at least one character however narrow the width.
std::vector<SoftBreak> soft_breaks(const std::string& text, float width, const CharWidth& char_width);
// The text as the box shows it: each break a '\n'.
std::string shown_text(const std::string& text, const std::vector<SoftBreak>& breaks);
// A byte position in the shown text as one in the text, and back. A text position at a break
// inside a word is both the end of one line and the start of the next: `line_end` picks the first.
int text_position(int shown, const std::vector<SoftBreak>& breaks);
int shown_position(int text, const std::vector<SoftBreak>& breaks, bool line_end = false);

// An edit of the text: bytes [from, to) replaced by `inserted`.
struct TextEdit {
    int from = 0, to = 0;
    std::string inserted;
};
// What an edit of the shown text `before` (of `text` with `breaks`) into `after` did to the text.
// `cursor` is the cursor after the edit (it ends what was typed, or sits where text was deleted);
// `erase` says which key deleted: −1 Backspace, +1 Delete, 0 neither. Deleting only a break inside a
// word deletes the character before it (Backspace) or after it (Delete) instead. [selected_from,
// selected_to) is the selection (or the cursor) before the edit, in `before`: when `after` reads as
// it replaced by what was typed, that is the edit (a '\n' pasted beside a break is told apart).
TextEdit text_edit(const std::string& text, const std::string& before, const std::vector<SoftBreak>& breaks, const std::string& after,
                   int cursor, int erase, int selected_from = -1, int selected_to = -1);

//-----------------------------------------------------------------------------
// [SECTION] The box
//-----------------------------------------------------------------------------

// One box; keep it in the panel's state. Typing, paste, Backspace/Delete, arrows, Home/End,
// selection, cut/copy (of the text without the shown breaks), undo/redo (Ctrl+Z, Ctrl+Y or
// Ctrl+Shift+Z) and Escape (back to the text the edit started from) all work on the text.
class WrappedInput {
public:
    // Draws the box `size` big (ImGui sizes: −1 reaches the right edge) for `text`, with `label`'s
    // id (start it with "##": no label is drawn). Returns true when `text` changed this frame, or,
    // with ImGuiInputTextFlags_EnterReturnsTrue, when Enter was pressed.
    bool draw(const char* label, std::string& text, ImVec2 size, ImGuiInputTextFlags flags = 0, const char* hint = nullptr);

    const std::string& shown() const { return shown_; } // as on screen: each line break a '\n'
    float wrap_width() const { return width_; }          // the width lines were wrapped to
    int lines() const;                                   // lines on screen, at least 1

private:
    static int callback(ImGuiInputTextCallbackData* data); // ImGui's, on each frame the box is active
    int on_callback(ImGuiInputTextCallbackData* data);
    int remember_selection(const ImGuiInputTextCallbackData* data);
    void step_over_break(ImGuiInputTextCallbackData* data, const std::string& now) const;
    struct Undo {
        std::string text;
        int cursor;
    };
    void load(const std::string& text);
    void rewrap();
    void apply(const TextEdit& e);
    bool undo_redo(std::vector<Undo>& from, std::vector<Undo>& to);

    std::string source_;          // the caller's text as last seen (may hold invalid UTF-8)
    std::string text_;            // that text as ImGui keeps it: valid UTF-8, edited here
    std::string shown_, buffer_;  // the text with its breaks; the buffer ImGui edits
    std::vector<SoftBreak> breaks_;
    float width_ = -1, font_size_ = -1;
    bool rewrap_ = true;          // the width, the font or the text changed: wrap again
    bool reload_ = false;         // the caller's text changed while the box was active
    bool editing_ = false;        // active since the last callback
    bool changed_ = false;        // text_ changed this frame
    std::string initial_text_, initial_shown_; // when the edit started: what Escape goes back to
    int cursor_ = 0, select_from_ = 0, select_to_ = 0; // in text_, as of the last callback
    int selected_from_ = -1, selected_to_ = -1;        // the same in shown_, ordered (−1: not known)
    int shown_cursor_ = -1;
    bool typing_ = false;         // the last edit was one typed character (undo takes a word at once)
    std::vector<Undo> undo_, redo_;
};

} // namespace ui
