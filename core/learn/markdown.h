// core/learn/markdown.h — a lesson step's text: simple Markdown parsed by md4c into blocks of spans.
//
// Paragraphs, headings, bullet and numbered lists (nested), bold, italic, `code` and inline math
// ($\sqrt{d_k}$), which is turned into Unicode (√d_k) so it can be drawn with the ordinary font.
// The panel lays the spans out with word wrapping; tests read them as plain text.
#pragma once

#include <string>
#include <vector>

namespace core::learn {

struct Span {
    std::string text;
    bool bold = false;
    bool italic = false;
    bool code = false;
    bool math = false;
};

struct Block {
    enum class Kind { paragraph, heading, bullet, numbered, code };
    Kind kind = Kind::paragraph;
    int depth = 0;  // list nesting: 0 outside lists, 1 for a top-level item
    int number = 0; // numbered: the item's number
    std::vector<Span> spans;
};

// Never fails: text that is not Markdown is one paragraph of itself.
std::vector<Block> parse_markdown(const std::string& text);

// "\sqrt{d_k}" → "√d_k", "QK^\top" → "QKᵀ", "\cdot" → "·", "\approx" → "≈", … (unknown commands
// lose their backslash).
std::string tex_to_unicode(const std::string& tex);

// The blocks as plain text, one line per block ("• " before bullets, "1. " before numbered items).
std::string plain_text(const std::vector<Block>& blocks);

} // namespace core::learn
