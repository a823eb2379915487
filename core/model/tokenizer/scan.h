// core/model/tokenizer/scan.h — a strict JSON scanner for the large parts of a tokenizer.json (the
// vocabulary and the merges), read straight from the file's text without building a document.
// It accepts only what the JSON grammar (RFC 8259) and valid UTF-8 allow; on anything else it
// says no and json.cpp reads the file with the full parser, whose error names the place.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace core::model::scan {

struct Scanner {
    const char* p;
    const char* end;
    int depth = 0; // nesting, bounded so that a deep file cannot exhaust the stack

    explicit Scanner(std::string_view text) : p(text.data()), end(text.data() + text.size()) {}

    void space() {
        while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
    }
    bool at(char c) {
        space();
        return p < end && *p == c;
    }
    bool take(char c) {
        if (!at(c)) return false;
        ++p;
        return true;
    }
    // One value of any kind, checked and passed over.
    bool value();
    // An array or object at p passed over by its brackets and quotes alone, unchecked: for a part
    // that a strict reader reads afterwards.
    bool skip_nested();
    // A string at p: `raw` gets the bytes between the quotes, `escaped` whether any is an escape.
    bool string(std::string_view& raw, bool& escaped);
    bool number();
    // A whole number of at most 9 digits with no sign, fraction or exponent.
    bool small_whole(long& n);
};

// A string's raw bytes with their escapes resolved (the bytes were checked by Scanner::string).
std::string unescape(std::string_view raw);

} // namespace core::model::scan
