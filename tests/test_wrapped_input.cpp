// The soft-wrapping box's pure parts: where a text breaks at a width (every character one unit wide
// unless a test says otherwise), the shown text, positions between the text and the shown text, and
// what an edit of the shown text did to the text. Expected results written out by hand.
#include "ui/panels/shared/wrapped_input.h"
#include "tests/text_lines.h"

#include <doctest/doctest.h>

#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using ui::SoftBreak;

float unit(unsigned int) { return 1.0f; }

std::string wrap(const std::string& text, float width, const ui::CharWidth& w = unit) {
    return ui::shown_text(text, ui::soft_breaks(text, width, w));
}

} // namespace

TEST_CASE("wrapped input: words break at the space before the one that does not fit — the space is the break") {
    const std::string text = "the cat sat on the mat";
    CHECK(ui::soft_breaks(text, 7, unit) == std::vector<SoftBreak>{{7, true}, {14, true}});
    CHECK(wrap(text, 7) == "the cat\nsat on\nthe mat");
    CHECK(wrap(text, 22) == text); // fits exactly
    CHECK(wrap(text, 11) == "the cat sat\non the mat");
    // Spaces that fit stay at the end of their line; the first that does not is the break.
    CHECK(wrap("ab   cd", 4) == "ab  \ncd");
}

TEST_CASE("wrapped input: a word longer than a line breaks inside — typed newlines start a paragraph") {
    CHECK(ui::soft_breaks("abcdefghij", 4, unit) == std::vector<SoftBreak>{{4, false}, {8, false}});
    CHECK(wrap("abcdefghij", 4) == "abcd\nefgh\nij");
    CHECK(wrap("ab cdefghij", 4) == "ab\ncdef\nghij");
    CHECK(wrap("ab\ncd ef", 5) == "ab\ncd ef");
    CHECK(wrap("ab\ncd ef", 4) == "ab\ncd\nef");
    CHECK(ui::soft_breaks("ab\ncd ef", 4, unit) == std::vector<SoftBreak>{{5, true}});
    CHECK(wrap("a\n\nb", 1) == "a\n\nb");
    // Narrower than one character: one character a line, never none.
    CHECK(wrap("abc", 0.5f) == "a\nb\nc");
    CHECK(wrap("", 3).empty());
}

