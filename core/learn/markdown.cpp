// core/learn/markdown.cpp — md4c's callbacks build the blocks; a small table turns TeX into Unicode.
#include "core/learn/markdown.h"

#include <md4c.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <utility>

namespace core::learn {

namespace {

struct Builder {
    std::vector<Block> blocks;
    struct List {
        bool numbered;
        int next;
    };
    std::vector<List> lists;
    bool in_block = false;     // a block is collecting text
    bool fresh_item = false;   // a list item that has no text yet (its first paragraph joins it)
    int bold = 0, italic = 0, code = 0, math = 0;
    std::string math_text;

    void start(Block::Kind kind) {
        Block b;
        b.kind = kind;
        b.depth = static_cast<int>(lists.size());
        blocks.push_back(std::move(b));
        in_block = true;
    }
    void add(const std::string& text) {
        if (text.empty()) return;
        if (!in_block) start(Block::Kind::paragraph);
        fresh_item = false;
        std::vector<Span>& spans = blocks.back().spans;
        const Span style{{}, bold > 0, italic > 0, code > 0, false};
        if (!spans.empty() && spans.back().bold == style.bold && spans.back().italic == style.italic && spans.back().code == style.code &&
            !spans.back().math) {
            spans.back().text += text;
            return;
        }
        Span s = style;
        s.text = text;
        spans.push_back(std::move(s));
    }
};

int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
    case MD_BLOCK_UL: b.lists.push_back({false, 0}); break;
    case MD_BLOCK_OL: b.lists.push_back({true, static_cast<int>(static_cast<MD_BLOCK_OL_DETAIL*>(detail)->start)}); break;
    case MD_BLOCK_LI:
        b.start(b.lists.back().numbered ? Block::Kind::numbered : Block::Kind::bullet);
        b.blocks.back().number = b.lists.back().next++;
        b.fresh_item = true;
        break;
    case MD_BLOCK_P:
        if (!b.fresh_item) b.start(Block::Kind::paragraph);
        break;
    case MD_BLOCK_H: b.start(Block::Kind::heading); break;
    case MD_BLOCK_CODE: b.start(Block::Kind::code); break;
    default: break;
    }
    return 0;
}

int leave_block(MD_BLOCKTYPE type, void*, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    if (type == MD_BLOCK_UL || type == MD_BLOCK_OL) b.lists.pop_back();
    if (type == MD_BLOCK_P || type == MD_BLOCK_H || type == MD_BLOCK_CODE || type == MD_BLOCK_LI) b.in_block = b.fresh_item = false;
    return 0;
}

int enter_span(MD_SPANTYPE type, void*, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    if (type == MD_SPAN_STRONG) ++b.bold;
    if (type == MD_SPAN_EM) ++b.italic;
    if (type == MD_SPAN_CODE) ++b.code;
    if (type == MD_SPAN_LATEXMATH || type == MD_SPAN_LATEXMATH_DISPLAY) {
        ++b.math;
        b.math_text.clear();
    }
    return 0;
}

int leave_span(MD_SPANTYPE type, void*, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    if (type == MD_SPAN_STRONG) --b.bold;
    if (type == MD_SPAN_EM) --b.italic;
    if (type == MD_SPAN_CODE) --b.code;
    if (type == MD_SPAN_LATEXMATH || type == MD_SPAN_LATEXMATH_DISPLAY) {
        --b.math;
        if (!b.in_block) b.start(Block::Kind::paragraph);
        b.fresh_item = false;
        Span s{tex_to_unicode(b.math_text), b.bold > 0, b.italic > 0, false, true};
        b.blocks.back().spans.push_back(std::move(s));
    }
    return 0;
}

int text(MD_TEXTTYPE type, const MD_CHAR* chars, MD_SIZE size, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    std::string t(chars, size);
    if (type == MD_TEXT_SOFTBR || type == MD_TEXT_BR) t = b.blocks.empty() || b.blocks.back().kind != Block::Kind::code ? " " : "\n";
    if (type == MD_TEXT_NULLCHAR) t = "\xEF\xBF\xBD";
    if (b.math > 0) b.math_text += t;
    else b.add(t);
    return 0;
}

// Longest names first where one is a prefix of another (\leq before \le).
const std::pair<const char*, const char*> tex_symbols[] = {
    {"\\sqrt", "√"},   {"\\cdot", "·"},    {"\\times", "×"},  {"\\top", "ᵀ"},     {"\\infty", "∞"},  {"\\approx", "≈"},
    {"\\leq", "≤"},    {"\\geq", "≥"},     {"\\le", "≤"},     {"\\ge", "≥"},      {"\\neq", "≠"},    {"\\pm", "±"},
    {"\\to", "→"},     {"\\rightarrow", "→"}, {"\\sum", "Σ"}, {"\\alpha", "α"},   {"\\beta", "β"},   {"\\sigma", "σ"},
    {"\\mu", "μ"},     {"\\ldots", "…"},   {"\\dots", "…"},   {"\\quad", "  "},   {"\\,", " "},      {"\\;", " "},
    {"\\left", ""},    {"\\right", ""},    {"\\!", ""},       {"\\operatorname", ""}, {"\\text", ""}, {"\\mathrm", ""},
};

} // namespace

std::vector<Block> parse_markdown(const std::string& source) {
    Builder b;
    MD_PARSER parser{};
    parser.abi_version = 0;
    parser.flags = MD_FLAG_LATEXMATHSPANS | MD_FLAG_NOHTML;
    parser.enter_block = enter_block;
    parser.leave_block = leave_block;
    parser.enter_span = enter_span;
    parser.leave_span = leave_span;
    parser.text = text;
    if (md_parse(source.data(), static_cast<MD_SIZE>(source.size()), &parser, &b) != 0 || (b.blocks.empty() && !source.empty())) {
        Block whole;
        whole.spans.push_back(Span{source});
        return {whole};
    }
    return std::move(b.blocks);
}

std::string tex_to_unicode(const std::string& tex) {
    std::string out;
    for (size_t i = 0; i < tex.size();) {
        if (tex[i] == '{' || tex[i] == '}') {
            ++i;
            continue;
        }
        if (tex.compare(i, 5, "^\\top") == 0) {
            out += "ᵀ";
            i += 5;
            continue;
        }
        if (tex[i] == '\\') {
            bool known = false;
            for (const auto& [name, symbol] : tex_symbols) {
                const size_t len = std::strlen(name);
                const bool word_ends = i + len >= tex.size() || !std::isalpha(static_cast<unsigned char>(tex[i + len])) || !std::isalpha(static_cast<unsigned char>(name[1]));
                if (tex.compare(i, len, name) == 0 && word_ends) {
                    out += symbol;
                    i += len;
                    known = true;
                    break;
                }
            }
            if (!known) ++i; // an unknown command: drop the backslash, keep its name
            continue;
        }
        if (tex[i] == ' ' && !out.empty() && out.back() == ' ') {
            ++i; // "\, V": one space, not two
            continue;
        }
        out += tex[i++];
    }
    return out;
}

std::string plain_text(const std::vector<Block>& blocks) {
    std::string out;
    for (const Block& b : blocks) {
        out += std::string(static_cast<size_t>(2 * std::max(0, b.depth - 1)), ' ');
        if (b.kind == Block::Kind::bullet) out += "• ";
        if (b.kind == Block::Kind::numbered) out += std::to_string(b.number) + ". ";
        for (const Span& s : b.spans) out += s.text;
        out += "\n";
    }
    return out;
}

} // namespace core::learn
