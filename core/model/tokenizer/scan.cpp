// The strict JSON scanner of core/model/tokenizer/scan.h.
#include "core/model/tokenizer/scan.h"

#include "core/model/tokenizer/text.h"

#include <cstring>

namespace core::model::scan {

namespace {

constexpr int max_depth = 256;

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The four hex digits at p as a code unit, or -1.
long hex4(const char* p, const char* end) {
    if (end - p < 4) return -1;
    long v = 0;
    for (int k = 0; k < 4; ++k) {
        const int d = hex_digit(p[k]);
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

// The length of the valid UTF-8 sequence at p (its lead byte at least 0x80), or 0.
std::size_t utf8_at(const unsigned char* p, const unsigned char* end) {
    const unsigned char c = p[0];
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF; // the range of the second byte
    if (c >= 0xC2 && c <= 0xDF) n = 2;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    else return 0;
    if (static_cast<std::size_t>(end - p) < n || p[1] < lo || p[1] > hi) return 0;
    for (std::size_t k = 2; k < n; ++k)
        if ((p[k] & 0xC0) != 0x80) return 0;
    return n;
}

} // namespace

bool Scanner::string(std::string_view& raw, bool& escaped) {
    if (p >= end || *p != '"') return false;
    const char* begin = ++p;
    escaped = false;
    while (p < end) {
        const auto c = static_cast<unsigned char>(*p);
        if (c == '"') {
            raw = std::string_view(begin, static_cast<std::size_t>(p - begin));
            ++p;
            return true;
        }
        if (c < 0x20) return false;
        if (c < 0x80 && c != '\\') {
            ++p;
            continue;
        }
        if (c >= 0x80) {
            const std::size_t n = utf8_at(reinterpret_cast<const unsigned char*>(p), reinterpret_cast<const unsigned char*>(end));
            if (n == 0) return false;
            p += n;
            continue;
        }
        escaped = true;
        if (++p >= end) return false;
        if (std::strchr("\"\\/bfnrt", *p) && *p) {
            ++p;
            continue;
        }
        if (*p != 'u') return false;
        const long u = hex4(p + 1, end);
        if (u < 0 || (u >= 0xDC00 && u <= 0xDFFF)) return false; // a low surrogate alone
        p += 5;
        if (u >= 0xD800 && u <= 0xDBFF) { // a high surrogate: its low one must follow
            if (end - p < 6 || p[0] != '\\' || p[1] != 'u') return false;
            const long low = hex4(p + 2, end);
            if (low < 0xDC00 || low > 0xDFFF) return false;
            p += 6;
        }
    }
    return false;
}

bool Scanner::number() {
    const auto digit = [this] { return p < end && *p >= '0' && *p <= '9'; };
    if (p < end && *p == '-') ++p;
    if (!digit()) return false;
    if (*p == '0') ++p;
    else while (digit()) ++p;
    if (p < end && *p == '.') {
        ++p;
        if (!digit()) return false;
        while (digit()) ++p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        ++p;
        if (p < end && (*p == '+' || *p == '-')) ++p;
        if (!digit()) return false;
        while (digit()) ++p;
    }
    return true;
}

bool Scanner::small_whole(long& n) {
    space();
    const char* begin = p;
    n = 0;
    while (p < end && *p >= '0' && *p <= '9' && p - begin < 10) n = n * 10 + (*p++ - '0');
    const std::ptrdiff_t digits = p - begin;
    if (digits == 0 || digits > 9 || (digits > 1 && *begin == '0')) return false;
    return p >= end || (*p != '.' && *p != 'e' && *p != 'E' && !(*p >= '0' && *p <= '9'));
}

bool Scanner::value() {
    space();
    if (p >= end) return false;
    std::string_view raw;
    bool escaped = false;
    const auto word = [this](const char* w) {
        const std::size_t n = std::strlen(w);
        if (static_cast<std::size_t>(end - p) < n || std::memcmp(p, w, n) != 0) return false;
        p += n;
        return true;
    };
    switch (*p) {
    case '"': return string(raw, escaped);
    case 't': return word("true");
    case 'f': return word("false");
    case 'n': return word("null");
    case '{':
    case '[': {
        const char close = *p == '{' ? '}' : ']';
        const bool object = close == '}';
        if (++depth > max_depth) return false;
        ++p;
        if (take(close)) return --depth, true;
        do {
            if (object && !(at('"') && string(raw, escaped) && take(':'))) return false;
            if (!value()) return false;
        } while (take(','));
        --depth;
        return take(close);
    }
    default: return number();
    }
}

bool Scanner::skip_nested() {
    int level = 0;
    while (p < end) {
        const char c = *p++;
        if (c == '"') {
            for (;;) { // to the quote that closes the string: one after an even run of backslashes
                const auto* q = static_cast<const char*>(std::memchr(p, '"', static_cast<std::size_t>(end - p)));
                if (!q) return false;
                const char* b = q;
                while (b > p && b[-1] == '\\') --b;
                p = q + 1;
                if ((q - b) % 2 == 0) break;
            }
        } else if (c == '[' || c == '{') {
            ++level;
        } else if (c == ']' || c == '}') {
            if (--level <= 0) return level == 0;
        }
    }
    return false;
}

namespace {

// The character a one-letter escape stands for: \b \f \n \r \t, and \" \\ \/ themselves.
char escaped_char(char e) {
    static constexpr char letters[] = "bfnrt", values[] = "\b\f\n\r\t";
    const char* at = e ? std::strchr(letters, e) : nullptr;
    return at ? values[at - letters] : e;
}

} // namespace

std::string unescape(std::string_view raw) {
    std::string out;
    out.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '\\') {
            out += raw[i];
            continue;
        }
        const char e = raw[++i];
        if (e != 'u') {
            out += escaped_char(e);
            continue;
        }
        char32_t c = static_cast<char32_t>(hex4(raw.data() + i + 1, raw.data() + raw.size()));
        i += 4;
        if (c >= 0xD800 && c <= 0xDBFF) {
            c = 0x10000 + ((c - 0xD800) << 10) + (static_cast<char32_t>(hex4(raw.data() + i + 3, raw.data() + raw.size())) - 0xDC00);
            i += 6;
        }
        text::append_utf8(out, c);
    }
    return out;
}

} // namespace core::model::scan
