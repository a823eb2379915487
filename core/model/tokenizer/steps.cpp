// The normalizers, pre-tokenizers and decoders of tokenizer.json, with the tokenizers library's
// semantics.
#include "core/model/tokenizer/parts.h"

#include <algorithm>

namespace core::model {

using text::NString;
using text::Span;

namespace {

// [SECTION] splitting a piece into regions

struct Region {
    std::size_t b, e;
    bool match;
};

// The matches and the gaps between them, in order.
std::vector<Region> regions_of(const std::string& s, const std::vector<std::pair<std::size_t, std::size_t>>& matches, bool invert) {
    std::vector<Region> out;
    std::size_t at = 0;
    for (const auto& m : matches) {
        if (m.first > at) out.push_back({at, m.first, invert});
        out.push_back({m.first, m.second, !invert});
        at = m.second;
    }
    if (at < s.size()) out.push_back({at, s.size(), invert});
    return out;
}

std::vector<Region> apply_behavior(const std::vector<Region>& regions, SplitBehavior behavior) {
    std::vector<Region> acc;
    bool previous = false;
    switch (behavior) {
    case SplitBehavior::removed:
        for (const auto& r : regions)
            if (!r.match) acc.push_back(r);
        return acc;
    case SplitBehavior::isolated: return regions;
    case SplitBehavior::merged_with_previous:
        for (const auto& r : regions) {
            if (r.match && !previous && !acc.empty()) acc.back().e = r.e;
            else acc.push_back(r);
            previous = r.match;
        }
        return acc;
    case SplitBehavior::merged_with_next:
        for (auto it = regions.rbegin(); it != regions.rend(); ++it) {
            if (it->match && !previous && !acc.empty()) acc.back().b = it->b;
            else acc.push_back(*it);
            previous = it->match;
        }
        std::reverse(acc.begin(), acc.end());
        return acc;
    case SplitBehavior::contiguous:
        for (const auto& r : regions) {
            if (r.match == previous && !acc.empty()) acc.back().e = r.e;
            else acc.push_back(r);
            previous = r.match;
        }
        return acc;
    }
    return acc;
}

void split_into(const NString& n, const std::vector<std::pair<std::size_t, std::size_t>>& matches, SplitBehavior behavior, bool invert,
                std::vector<NString>& out) {
    for (const auto& r : apply_behavior(regions_of(n.s, matches, invert), behavior))
        if (r.e > r.b) out.push_back(n.sub(r.b, r.e));
}

// Each character for which pred holds, as one match.
template <class P> std::vector<std::pair<std::size_t, std::size_t>> char_matches(const std::string& s, P pred) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    for (std::size_t i = 0; i < s.size();) {
        std::size_t len = 0;
        const char32_t c = text::decode_at(s, i, len);
        if (pred(c)) out.emplace_back(i, i + len);
        i += len;
    }
    return out;
}

template <class F> void each_piece(std::vector<NString>& pieces, F split) {
    std::vector<NString> out;
    for (const auto& p : pieces) split(p, out);
    pieces = std::move(out);
}

std::string utf8(char32_t c) {
    std::string s;
    text::append_utf8(s, c);
    return s;
}

// [SECTION] normalizers

struct FormNormalizer : Normalizer {
    text::Form form;
    explicit FormNormalizer(text::Form f) : form(f) {}
    void apply(NString& n) const override { text::normalize(n, form); }
};

struct Lowercase : Normalizer {
    void apply(NString& n) const override { text::map_chars(n, text::lowercase); }
};

struct StripAccents : Normalizer {
    void apply(NString& n) const override {
        text::map_chars(n, [](char32_t c) { return text::is_combining_mark(c) ? std::string() : utf8(c); });
    }
};

struct Strip : Normalizer {
    bool left, right;
    Strip(bool l, bool r) : left(l), right(r) {}
    void apply(NString& n) const override {
        std::size_t b = 0, e = n.s.size(), len = 0;
        while (left && b < e && text::is_whitespace(text::decode_at(n.s, b, len))) b += len;
        while (right && e > b) {
            std::size_t k = e - 1;
            while (k > b && (static_cast<unsigned char>(n.s[k]) & 0xC0) == 0x80) --k;
            if (!text::is_whitespace(text::decode_at(n.s, k, len))) break;
            e = k;
        }
        n = n.sub(b, e);
    }
};

struct Replace : Normalizer {
    text::Regex pattern;
    std::string content;
    Replace(const std::string& p, bool regex, std::string c) : pattern(p, !regex), content(std::move(c)) {}
    void apply(NString& n) const override {
        NString out;
        std::size_t at = 0;
        for (const auto& m : pattern.find_all(n.s)) {
            out.s.append(n.s, at, m.first - at);
            out.align.insert(out.align.end(), n.align.begin() + static_cast<std::ptrdiff_t>(at), n.align.begin() + static_cast<std::ptrdiff_t>(m.first));
            out.s += content;
            out.align.insert(out.align.end(), content.size(), n.span(m.first, m.second));
            at = m.second;
        }
        out.s.append(n.s, at, std::string::npos);
        out.align.insert(out.align.end(), n.align.begin() + static_cast<std::ptrdiff_t>(at), n.align.end());
        n = std::move(out);
    }
};

struct PrependNormalizer : Normalizer {
    std::string what;
    explicit PrependNormalizer(std::string w) : what(std::move(w)) {}
    void apply(NString& n) const override {
        if (!n.s.empty()) text::prepend(n, what);
    }
};

// BERT's: control characters out, whitespace to spaces, CJK ideographs spaced, accents stripped
// (after NFD), lower case; in that order.
struct BertNormalizer : Normalizer {
    bool clean, chinese, strip, lower;
    BertNormalizer(bool c, bool z, bool s, bool l) : clean(c), chinese(z), strip(s), lower(l) {}
    void apply(NString& n) const override {
        if (clean)
            text::map_chars(n, [](char32_t c) {
                if (c == 0 || c == 0xFFFD || text::is_control(c)) return std::string();
                return text::is_whitespace(c) ? std::string(" ") : utf8(c);
            });
        if (chinese) text::map_chars(n, [](char32_t c) { return text::is_cjk(c) ? " " + utf8(c) + " " : utf8(c); });
        if (strip) {
            text::normalize(n, text::Form::nfd);
            StripAccents().apply(n);
        }
        if (lower) Lowercase().apply(n);
    }
};

struct NormalizerSequence : Normalizer {
    std::vector<std::unique_ptr<Normalizer>> steps;
    void apply(NString& n) const override {
        for (const auto& s : steps) s->apply(n);
    }
};

// [SECTION] pre-tokenizers

struct ByteLevel : PreTokenizer {
    bool prefix_space, use_regex;
    text::Regex gpt2{text::gpt2_pattern};
    ByteLevel(bool p, bool r) : prefix_space(p), use_regex(r) {}
    void apply(std::vector<NString>& pieces) const override {
        each_piece(pieces, [&](const NString& p, std::vector<NString>& out) {
            NString n = p;
            if (prefix_space && (n.s.empty() || n.s[0] != ' ')) text::prepend(n, " ");
            if (use_regex) split_into(n, gpt2.find_all(n.s), SplitBehavior::isolated, false, out);
            else if (!n.s.empty()) out.push_back(std::move(n));
        });
        for (auto& n : pieces) { // every byte as its printable character
            NString m;
            for (std::size_t i = 0; i < n.s.size(); ++i) {
                const std::string& c = text::byte_char(static_cast<unsigned char>(n.s[i]));
                m.s += c;
                m.align.insert(m.align.end(), c.size(), n.align[i]);
            }
            n = std::move(m);
        }
    }
};

struct Split : PreTokenizer {
    text::Regex pattern;
    SplitBehavior behavior;
    bool invert;
    Split(const std::string& p, bool regex, SplitBehavior b, bool i) : pattern(p, !regex), behavior(b), invert(i) {}
    void apply(std::vector<NString>& pieces) const override {
        each_piece(pieces, [&](const NString& p, std::vector<NString>& out) { split_into(p, pattern.find_all(p.s), behavior, invert, out); });
    }
};

struct Metaspace : PreTokenizer {
    std::string replacement;
    Prepend scheme;
    bool split;
    Replace spaces;
    text::Regex marker;
    Metaspace(std::string r, Prepend s, bool sp) : replacement(r), scheme(s), split(sp), spaces(" ", false, r), marker(r, true) {}
    void apply(std::vector<NString>& pieces) const override {
        each_piece(pieces, [&](const NString& p, std::vector<NString>& out) {
            NString n = p;
            spaces.apply(n);
            const bool starts = n.s.compare(0, replacement.size(), replacement) == 0;
            const bool first = !p.align.empty() && p.align.front().first == 0;
            if (!starts && (scheme == Prepend::always || (scheme == Prepend::first && first))) text::prepend(n, replacement);
            if (split) split_into(n, marker.find_all(n.s), SplitBehavior::merged_with_next, false, out);
            else if (!n.s.empty()) out.push_back(std::move(n));
        });
    }
};

struct BertPreTokenizer : PreTokenizer {
    void apply(std::vector<NString>& pieces) const override {
        each_piece(pieces, [](const NString& p, std::vector<NString>& out) {
            split_into(p, char_matches(p.s, text::is_whitespace), SplitBehavior::removed, false, out);
        });
        each_piece(pieces, [](const NString& p, std::vector<NString>& out) {
            split_into(p, char_matches(p.s, text::is_punctuation), SplitBehavior::isolated, false, out);
        });
    }
};

struct CharSplit : PreTokenizer {
    bool (*pred)(char32_t);
    SplitBehavior behavior;
    CharSplit(bool (*p)(char32_t), SplitBehavior b) : pred(p), behavior(b) {}
    void apply(std::vector<NString>& pieces) const override {
        each_piece(pieces, [&](const NString& p, std::vector<NString>& out) { split_into(p, char_matches(p.s, pred), behavior, false, out); });
    }
};

struct PreTokenizerSequence : PreTokenizer {
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    void apply(std::vector<NString>& pieces) const override {
        for (const auto& s : steps) s->apply(pieces);
    }
};

// [SECTION] decoders

struct ByteLevelDecoder : Decoder {
    void apply(std::vector<std::string>& tokens) const override {
        std::string bytes;
        for (const auto& t : tokens) {
            std::string mine;
            bool all = true;
            for (std::size_t i = 0; i < t.size() && all;) {
                std::size_t len = 0;
                const int b = text::char_byte(text::decode_at(t, i, len));
                all = b >= 0;
                mine += static_cast<char>(b);
                i += len;
            }
            bytes += all ? mine : t;
        }
        tokens = {text::utf8_lossy(bytes)};
    }
};

std::string replace_all(const std::string& s, const std::string& from, const std::string& to) {
    if (from.empty() || s.find(from) == std::string::npos) return s;
    std::string out;
    std::size_t at = 0;
    for (std::size_t k; (k = s.find(from, at)) != std::string::npos; at = k + from.size()) out.append(s, at, k - at) += to;
    return out.append(s, at, std::string::npos);
}

struct MetaspaceDecoder : Decoder {
    std::string replacement;
    bool strip_first;
    MetaspaceDecoder(std::string r, bool s) : replacement(std::move(r)), strip_first(s) {}
    void apply(std::vector<std::string>& tokens) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = replace_all(tokens[i], replacement, i == 0 && strip_first ? "" : " ");
    }
};

