#include "core/model/tokenizer/text.h"

#include "core/model/tokenizer/tokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <utf8proc.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <stdexcept>

namespace core::model::text {

// [SECTION] UTF-8 and the aligned string

std::size_t utf8_length(unsigned char lead) {
    if (lead >= 0xF0) return 4;
    if (lead >= 0xE0) return 3;
    if (lead >= 0xC0) return 2;
    return 1;
}

std::size_t utf8_sequence(const std::string& s, std::size_t i, bool& valid) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    valid = true;
    if (b0 < 0x80) return 1;
    std::size_t need = 0;
    unsigned char lo = 0x80, hi = 0xBF; // the range of the second byte
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 1;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 2;
        lo = b0 == 0xE0 ? 0xA0 : 0x80; // no overlong forms
        hi = b0 == 0xED ? 0x9F : 0xBF; // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 3;
        lo = b0 == 0xF0 ? 0x90 : 0x80;
        hi = b0 == 0xF4 ? 0x8F : 0xBF; // nothing above U+10FFFF
    } else {
        valid = false;
        return 1;
    }
    for (std::size_t k = 1; k <= need; ++k) {
        const auto b = i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
        if (i + k >= s.size() || b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) {
            valid = false;
            return k;
        }
    }
    return need + 1;
}

std::string utf8_lossy(const std::string& bytes) {
    std::string out;
    for (std::size_t i = 0; i < bytes.size();) {
        bool valid = false;
        const std::size_t len = utf8_sequence(bytes, i, valid);
        if (valid) out.append(bytes, i, len);
        else out += "\xEF\xBF\xBD";
        i += len;
    }
    return out;
}

