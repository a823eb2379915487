// core/model/tokenizer/text.h — the text side of the tokenizer: UTF-8, Unicode classes and
// normalisation (utf8proc), regexes with Unicode classes (PCRE2), GPT-2's byte-to-character table, and
// a normalised string that remembers where each of its bytes came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace core::model::text {

using Span = std::pair<std::size_t, std::size_t>; // [begin, end) bytes of the original text

// A string being normalised: align[i] is the original span of the character byte i came from.
struct NString {
    std::string s;
    std::vector<Span> align;
    static NString of(const std::string& original, std::size_t offset); // identity alignment
    Span span(std::size_t b, std::size_t e) const;                      // original span of s[b, e)
    NString sub(std::size_t b, std::size_t e) const;
};

// One code point at s[i]; `len` gets its byte length. The string must be valid UTF-8.
char32_t decode_at(const std::string& s, std::size_t i, std::size_t& len);
void append_utf8(std::string& out, char32_t c);
std::size_t utf8_length(unsigned char lead); // 1..4 (1 for a continuation byte)
// At s[i]: the length of the valid UTF-8 sequence there (valid = true), or of the maximal invalid
// subpart that one replacement character stands for (valid = false).
std::size_t utf8_sequence(const std::string& s, std::size_t i, bool& valid);
// Bytes to text as Rust's String::from_utf8_lossy does: each maximal invalid subpart becomes U+FFFD.
std::string utf8_lossy(const std::string& bytes);

bool is_whitespace(char32_t c);   // Unicode White_Space
bool is_punctuation(char32_t c);  // ASCII punctuation or a P* category
bool is_control(char32_t c);      // a C* category other than \t \n \r
bool is_combining_mark(char32_t c); // Mn
bool is_cjk(char32_t c);          // the CJK ideograph blocks BERT spaces out
bool is_word_char(char32_t c);    // letter, mark, number or connector (\w)
bool is_numeric(char32_t c);      // Nd, Nl or No, as Rust's char::is_numeric
std::string lowercase(char32_t c); // full lower-case mapping

enum class Form { nfc, nfd, nfkc, nfkd };
void normalize(NString& n, Form form);
// Each character replaced by f(c) (zero or more characters), aligned to the character it came from.
template <class F> void map_chars(NString& n, F f);
void prepend(NString& n, const std::string& what); // aligned to the first character

// A compiled PCRE2 pattern in UTF + UCP mode. Throws std::runtime_error with PCRE2's message.
class Regex {
public:
    explicit Regex(const std::string& pattern, bool literal = false);
    ~Regex();
    Regex(const Regex&) = delete;
    Regex& operator=(const Regex&) = delete;
    // Every non-empty, non-overlapping match in s, left to right, as byte spans. Throws
    // TokenizerError when PCRE2 gives up (its match and depth limits).
    std::vector<std::pair<std::size_t, std::size_t>> find_all(const std::string& s) const;

private:
    struct Code;
    std::unique_ptr<Code> code_;
};

// GPT-2's table: each byte 0..255 as one printable character (UTF-8), and the way back.
const std::string& byte_char(unsigned char b);
int char_byte(char32_t c); // -1 if c is no byte's character

// The byte of a byte-fallback token "<0xNN>", or -1.
int fallback_byte(const std::string& token);

// GPT-2's pre-tokenizer pattern.
extern const char* const gpt2_pattern;

template <class F> void map_chars(NString& n, F f) {
    NString out;
    out.s.reserve(n.s.size());
    out.align.reserve(n.s.size());
    for (std::size_t i = 0; i < n.s.size();) {
        std::size_t len = 0;
        const char32_t c = decode_at(n.s, i, len);
        const std::string rep = f(c);
        const Span from{n.align[i].first, n.align[i + len - 1].second};
        out.s += rep;
        out.align.insert(out.align.end(), rep.size(), from);
        i += len;
    }
    n = std::move(out);
}

} // namespace core::model::text