struct ByteFallbackDecoder : Decoder {
    void apply(std::vector<std::string>& tokens) const override {
        std::vector<std::string> out;
        std::string pending;
        const auto flush = [&] {
            if (pending.empty()) return;
            if (invalid_utf8_offset(pending) == std::string::npos) out.push_back(pending);
            else out.insert(out.end(), pending.size(), "\xEF\xBF\xBD");
            pending.clear();
        };
        for (auto& t : tokens) {
            const int b = text::fallback_byte(t);
            if (b >= 0) {
                pending += static_cast<char>(b);
                continue;
            }
            flush();
            out.push_back(std::move(t));
        }
        flush();
        tokens = std::move(out);
    }
};

struct FuseDecoder : Decoder {
    void apply(std::vector<std::string>& tokens) const override {
        std::string all;
        for (const auto& t : tokens) all += t;
        tokens = {all};
    }
};

struct StripDecoder : Decoder {
    std::string content;
    std::size_t start, stop;
    StripDecoder(std::string c, std::size_t b, std::size_t e) : content(std::move(c)), start(b), stop(e) {}
    void apply(std::vector<std::string>& tokens) const override {
        if (content.empty()) return;
        for (auto& t : tokens) {
            std::size_t b = 0, e = t.size();
            for (std::size_t k = 0; k < start && t.compare(b, content.size(), content) == 0; ++k) b += content.size();
            for (std::size_t k = 0; k < stop && e >= b + content.size() && t.compare(e - content.size(), content.size(), content) == 0; ++k)
                e -= content.size();
            t = t.substr(b, e - b);
        }
    }
};

