// core/model/tokenizer/pipeline.cpp — the pipeline of core/model/tokenizer/tokenizer.h: added tokens split
// out, normalise, pre-tokenise, model, template; and decoding. The parts are in steps.cpp
// and models.cpp, the files in json.cpp and gpt2.cpp.
#include "core/model/tokenizer/parts.h"

#include <algorithm>
#include <array>
#include <cstdio>

namespace core::model {

using text::NString;

namespace {

// [SECTION] added tokens

// A piece of the text: an added token already (id >= 0), or text still to tokenise.
struct Segment {
    int id = -1;
    bool special = false;
    NString n;
};

bool word_before(const std::string& s, std::size_t at) {
    if (at == 0) return false;
    std::size_t k = at - 1, len = 0;
    while (k > 0 && (static_cast<unsigned char>(s[k]) & 0xC0) == 0x80) --k;
    return text::is_word_char(text::decode_at(s, k, len));
}

bool word_after(const std::string& s, std::size_t at) {
    std::size_t len = 0;
    return at < s.size() && text::is_word_char(text::decode_at(s, at, len));
}

// Splits `n` on the added tokens in `tokens` (contents as matched), leftmost-longest as the library's
// automaton does, with single_word, lstrip and rstrip.
void split_added(const NString& n, const std::vector<const AddedToken*>& tokens, const std::vector<std::string>& contents,
                 std::vector<Segment>& out) {
    const std::string& s = n.s;
    // The tokens by their first byte, in their order: Gemma 3 has 6k added tokens, and each place
    // in the text needs only those that start with its byte.
    std::array<std::vector<std::size_t>, 256> starting;
    for (std::size_t t = 0; t < tokens.size(); ++t)
        if (!contents[t].empty()) starting[static_cast<unsigned char>(contents[t][0])].push_back(t);
    std::size_t done = 0; // bytes of s already in `out`
    for (std::size_t at = 0; at < s.size();) {
        std::size_t best = tokens.size(), best_len = 0;
        for (const std::size_t t : starting[static_cast<unsigned char>(s[at])])
            if (contents[t].size() > best_len && s.compare(at, contents[t].size(), contents[t]) == 0) best = t, best_len = contents[t].size();
        const AddedToken* tok = best < tokens.size() ? tokens[best] : nullptr;
        std::size_t start = at, stop = at + best_len;
        if (!tok || (tok->single_word && (word_before(s, start) || word_after(s, stop)))) {
            at += text::utf8_length(static_cast<unsigned char>(s[at]));
            continue;
        }
        std::size_t len = 0;
        if (tok->lstrip) {
            std::size_t k = start;
            while (k > done) {
                std::size_t c = k - 1;
                while (c > done && (static_cast<unsigned char>(s[c]) & 0xC0) == 0x80) --c;
                if (!text::is_whitespace(text::decode_at(s, c, len))) break;
                k = c;
            }
            start = k;
        }
        while (tok->rstrip && stop < s.size() && text::is_whitespace(text::decode_at(s, stop, len))) stop += len;
        if (start > done) out.push_back({-1, false, n.sub(done, start)});
        out.push_back({tok->id, tok->special, n.sub(start, stop)});
        done = at = stop;
    }
    if (done < s.size() || (s.empty() && out.empty())) out.push_back({-1, false, n.sub(done, s.size())});
}

} // namespace

// [SECTION] encode

static void tokenize_words(const TokenizerImpl& t, NString piece, Encoding& enc) {
    std::vector<NString> words;
    words.push_back(std::move(piece));
    if (t.pre_tokenizer) t.pre_tokenizer->apply(words);
    std::vector<WordToken> found;
    for (const auto& w : words) {
        if (w.s.empty()) continue;
        found.clear();
        t.model->tokenize(w.s, t.vocab, found);
        for (const auto& f : found) {
            enc.ids.push_back(f.id);
            enc.tokens.push_back(t.vocab.strings[static_cast<std::size_t>(f.id)]);
            enc.offsets.push_back(w.span(f.b, f.e));
            enc.special.push_back(false);
        }
    }
}

static Encoding encode_text(const TokenizerImpl& t, const std::string& input) {
    std::vector<const AddedToken*> raw, normalized;
    std::vector<std::string> raw_text, normalized_text;
    for (const auto& a : t.added) {
        if (a.content.empty()) continue;
        if (a.normalized) {
            NString c = NString::of(a.content, 0);
            if (t.normalizer) t.normalizer->apply(c);
            if (c.s.empty()) continue;
            normalized.push_back(&a), normalized_text.push_back(c.s);
        } else {
            raw.push_back(&a), raw_text.push_back(a.content);
        }
    }
    std::vector<Segment> first, second;
    split_added(NString::of(input, 0), raw, raw_text, first);
    for (auto& seg : first) {
        if (seg.id >= 0) {
            second.push_back(std::move(seg));
            continue;
        }
        if (t.normalizer) t.normalizer->apply(seg.n);
        split_added(seg.n, normalized, normalized_text, second);
    }
    Encoding enc;
    for (auto& seg : second) {
        if (seg.id < 0) {
            tokenize_words(t, std::move(seg.n), enc);
            continue;
        }
        enc.ids.push_back(seg.id);
        enc.tokens.push_back(t.string_of(seg.id));
        enc.offsets.push_back(seg.n.span(0, seg.n.s.size()));
        enc.special.push_back(seg.special);
    }
    return enc;
}

static Encoding apply_template(const TokenizerImpl& t, Encoding body) {
    Encoding out;
    for (const auto& item : t.single) {
        if (item.sequence) {
            out.ids.insert(out.ids.end(), body.ids.begin(), body.ids.end());
            out.tokens.insert(out.tokens.end(), body.tokens.begin(), body.tokens.end());
            out.offsets.insert(out.offsets.end(), body.offsets.begin(), body.offsets.end());
            out.special.insert(out.special.end(), body.special.begin(), body.special.end());
            continue;
        }
        for (std::size_t k = 0; k < item.ids.size(); ++k) {
            out.ids.push_back(item.ids[k]);
            out.tokens.push_back(item.tokens[k]);
            out.offsets.emplace_back(0, 0);
            out.special.push_back(true);
        }
    }
    return out;
}

Encoding Tokenizer::encode(const std::string& input, bool add_special_tokens) const {
    const TokenizerImpl& t = impl();
    const std::size_t bad = invalid_utf8_offset(input);
    if (bad != std::string::npos) throw TokenizerError("the text is not valid UTF-8: byte " + std::to_string(bad) + " (0x" +
                                                       "0123456789ABCDEF"[static_cast<unsigned char>(input[bad]) >> 4] +
                                                       "0123456789ABCDEF"[static_cast<unsigned char>(input[bad]) & 15] + ")");
    Encoding enc = encode_text(t, input);
    return add_special_tokens && t.has_template ? apply_template(t, std::move(enc)) : enc;
}

// [SECTION] decode and the vocabulary

std::string Tokenizer::decode(const std::vector<int>& ids, bool skip_special_tokens) const {
    const TokenizerImpl& t = impl();
    std::vector<std::string> tokens;
    for (int id : ids) {
        if (id < 0 || id >= vocab_size() || t.string_of(id).empty()) continue;
        if (skip_special_tokens && t.special[static_cast<std::size_t>(id)]) continue;
        tokens.push_back(t.string_of(id));
    }
    std::string out;
    if (!t.decoder) {
        for (std::size_t i = 0; i < tokens.size(); ++i) out += (i ? " " : "") + tokens[i];
        return out;
    }
    t.decoder->apply(tokens);
    for (const auto& s : tokens) out += s;
    return out;
}

const TokenizerImpl& Tokenizer::impl() const {
    if (!impl_) throw TokenizerError("no tokenizer is loaded");
    return *impl_;
}

std::string Tokenizer::token_string(int id) const {
    if (!impl_ || id < 0 || id >= vocab_size()) return "";
    return impl_->string_of(id);
}

std::string Tokenizer::token_display(int id) const { return core::model::token_display(token_string(id), impl_ && impl_->byte_level); }
int Tokenizer::token_id(const std::string& token) const { return impl_ ? impl_->id_of(token) : -1; }
int Tokenizer::vocab_size() const { return impl_ ? impl_->size : 0; }
bool Tokenizer::is_special(int id) const { return impl_ && id >= 0 && id < vocab_size() && impl_->special[static_cast<std::size_t>(id)]; }
int Tokenizer::bos_id() const { return impl_ ? impl_->bos : -1; }
int Tokenizer::eos_id() const { return impl_ ? impl_->eos : -1; }
int Tokenizer::unk_id() const { return impl_ ? impl_->unk : -1; }
int Tokenizer::pad_id() const { return impl_ ? impl_->pad : -1; }
int Tokenizer::cls_id() const { return impl_ ? impl_->cls : -1; }
int Tokenizer::sep_id() const { return impl_ ? impl_->sep : -1; }
int Tokenizer::mask_id() const { return impl_ ? impl_->mask : -1; }
const std::string& Tokenizer::source() const { return impl().source; }
std::string Tokenizer::kind() const { return impl_ ? impl_->kind : ""; }

void TokenizerImpl::finish() {
    size = static_cast<int>(vocab.strings.size());
    for (const auto& a : added) {
        if (a.id < 0) continue;
        if (a.id >= size) {
            size = a.id + 1;
            vocab.strings.resize(static_cast<std::size_t>(size)); // the model's own strings for these ids are ""
        }
        added_strings[a.id] = a.content;
        added_ids[a.content] = a.id;
    }
    special.assign(static_cast<std::size_t>(size), false);
    for (const auto& a : added)
        if (a.special && a.id >= 0) special[static_cast<std::size_t>(a.id)] = true;
    const auto first_of = [&](std::initializer_list<const char*> names) {
        for (const char* n : names)
            if (id_of(n) >= 0) return id_of(n);
        return -1;
    };
    unk = model ? model->unk_id(vocab) : -1;
    cls = first_of({"[CLS]", "<cls>"});
    sep = first_of({"[SEP]", "<sep>"});
    mask = first_of({"[MASK]", "<mask>"});
    pad = first_of({"[PAD]", "<pad>", "<|pad|>"});
    eos = first_of({"</s>", "<eos>", "<|end_of_text|>", "<|endoftext|>"});
    bos = first_of({"<s>", "<bos>", "<|begin_of_text|>", "<|endoftext|>", "<|startoftext|>"});
    if (has_template && !single.empty() && !single.front().sequence && !single.front().ids.empty()) {
        const int first = single.front().ids.front();
        if (first != cls) bos = first;
    }
}

// [SECTION] display

// Byte-level tokens are read as their bytes, "<0xNN>" as its byte; then spaces and "▁" become "␣",
// newlines and tabs escapes, other control characters and bytes that are not UTF-8 \xNN.
std::string token_display(const std::string& token, bool byte_level) {
    std::string s = token;
    if (byte_level) {
        std::string bytes;
        for (std::size_t i = 0, len = 0; i < token.size() && byte_level; i += len) {
            const int b = text::char_byte(text::decode_at(token, i, len));
            byte_level = b >= 0;
            bytes += static_cast<char>(b);
        }
        if (byte_level) s = bytes;
    }
    if (const int b = text::fallback_byte(token); b >= 0) s = std::string(1, static_cast<char>(b));
    std::string out;
    char hex[8];
    for (std::size_t i = 0; i < s.size();) {
        bool valid = false;
        const std::size_t len = text::utf8_sequence(s, i, valid);
        std::size_t l2 = 0;
        const char32_t c = valid ? text::decode_at(s, i, l2) : 0xFFFD;
        if (c == ' ' || c == 0x2581) out += "\xE2\x90\xA3"; // ␣
        else if (c == '\n') out += "\\n";
        else if (c == '\t') out += "\\t";
        else if (c == '\r') out += "\\r";
        else if (!valid || c < 0x20 || c == 0x7F) {
            for (std::size_t k = 0; k < len; ++k) std::snprintf(hex, sizeof hex, "\\x%02X", static_cast<unsigned char>(s[i + k])), out += hex;
        } else out.append(s, i, len);
        i += len;
    }
    return out;
}

} // namespace core::model
