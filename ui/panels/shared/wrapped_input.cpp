// ui/panels/shared/wrapped_input.cpp
//
// [SECTION] Wrapping and position mapping
// [SECTION] Reading an edit of the shown text
// [SECTION] The box
//
// The box hands ImGui the text with its breaks as '\n' and keeps which '\n' are breaks. Each frame
// it is active, the callback compares ImGui's buffer with what it handed over: a difference is the
// user's edit, applied to the text; then the text is wrapped again and the buffer replaced, the
// cursor carried through. ImGui's own undo would replay edits at positions the wrapping has moved,
// so the box keeps its own undo of the text.
#include "ui/panels/shared/wrapped_input.h"

#include "ui/widgets.h"

#include <imgui_internal.h>

#include <algorithm>
#include <cstring>

namespace ui {

//-----------------------------------------------------------------------------
// [SECTION] Wrapping and position mapping
//-----------------------------------------------------------------------------

namespace {

// One UTF-8 character at s[i] as ImGui reads it (an invalid byte is one character); its length.
int char_at(const std::string& s, int i, unsigned int& c) {
    return std::max(1, ImTextCharFromUtf8(&c, s.data() + i, s.data() + s.size()));
}

// Where the character before byte i starts (i > 0).
int previous_char(const std::string& s, int i) {
    for (--i; i > 0 && (static_cast<unsigned char>(s[static_cast<std::size_t>(i)]) & 0xC0) == 0x80;) --i;
    return i;
}

float width_between(const std::string& s, int from, int to, const CharWidth& char_width) {
    float x = 0;
    for (unsigned int c = 0; from < to;) {
        from += char_at(s, from, c);
        x += char_width(c);
    }
    return x;
}

} // namespace

std::vector<SoftBreak> soft_breaks(const std::string& text, float width, const CharWidth& char_width) {
    std::vector<SoftBreak> breaks;
    const int n = static_cast<int>(text.size());
    int line = 0;   // the current line's first byte
    int space = -1; // its last space that fits
    float x = 0;    // its width so far
    for (int i = 0; i < n;) {
        if (text[static_cast<std::size_t>(i)] == '\n') {
            line = ++i, space = -1, x = 0;
            continue;
        }
        unsigned int c = 0;
        const int len = char_at(text, i, c);
        const float w = char_width(c);
        if (x + w <= width || i == line) {
            if (c == ' ') space = i;
            x += w, i += len;
        } else if (c == ' ') { // the space that does not fit is the break
            breaks.push_back({i, true});
            line = i + len, space = -1, x = 0, i += len;
        } else if (space >= 0) { // back to the last space; character i is looked at again
            breaks.push_back({space, true});
            line = space + 1, space = -1, x = width_between(text, line, i, char_width);
        } else { // a word longer than the line: break before character i, which starts the next
            breaks.push_back({i, false});
            line = i, x = 0;
        }
    }
    return breaks;
}

std::string shown_text(const std::string& text, const std::vector<SoftBreak>& breaks) {
    std::string shown;
    shown.reserve(text.size() + breaks.size());
    std::size_t k = 0;
    for (const SoftBreak& b : breaks) {
        shown.append(text, k, static_cast<std::size_t>(b.at) - k);
        shown += '\n';
        k = static_cast<std::size_t>(b.at) + (b.replaces_space ? 1 : 0);
    }
    shown.append(text, k, std::string::npos);
    return shown;
}

int text_position(int shown, const std::vector<SoftBreak>& breaks) {
    int added = 0; // breaks before `shown` that are not in the text
    for (const SoftBreak& b : breaks) {
        if (b.at + added >= shown) break;
        if (!b.replaces_space) ++added;
    }
    return shown - added;
}

int shown_position(int text, const std::vector<SoftBreak>& breaks, bool line_end) {
    int added = 0;
    for (const SoftBreak& b : breaks) {
        if (b.at > text || (b.at == text && (line_end || b.replaces_space))) break;
        if (!b.replaces_space) ++added;
    }
    return text + added;
}

//-----------------------------------------------------------------------------
// [SECTION] Reading an edit of the shown text
//-----------------------------------------------------------------------------

TextEdit text_edit(const std::string& text, const std::string& before, const std::vector<SoftBreak>& breaks, const std::string& after,
                   int cursor, int erase, int selected_from, int selected_to) {
    const int nb = static_cast<int>(before.size()), na = static_cast<int>(after.size()), m = std::min(nb, na);
    cursor = std::clamp(cursor, 0, na);
    int same_start = 0, same_end = 0;
    while (same_start < m && before[static_cast<std::size_t>(same_start)] == after[static_cast<std::size_t>(same_start)]) ++same_start;
    while (same_end < m && before[static_cast<std::size_t>(nb - 1 - same_end)] == after[static_cast<std::size_t>(na - 1 - same_end)]) ++same_end;
    int p = 0, q = 0, r = 0; // before[p, q) became after[p, r)
    const int hint_r = na - (nb - selected_to);
    if (0 <= selected_from && selected_from <= selected_to && selected_to <= nb && selected_from <= hint_r && cursor == hint_r &&
        std::min(same_start, m) >= selected_from && same_end >= nb - selected_to) {
        p = selected_from, q = selected_to, r = hint_r; // the selection was replaced (or the text typed at the cursor)
    } else if (same_start + same_end >= m) {
        // Only inserted or only deleted: where is ambiguous in a run of equal bytes ("\n\n"), but
        // the cursor ends what was typed and stays where text was deleted.
        const int lo = m - std::min(same_end, m), hi = std::min(same_start, m);
        p = std::clamp(na > nb ? cursor - (na - nb) : cursor, lo, hi);
        q = p + std::max(0, nb - na), r = p + std::max(0, na - nb);
    } else {
        p = std::min(same_start, cursor);
        const int s = std::max(0, std::min({same_end, na - cursor, nb - p}));
        q = nb - s, r = na - s;
    }
    TextEdit e;
    e.from = text_position(p, breaks), e.to = text_position(q, breaks);
    e.inserted = after.substr(static_cast<std::size_t>(p), static_cast<std::size_t>(r - p));
    const int n = static_cast<int>(text.size());
    const auto continuation = [&](int i) { return (static_cast<unsigned char>(text[static_cast<std::size_t>(i)]) & 0xC0) == 0x80; };
    if (q > p && e.from == e.to && e.inserted.empty()) { // only breaks went: the key meant the character beside
        if (erase < 0 && e.from > 0)
            e.from = previous_char(text, e.from);
        else if (erase > 0 && e.to < n)
            for (++e.to; e.to < n && continuation(e.to);) ++e.to;
    }
    return e;
}

//-----------------------------------------------------------------------------
// [SECTION] The box
//-----------------------------------------------------------------------------

namespace {

constexpr std::size_t undo_steps = 200;

// `text` as ImGui keeps it once it edits it: invalid UTF-8 as U+FFFD, only what ImWchar holds, up to a NUL.
std::string as_imgui_keeps(const std::string& text) {
    std::vector<ImWchar> wide(text.size() + 1);
    const int n = ImTextStrFromUtf8(wide.data(), static_cast<int>(wide.size()), text.c_str(), nullptr);
    std::string out(static_cast<std::size_t>(n) * 4 + 1, '\0');
    out.resize(static_cast<std::size_t>(ImTextStrToUtf8(out.data(), static_cast<int>(out.size()), wide.data(), wide.data() + n)));
    return out;
}

// The platform's shortcut modifier (Ctrl; Cmd on macOS) held with `key`, Shift held or not as `shift`.
bool shortcut(ImGuiKey key, bool shift) {
    const ImGuiIO& io = ImGui::GetIO();
    const bool mod = io.ConfigMacOSXBehaviors ? io.KeySuper && !io.KeyCtrl : io.KeyCtrl && !io.KeySuper;
    return mod && !io.KeyAlt && io.KeyShift == shift && ImGui::IsKeyPressed(ImGui::GetKeyIndex(key));
}
bool pressed(ImGuiKey key) { return ImGui::IsKeyPressed(ImGui::GetKeyIndex(key)); }
bool cut_key() { return shortcut(ImGuiKey_X, false) || (ImGui::GetIO().KeyShift && !ImGui::GetIO().KeyCtrl && pressed(ImGuiKey_Delete)); }
bool copy_key() { return shortcut(ImGuiKey_C, false) || (ImGui::GetIO().KeyCtrl && pressed(ImGuiKey_Insert)); }
int erase_key() { return pressed(ImGuiKey_Backspace) ? -1 : pressed(ImGuiKey_Delete) ? 1 : 0; }

} // namespace

int WrappedInput::lines() const { return 1 + static_cast<int>(std::count(shown_.begin(), shown_.end(), '\n')); }

void WrappedInput::load(const std::string& text) {
    source_ = text;
    text_ = as_imgui_keeps(text);
    undo_.clear(), redo_.clear();
    typing_ = false;
    rewrap_ = reload_ = true;
}

void WrappedInput::rewrap() {
    const ImFont* font = ImGui::GetFont();
    const float scale = ImGui::GetFontSize() / font->FontSize;
    breaks_ = soft_breaks(text_, width_, [font, scale](unsigned int c) { return c == '\r' ? 0.0f : font->GetCharAdvance(static_cast<ImWchar>(c)) * scale; });
    shown_ = shown_text(text_, breaks_);
    rewrap_ = false;
}

void WrappedInput::apply(const TextEdit& e) {
    const bool typed = e.from == e.to && !e.inserted.empty() && ImTextCountCharsFromUtf8(e.inserted.c_str(), nullptr) == 1;
    const bool same_word = typed && typing_ && e.from == cursor_ && e.inserted != " " && e.inserted != "\n";
    if (!same_word) {
        undo_.push_back({text_, cursor_});
        if (undo_.size() > undo_steps) undo_.erase(undo_.begin());
    }
    redo_.clear();
    typing_ = typed;
    text_.replace(static_cast<std::size_t>(e.from), static_cast<std::size_t>(e.to - e.from), e.inserted);
    cursor_ = select_from_ = select_to_ = e.from + static_cast<int>(e.inserted.size());
    changed_ = rewrap_ = true;
}

bool WrappedInput::undo_redo(std::vector<Undo>& from, std::vector<Undo>& to) {
    if (from.empty()) return false;
    to.push_back({text_, cursor_});
    text_ = std::move(from.back().text);
    cursor_ = select_from_ = select_to_ = std::min(from.back().cursor, static_cast<int>(text_.size()));
    from.pop_back();
    typing_ = false;
    changed_ = rewrap_ = true;
    return true;
}

int WrappedInput::callback(ImGuiInputTextCallbackData* data) { return static_cast<WrappedInput*>(data->UserData)->on_callback(data); }

int WrappedInput::on_callback(ImGuiInputTextCallbackData* d) {
    if (d->EventFlag == ImGuiInputTextFlags_CallbackResize) {
        buffer_.resize(static_cast<std::size_t>(d->BufTextLen));
        d->Buf = buffer_.data();
        return 0;
    }
    if (!editing_) editing_ = true, initial_text_ = text_, initial_shown_ = shown_, selected_from_ = selected_to_ = -1;
    const std::string now(d->Buf, static_cast<std::size_t>(d->BufTextLen));
    bool line_end = false; // the cursor at a break inside a word shows at the end of the line
    if (reload_) {
        cursor_ = select_from_ = select_to_ = static_cast<int>(text_.size());
        reload_ = false;
    } else if (now != shown_) {
        const TextEdit e = text_edit(text_, shown_, breaks_, now, d->CursorPos, erase_key(), selected_from_, selected_to_);
        if (cut_key()) ImGui::SetClipboardText(text_.substr(static_cast<std::size_t>(e.from), static_cast<std::size_t>(e.to - e.from)).c_str());
        apply(e);
        line_end = true; // after what was typed, not at the start of the next line
    } else {
        step_over_break(d, now);
        cursor_ = text_position(d->CursorPos, breaks_);
        select_from_ = text_position(d->SelectionStart, breaks_), select_to_ = text_position(d->SelectionEnd, breaks_);
        line_end = d->CursorPos < d->BufTextLen && now[static_cast<std::size_t>(d->CursorPos)] == '\n' &&
                   shown_position(cursor_, breaks_, true) == d->CursorPos && shown_position(cursor_, breaks_) != d->CursorPos;
        const int a = std::min(select_from_, select_to_), b = std::max(select_from_, select_to_);
        if (copy_key() && b > a) ImGui::SetClipboardText(text_.substr(static_cast<std::size_t>(a), static_cast<std::size_t>(b - a)).c_str());
        if (shortcut(ImGuiKey_Z, false)) undo_redo(undo_, redo_);
        else if (shortcut(ImGuiKey_Y, false) || shortcut(ImGuiKey_Z, true)) undo_redo(redo_, undo_);
    }
    if (!rewrap_) return remember_selection(d);
    rewrap();
    if (shown_ != now) {
        d->DeleteChars(0, d->BufTextLen);
        d->InsertChars(0, shown_.data(), shown_.data() + shown_.size());
        // ImGui re-reads the buffer into its wide copy, which it grows by the bytes added: make room
        // for the characters, which an undo can add more of than bytes.
        ImVector<ImWchar>& wide = GImGui->InputTextState.TextW;
        const int chars = ImTextCountCharsFromUtf8(shown_.c_str(), nullptr) + 1;
        if (wide.Size < chars) wide.resize(chars);
    }
    d->CursorPos = shown_position(cursor_, breaks_, line_end);
    d->SelectionStart = shown_position(select_from_, breaks_), d->SelectionEnd = shown_position(select_to_, breaks_);
    if (select_from_ == select_to_) d->SelectionStart = d->SelectionEnd = d->CursorPos;
    return remember_selection(d);
}

int WrappedInput::remember_selection(const ImGuiInputTextCallbackData* d) {
    selected_from_ = std::min(d->SelectionStart, d->SelectionEnd), selected_to_ = std::max(d->SelectionStart, d->SelectionEnd);
    if (selected_from_ == selected_to_) selected_from_ = selected_to_ = d->CursorPos;
    shown_cursor_ = d->CursorPos;
    return 0;
}

// Both sides of a break inside a word are one place in the text: an arrow key that only crossed the
// break goes on by a character, as in any wrapping editor.
void WrappedInput::step_over_break(ImGuiInputTextCallbackData* d, const std::string& now) const {
    const int c = d->CursorPos, n = static_cast<int>(now.size());
    const bool right = pressed(ImGuiKey_RightArrow) && c == shown_cursor_ + 1, left = pressed(ImGuiKey_LeftArrow) && c == shown_cursor_ - 1;
    if ((!right && !left) || ImGui::GetIO().KeyCtrl || ImGui::GetIO().KeyAlt || shown_cursor_ < 0 ||
        now[static_cast<std::size_t>(right ? c - 1 : c)] != '\n' || text_position(c, breaks_) != text_position(shown_cursor_, breaks_))
        return;
    int to = c;
    if (right && to < n) {
        unsigned int ch = 0;
        to += char_at(now, to, ch);
    } else if (left && to > 0) {
        to = previous_char(now, to);
    }
    d->CursorPos = to;
    if (ImGui::GetIO().KeyShift) d->SelectionEnd = to;
    else d->SelectionStart = d->SelectionEnd = to;
}

bool WrappedInput::draw(const char* label, std::string& text, ImVec2 size_arg, ImGuiInputTextFlags flags, const char* hint) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const ImVec2 size = ImGui::CalcItemSize(size_arg, ImGui::CalcItemWidth(), 8 * em() + 2 * style.FramePadding.y);
    // Room for the scrollbar whether it shows or not (lines do not jump when it comes), and the cursor.
    const float width = std::max(em(), size.x - 2 * style.FramePadding.x - style.ScrollbarSize - 0.25f * em());
    if (text != source_) load(text);
    if (width != width_ || em() != font_size_) width_ = width, font_size_ = em(), rewrap_ = true;
    const ImGuiID id = ImGui::GetID(label);
    if (ImGui::GetActiveID() != id) {
        reload_ = false;
        if (rewrap_) rewrap(), buffer_ = shown_;
    }
    changed_ = false;
    flags |= ImGuiInputTextFlags_CallbackAlways | ImGuiInputTextFlags_CallbackResize | ImGuiInputTextFlags_NoUndoRedo | ImGuiInputTextFlags_NoHorizontalScroll;
    flags |= ImGuiInputTextFlags_Multiline; // a private flag: InputTextMultiline's, which takes no hint
    const bool entered = ImGui::InputTextEx(label, hint, buffer_.data(), static_cast<int>(buffer_.capacity()) + 1, size, flags, callback, this);
    buffer_.resize(std::strlen(buffer_.c_str()));
    if (buffer_ != shown_) { // Escape: ImGui put back the buffer it started with
        if (buffer_ == initial_shown_ && text_ != initial_text_) {
            undo_.push_back({text_, cursor_});
            text_ = initial_text_;
            changed_ = true;
        }
        rewrap();
        buffer_ = shown_;
    }
    if (!ImGui::IsItemActive()) editing_ = false;
    if (changed_) text = source_ = text_;
    return (flags & ImGuiInputTextFlags_EnterReturnsTrue) ? entered : changed_;
}

} // namespace ui