struct ReplaceDecoder : Decoder {
    Replace replace;
    ReplaceDecoder(const std::string& p, bool regex, const std::string& c) : replace(p, regex, c) {}
    void apply(std::vector<std::string>& tokens) const override {
        for (auto& t : tokens) {
            NString n = NString::of(t, 0);
            replace.apply(n);
            t = n.s;
        }
    }
};

std::string wordpiece_cleanup(std::string s) {
    static const std::pair<const char*, const char*> rules[] = {{" .", "."},   {" ?", "?"},   {" !", "!"},         {" ,", ","},
                                                                 {" ' ", "'"}, {" n't", "n't"}, {" 'm", "'m"},     {" do not", " don't"},
                                                                 {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& r : rules) s = replace_all(s, r.first, r.second);
    return s;
}

struct WordPieceDecoder : Decoder {
    std::string prefix;
    bool cleanup;
    WordPieceDecoder(std::string p, bool c) : prefix(std::move(p)), cleanup(c) {}
    void apply(std::vector<std::string>& tokens) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            auto& t = tokens[i];
            if (i != 0) {
                const std::size_t at = prefix.empty() ? std::string::npos : t.find(prefix);
                if (t.compare(0, prefix.size(), prefix) == 0 && at != std::string::npos) t.erase(at, prefix.size());
                else t = " " + t;
            }
            if (cleanup) t = wordpiece_cleanup(t);
        }
    }
};