char32_t decode_at(const std::string& s, std::size_t i, std::size_t& len) {
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
    len = utf8_length(b(0));
    if (i + len > s.size()) len = 1;
    switch (len) {
    case 2: return (char32_t(b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return (char32_t(b(0) & 0x0F) << 12) | (char32_t(b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    case 4: return (char32_t(b(0) & 0x07) << 18) | (char32_t(b(1) & 0x3F) << 12) | (char32_t(b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    default: return b(0);
    }
}

void append_utf8(std::string& out, char32_t c) {
    if (c < 0x80) {
        out += static_cast<char>(c);
    } else if (c < 0x800) {
        out += static_cast<char>(0xC0 | (c >> 6));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else if (c < 0x10000) {
        out += static_cast<char>(0xE0 | (c >> 12));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (c >> 18));
        out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (c & 0x3F));
    }
}

NString NString::of(const std::string& original, std::size_t offset) {
    NString n;
    n.s = original;
    n.align.resize(original.size());
    for (std::size_t i = 0; i < original.size();) {
        const std::size_t len = utf8_length(static_cast<unsigned char>(original[i]));
        for (std::size_t k = 0; k < len && i + k < original.size(); ++k) n.align[i + k] = {offset + i, offset + i + len};
        i += len;
    }
    return n;
}

Span NString::span(std::size_t b, std::size_t e) const {
    if (b >= e || e > align.size()) return {0, 0};
    return {align[b].first, align[e - 1].second};
}

NString NString::sub(std::size_t b, std::size_t e) const {
    NString n;
    n.s = s.substr(b, e - b);
    n.align.assign(align.begin() + static_cast<std::ptrdiff_t>(b), align.begin() + static_cast<std::ptrdiff_t>(e));
    return n;
}

void prepend(NString& n, const std::string& what) {
    const Span at = n.align.empty() ? Span{0, 0} : n.align.front();
    n.s.insert(0, what);
    n.align.insert(n.align.begin(), what.size(), at);
}

// [SECTION] Unicode classes

bool is_whitespace(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

static utf8proc_category_t category(char32_t c) { return utf8proc_category(static_cast<utf8proc_int32_t>(c)); }

bool is_punctuation(char32_t c) {
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)) return true;
    const auto k = category(c);
    return k == UTF8PROC_CATEGORY_PC || k == UTF8PROC_CATEGORY_PD || k == UTF8PROC_CATEGORY_PS || k == UTF8PROC_CATEGORY_PE ||
           k == UTF8PROC_CATEGORY_PI || k == UTF8PROC_CATEGORY_PF || k == UTF8PROC_CATEGORY_PO;
}

bool is_control(char32_t c) {
    if (c == '\t' || c == '\n' || c == '\r') return false;
    const auto k = category(c);
    return k == UTF8PROC_CATEGORY_CC || k == UTF8PROC_CATEGORY_CF || k == UTF8PROC_CATEGORY_CN || k == UTF8PROC_CATEGORY_CO ||
           k == UTF8PROC_CATEGORY_CS;
}

bool is_combining_mark(char32_t c) { return category(c) == UTF8PROC_CATEGORY_MN; }

bool is_cjk(char32_t c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_word_char(char32_t c) {
    const auto k = category(c);
    return (k >= UTF8PROC_CATEGORY_LU && k <= UTF8PROC_CATEGORY_ND) || k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_NO ||
           k == UTF8PROC_CATEGORY_PC || c == '_';
}

bool is_numeric(char32_t c) {
    const auto k = category(c);
    return k == UTF8PROC_CATEGORY_ND || k == UTF8PROC_CATEGORY_NL || k == UTF8PROC_CATEGORY_NO;
}

std::string lowercase(char32_t c) {
    std::string out;
    if (c == 0x130) { // the one full mapping that is longer than one character
        out = "i";
        append_utf8(out, 0x307);
        return out;
    }
    append_utf8(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(c))));
    return out;
}

// [SECTION] Normalisation forms

static std::string utf8proc_form(const std::string& s, Form form) {
    int options = UTF8PROC_STABLE;
    options |= (form == Form::nfc || form == Form::nfkc) ? UTF8PROC_COMPOSE : UTF8PROC_DECOMPOSE;
    if (form == Form::nfkc || form == Form::nfkd) options |= UTF8PROC_COMPAT;
    utf8proc_uint8_t* out = nullptr;
    const auto n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(s.data()), static_cast<utf8proc_ssize_t>(s.size()), &out,
                                static_cast<utf8proc_option_t>(options));
    if (n < 0) throw std::runtime_error(utf8proc_errmsg(n));
    std::string r(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
    std::free(out);
    return r;
}

// Normalised piece by piece (a starter and the marks after it) so that each output byte keeps the
// span it came from; where the pieces do not add up to the whole (compositions across starters, as
// of Hangul jamo) everything is aligned to the whole string.
void normalize(NString& n, Form form) {
    bool ascii = true;
    for (char ch : n.s) ascii = ascii && static_cast<unsigned char>(ch) < 0x80;
    if (ascii || n.s.empty()) return;
    const std::string whole = utf8proc_form(n.s, form);
    NString out;
    for (std::size_t i = 0; i < n.s.size();) {
        std::size_t j = i, len = 0;
        decode_at(n.s, j, len);
        j += len;
        while (j < n.s.size()) {
            const char32_t c = decode_at(n.s, j, len);
            if (utf8proc_get_property(static_cast<utf8proc_int32_t>(c))->combining_class == 0) break;
            j += len;
        }
        const std::string seg = n.s.substr(i, j - i), rep = utf8proc_form(seg, form);
        if (rep == seg) {
            out.align.insert(out.align.end(), n.align.begin() + static_cast<std::ptrdiff_t>(i), n.align.begin() + static_cast<std::ptrdiff_t>(j));
        } else { // the k-th character out keeps the k-th one in (the last one's when there are more), as the library does
            std::vector<Span> in;
            for (std::size_t k = i; k < j; k += len) decode_at(n.s, k, len), in.push_back(n.span(k, k + len));
            std::size_t c = 0;
            for (std::size_t k = 0; k < rep.size(); k += len, ++c) {
                decode_at(rep, k, len);
                out.align.insert(out.align.end(), len, in[std::min(c, in.size() - 1)]);
            }
        }
        out.s += rep;
        i = j;
    }
    if (out.s != whole) {
        out.s = whole;
        out.align.assign(whole.size(), n.span(0, n.s.size()));
    }
    n = std::move(out);
}

// [SECTION] Regexes

struct Regex::Code {
    pcre2_code* code = nullptr;
    pcre2_match_context* limits = nullptr;
    ~Code() {
        pcre2_match_context_free(limits);
        pcre2_code_free(code);
    }
};

Regex::Regex(const std::string& pattern, bool literal) : code_(std::make_unique<Code>()) {
    int err = 0;
    PCRE2_SIZE at = 0;
    const uint32_t options = PCRE2_UTF | (literal ? PCRE2_LITERAL : PCRE2_UCP);
    code_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(), options, &err, &at, nullptr);
    if (!code_->code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(err, msg, sizeof msg);
        throw std::runtime_error("bad regex at character " + std::to_string(at) + ": " + reinterpret_cast<const char*>(msg));
    }
    pcre2_jit_compile(code_->code, PCRE2_JIT_COMPLETE); // where JIT is unavailable the interpreter runs
    // A pattern that backtracks without end fails with a message instead of hanging.
    code_->limits = pcre2_match_context_create(nullptr);
    pcre2_set_match_limit(code_->limits, 1000000);
    pcre2_set_depth_limit(code_->limits, 10000);
}

Regex::~Regex() = default;

std::vector<std::pair<std::size_t, std::size_t>> Regex::find_all(const std::string& s) const {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    pcre2_match_data* md = pcre2_match_data_create_from_pattern(code_->code, nullptr);
    std::size_t start = 0;
    while (start <= s.size()) {
        const int rc = pcre2_match(code_->code, reinterpret_cast<PCRE2_SPTR>(s.data()), s.size(), start, PCRE2_NO_UTF_CHECK, md, code_->limits);
        if (rc == PCRE2_ERROR_NOMATCH) break;
        if (rc < 0) {
            pcre2_match_data_free(md);
            PCRE2_UCHAR msg[256];
            pcre2_get_error_message(rc, msg, sizeof msg);
            throw TokenizerError(std::string("a regex of the tokenizer gave up on the text: ") + reinterpret_cast<const char*>(msg));
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
        if (ov[1] > ov[0]) {
            out.emplace_back(ov[0], ov[1]);
            start = ov[1];
        } else { // an empty match: step over one character
            if (ov[0] >= s.size()) break;
            start = ov[0] + utf8_length(static_cast<unsigned char>(s[ov[0]]));
        }
    }
    pcre2_match_data_free(md);
    return out;
}

const char* const gpt2_pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

// [SECTION] GPT-2's byte table

namespace {
struct ByteTable {
    std::array<std::string, 256> chars;
    std::array<int, 324> back{};
    ByteTable() {
        back.fill(-1);
        int next = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
            const int c = printable ? b : next++;
            append_utf8(chars[static_cast<std::size_t>(b)], static_cast<char32_t>(c));
            back[static_cast<std::size_t>(c)] = b;
        }
    }
};
const ByteTable& table() {
    static const ByteTable t;
    return t;
}
} // namespace

int fallback_byte(const std::string& t) {
    if (t.size() != 6 || t.compare(0, 3, "<0x") != 0 || t[5] != '>') return -1;
    const auto hex = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    const int hi = hex(t[3]), lo = hex(t[4]);
    return hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
}

const std::string& byte_char(unsigned char b) { return table().chars[b]; }
int char_byte(char32_t c) { return c < 324 ? table().back[c] : -1; }

} // namespace core::model::text

namespace core::model {

std::size_t invalid_utf8_offset(const std::string& s) {
    for (std::size_t i = 0; i < s.size();) {
        bool valid = false;
        const std::size_t len = text::utf8_sequence(s, i, valid);
        if (!valid) return i;
        i += len;
    }
    return std::string::npos;
}

} // namespace core::model