TEST_CASE("wrapped input: widths are measured per character, UTF-8 characters are never split, bad bytes are characters") {
    const auto wide_w = [](unsigned int c) { return c == 'W' ? 2.0f : 1.0f; };
    CHECK(wrap("WW W", 4, wide_w) == "WW\nW");
    CHECK(wrap("iiii W", 5, wide_w) == "iiii\nW");
    // Back at the space, the word so far is measured again with its own widths.
    CHECK(wrap("a WWW", 5, wide_w) == "a\nWW\nW");
    CHECK(wrap("\xc3\xa9\xc3\xa9\xc3\xa9 \xc3\xa9\xc3\xa9\xc3\xa9", 3) == "\xc3\xa9\xc3\xa9\xc3\xa9\n\xc3\xa9\xc3\xa9\xc3\xa9");
    CHECK(ui::soft_breaks("\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 3, unit) == std::vector<SoftBreak>{{6, false}});
    CHECK(wrap("a\xff\xfe b", 3) == "a\xff\xfe\nb");
    CHECK(wrap("\xe2\x82", 1) == "\xe2\x82"); // a cut-off character is one
}

TEST_CASE("wrapped input: positions map between the text and the shown text — a break inside a word is end of line or start of the next") {
    const std::vector<SoftBreak> inside{{4, false}, {8, false}}; // "abcd\nefgh\nij"
    CHECK(ui::text_position(0, inside) == 0);
    CHECK(ui::text_position(4, inside) == 4); // end of the first line
    CHECK(ui::text_position(5, inside) == 4); // start of the second: the same place in the text
    CHECK(ui::text_position(6, inside) == 5);
    CHECK(ui::text_position(10, inside) == 8);
    CHECK(ui::text_position(12, inside) == 10);
    CHECK(ui::shown_position(3, inside) == 3);
    CHECK(ui::shown_position(4, inside) == 5);
    CHECK(ui::shown_position(4, inside, true) == 4);
    CHECK(ui::shown_position(8, inside) == 10);
    CHECK(ui::shown_position(8, inside, true) == 9);
    CHECK(ui::shown_position(10, inside) == 12);
    const std::vector<SoftBreak> space{{7, true}}; // "the cat\nsat": the break is the space
    CHECK(ui::text_position(7, space) == 7);
    CHECK(ui::text_position(8, space) == 8);
    CHECK(ui::shown_position(7, space) == 7);
    CHECK(ui::shown_position(7, space, true) == 7);
    CHECK(ui::shown_position(8, space) == 8);
}

TEST_CASE("wrapped input: an edit of the shown text is an edit of the text, breaks left out") {
    const std::string text = "abcdefghij", before = "abcd\nefgh\nij";
    const std::vector<SoftBreak> inside{{4, false}, {8, false}};
    const auto edit = [](const ui::TextEdit& e) { return std::to_string(e.from) + "," + std::to_string(e.to) + ":" + e.inserted; };
    // Typed at the start of the second line.
    CHECK(edit(ui::text_edit(text, before, inside, "abcd\nxefgh\nij", 6, 0)) == "4,4:x");
    // Backspace there: ImGui deleted the break; the character before it goes instead. Delete at the
    // end of the first line: the one after it.
    CHECK(edit(ui::text_edit(text, before, inside, "abcdefgh\nij", 4, -1)) == "3,4:");
    CHECK(edit(ui::text_edit(text, before, inside, "abcdefgh\nij", 4, 1)) == "4,5:");
    // A selection across a break replaced by a paste with a newline: the newline is the user's.
    CHECK(edit(ui::text_edit(text, before, inside, "abX\nYgh\nij", 5, 0)) == "2,6:X\nY");
    // Where the break is the space: Enter at the end of the line goes before the space, at the start
    // of the next after it (the shown texts are the same; the cursor tells).
    const std::vector<SoftBreak> space{{7, true}};
    CHECK(edit(ui::text_edit("the cat sat", "the cat\nsat", space, "the cat\n\nsat", 8, 0)) == "7,7:\n");
    CHECK(edit(ui::text_edit("the cat sat", "the cat\nsat", space, "the cat\n\nsat", 9, 0)) == "8,8:\n");
    // Backspace at the start of that line deletes the space.
    CHECK(edit(ui::text_edit("the cat sat", "the cat\nsat", space, "the catsat", 7, -1)) == "7,8:");
    // A typed newline beside a break survives as a newline.
    CHECK(edit(ui::text_edit(text, before, inside, "abcd\n\nefgh\nij", 6, 0)) == "4,4:\n");
}

TEST_CASE("wrapped input: random texts and edits: the breaks come out again, lines fit, positions and edits map back") {
    std::mt19937 random(7);
    const std::vector<std::string> pieces = {"a", "b", "cd", " ", " ", "\n", "\xc3\xa9", "\xe6\x97\xa5"};
    const auto pick = [&](int n) { return static_cast<int>(random() % static_cast<unsigned>(n)); };
    const auto some_text = [&](int count) {
        std::string s;
        for (int k = 0; k < count; ++k) s += pieces[static_cast<std::size_t>(pick(static_cast<int>(pieces.size())))];
        return s;
    };
    const auto wide_w = [](unsigned int c) { return c > 0x7f ? 2.0f : 1.0f; };
    for (int round = 0; round < 3000; ++round) {
        const std::string text = some_text(pick(40));
        const float width = static_cast<float>(1 + pick(9));
        const std::vector<SoftBreak> breaks = ui::soft_breaks(text, width, wide_w);
        const std::string shown = ui::shown_text(text, breaks);
        CAPTURE(text);
        CAPTURE(width);
        // The breaks taken out again give the text.
        std::string back = shown;
        std::vector<int> added;
        for (const SoftBreak& b : breaks) {
            const int at = b.at + static_cast<int>(added.size());
            REQUIRE(shown[static_cast<std::size_t>(at)] == '\n');
            if (!b.replaces_space) added.push_back(at);
            else back[static_cast<std::size_t>(at)] = ' ';
        }
        for (auto a = added.rbegin(); a != added.rend(); ++a) back.erase(static_cast<std::size_t>(*a), 1);
        CHECK(back == text);
        // Every line fits, or is one character.
        for (const std::string& line : lines_of(shown)) {
            float w = 0;
            int chars = 0;
            for (unsigned char c : line) chars += (c & 0xC0) != 0x80, w += (c & 0xC0) == 0x80 ? 0.0f : (c > 0x7f ? 2.0f : 1.0f);
            CHECK((w <= width || chars == 1));
        }
        // Each text position has a shown one that maps back.
        for (int p = 0; p <= static_cast<int>(text.size()); ++p) {
            CHECK(ui::text_position(ui::shown_position(p, breaks), breaks) == p);
            CHECK(ui::text_position(ui::shown_position(p, breaks, true), breaks) == p);
        }
        // An edit ImGui could make of the shown text, [a, b) replaced by typed or pasted text, is the
        // same edit of the text.
        std::vector<int> at; // character boundaries of the shown text
        for (int i = 0; i <= static_cast<int>(shown.size()); ++i)
            if (i == static_cast<int>(shown.size()) || (static_cast<unsigned char>(shown[static_cast<std::size_t>(i)]) & 0xC0) != 0x80) at.push_back(i);
        int a = at[static_cast<std::size_t>(pick(static_cast<int>(at.size())))], b = at[static_cast<std::size_t>(pick(static_cast<int>(at.size())))];
        if (a > b) std::swap(a, b);
        const std::string typed = pick(3) == 0 ? "" : some_text(1 + pick(3));
        const std::string after = shown.substr(0, static_cast<std::size_t>(a)) + typed + shown.substr(static_cast<std::size_t>(b));
        if (after == shown) continue;
        CAPTURE(a);
        CAPTURE(b);
        CAPTURE(typed);
        const int ta = ui::text_position(a, breaks), tb = ui::text_position(b, breaks);
        const std::string want = text.substr(0, static_cast<std::size_t>(ta)) + typed + text.substr(static_cast<std::size_t>(tb));
        // The selection before the edit tells a replacement apart; an insertion or a deletion reads right without it.
        const bool hint = (a < b && !typed.empty()) || pick(2) == 0;
        const ui::TextEdit e = ui::text_edit(text, shown, breaks, after, a + static_cast<int>(typed.size()), 0, hint ? a : -1, hint ? b : -1);
        std::string got = text;
        got.replace(static_cast<std::size_t>(e.from), static_cast<std::size_t>(e.to - e.from), e.inserted);
        CHECK(got == want);
    }
}