struct BpeDecoder : Decoder {
    std::string suffix;
    explicit BpeDecoder(std::string s) : suffix(std::move(s)) {}
    void apply(std::vector<std::string>& tokens) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] = replace_all(tokens[i], suffix, i + 1 == tokens.size() ? "" : " ");
    }
};

struct DecoderSequence : Decoder {
    std::vector<std::unique_ptr<Decoder>> steps;
    void apply(std::vector<std::string>& tokens) const override {
        for (const auto& s : steps) s->apply(tokens);
    }
};

} // namespace

std::unique_ptr<Normalizer> make_form_normalizer(text::Form form) { return std::make_unique<FormNormalizer>(form); }
std::unique_ptr<Normalizer> make_lowercase() { return std::make_unique<Lowercase>(); }
std::unique_ptr<Normalizer> make_strip_accents() { return std::make_unique<StripAccents>(); }
std::unique_ptr<Normalizer> make_strip(bool left, bool right) { return std::make_unique<Strip>(left, right); }
std::unique_ptr<Normalizer> make_replace(const std::string& pattern, bool regex, const std::string& content) {
    return std::make_unique<Replace>(pattern, regex, content);
}
std::unique_ptr<Normalizer> make_prepend(const std::string& what) { return std::make_unique<PrependNormalizer>(what); }
std::unique_ptr<Normalizer> make_bert_normalizer(bool clean_text, bool chinese_chars, bool strip_accents, bool lowercase) {
    return std::make_unique<BertNormalizer>(clean_text, chinese_chars, strip_accents, lowercase);
}
std::unique_ptr<Normalizer> make_normalizer_sequence(std::vector<std::unique_ptr<Normalizer>> steps) {
    auto s = std::make_unique<NormalizerSequence>();
    s->steps = std::move(steps);
    return s;
}

std::unique_ptr<PreTokenizer> make_byte_level(bool add_prefix_space, bool use_regex) { return std::make_unique<ByteLevel>(add_prefix_space, use_regex); }
std::unique_ptr<PreTokenizer> make_split(const std::string& pattern, bool regex, SplitBehavior behavior, bool invert) {
    return std::make_unique<Split>(pattern, regex, behavior, invert);
}
std::unique_ptr<PreTokenizer> make_metaspace(const std::string& replacement, Prepend scheme, bool split) {
    return std::make_unique<Metaspace>(replacement, scheme, split);
}
std::unique_ptr<PreTokenizer> make_bert_pre_tokenizer() { return std::make_unique<BertPreTokenizer>(); }
std::unique_ptr<PreTokenizer> make_whitespace() { return std::make_unique<Split>(R"(\w+|[^\w\s]+)", true, SplitBehavior::removed, true); }
std::unique_ptr<PreTokenizer> make_whitespace_split() { return std::make_unique<CharSplit>(text::is_whitespace, SplitBehavior::removed); }
std::unique_ptr<PreTokenizer> make_digits(bool individual) {
    return std::make_unique<CharSplit>(text::is_numeric, individual ? SplitBehavior::isolated : SplitBehavior::contiguous);
}
std::unique_ptr<PreTokenizer> make_punctuation(SplitBehavior behavior) { return std::make_unique<CharSplit>(text::is_punctuation, behavior); }
std::unique_ptr<PreTokenizer> make_pre_tokenizer_sequence(std::vector<std::unique_ptr<PreTokenizer>> steps) {
    auto s = std::make_unique<PreTokenizerSequence>();
    s->steps = std::move(steps);
    return s;
}

std::unique_ptr<Decoder> make_byte_level_decoder() { return std::make_unique<ByteLevelDecoder>(); }
std::unique_ptr<Decoder> make_metaspace_decoder(const std::string& replacement, bool strip_first) {
    return std::make_unique<MetaspaceDecoder>(replacement, strip_first);
}
std::unique_ptr<Decoder> make_byte_fallback_decoder() { return std::make_unique<ByteFallbackDecoder>(); }
std::unique_ptr<Decoder> make_fuse_decoder() { return std::make_unique<FuseDecoder>(); }
std::unique_ptr<Decoder> make_strip_decoder(const std::string& content, std::size_t start, std::size_t stop) {
    return std::make_unique<StripDecoder>(content, start, stop);
}
std::unique_ptr<Decoder> make_replace_decoder(const std::string& pattern, bool regex, const std::string& content) {
    return std::make_unique<ReplaceDecoder>(pattern, regex, content);
}
std::unique_ptr<Decoder> make_wordpiece_decoder(const std::string& prefix, bool cleanup) { return std::make_unique<WordPieceDecoder>(prefix, cleanup); }
std::unique_ptr<Decoder> make_bpe_decoder(const std::string& suffix) { return std::make_unique<BpeDecoder>(suffix); }
std::unique_ptr<Decoder> make_decoder_sequence(std::vector<std::unique_ptr<Decoder>> steps) {
    auto s = std::make_unique<DecoderSequence>();
    s->steps = std::move(steps);
    return s;
}

} // namespace core::model
