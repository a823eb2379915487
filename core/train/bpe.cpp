// core/train/bpe.cpp — learning, encoding and writing a byte-level BPE (see core/train/bpe.h).
//
// [SECTION] byte-level characters
// [SECTION] GPT-2's pre-tokenizer (PCRE2)
// [SECTION] learning the merges
// [SECTION] encoding and decoding
// [SECTION] tokenizer.json
#include "core/train/bpe.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <memory>

namespace core::train {

namespace {

std::uint64_t pair_key(int a, int b) { return static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32 | static_cast<std::uint32_t>(b); }

std::string utf8(unsigned cp) {
    std::string s;
    if (cp < 0x80) {
        s += static_cast<char>(cp);
    } else {
        s += static_cast<char>(0xC0 | (cp >> 6));
        s += static_cast<char>(0x80 | (cp & 0x3F));
    }
    return s;
}

// GPT-2's order of the bytes: the printable ones (! … ~, ¡ … ¬, ® … ÿ) keep their code point,
// the others take 256, 257, … in byte order.
std::vector<int> byte_order() {
    std::vector<int> order;
    for (int b = 0; b < 256; ++b)
        if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174)) order.push_back(b);
    for (int b = 0; b < 256; ++b)
        if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174))) order.push_back(b);
    return order;
}

} // namespace

// [SECTION] byte-level characters ----------------------------------------------------------------

const std::vector<std::string>& byte_level_chars() {
    static const std::vector<std::string> chars = [] {
        std::vector<std::string> c(256);
        unsigned extra = 256;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
            c[static_cast<std::size_t>(b)] = utf8(printable ? static_cast<unsigned>(b) : extra++);
        }
        return c;
    }();
    return chars;
}

// [SECTION] GPT-2's pre-tokenizer (PCRE2) ---------------------------------------------------------

namespace {

constexpr const char* gpt2_pattern = R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)";

struct Regex {
    pcre2_code* code = nullptr;
    Regex() {
        int error = 0;
        PCRE2_SIZE offset = 0;
        code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(gpt2_pattern), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr);
        if (code) pcre2_jit_compile(code, PCRE2_JIT_COMPLETE); // an interpreter fallback when JIT is unavailable
    }
    ~Regex() { pcre2_code_free(code); }
};

const Regex& gpt2_regex() {
    static const Regex r;
    return r;
}

} // namespace

void check_utf8(const std::string& text) {
    int error = 0;
    PCRE2_SIZE offset = 0;
    static pcre2_code* const empty = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(""), 0, PCRE2_UTF, &error, &offset, nullptr);
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> md(pcre2_match_data_create(1, nullptr), &pcre2_match_data_free);
    // PCRE2 checks the whole subject before its first match
    const int rc = pcre2_match(empty, reinterpret_cast<PCRE2_SPTR>(text.data()), text.size(), 0, 0, md.get(), nullptr);
    if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21)
        throw BpeError("invalid UTF-8 at byte " + std::to_string(pcre2_get_startchar(md.get())));
}

std::vector<std::string> gpt2_words(const std::string& text) {
    std::vector<std::string> words;
    const Regex& re = gpt2_regex();
    if (!re.code) throw BpeError("the pre-tokenizer's regex did not compile");
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> md(pcre2_match_data_create_from_pattern(re.code, nullptr),
                                                                          &pcre2_match_data_free);
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    PCRE2_SIZE at = 0;
    std::uint32_t options = 0; // UTF checked once, on the first match
    while (at < text.size()) {
        const int rc = pcre2_match(re.code, subject, text.size(), at, options, md.get(), nullptr);
        if (rc < 0) {
            if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21)
                throw BpeError("invalid UTF-8 at byte " + std::to_string(pcre2_get_startchar(md.get())));
            break; // no more words: the pattern matches any non-empty rest, so this is only the end
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
        if (ov[1] == ov[0]) break;
        words.emplace_back(text, ov[0], ov[1] - ov[0]);
        at = ov[1];
        options = PCRE2_NO_UTF_CHECK;
    }
    return words;
}

// [SECTION] learning the merges --------------------------------------------------------------------

Bpe::Bpe() : byte_id_(256, 0) {
    const std::vector<int> order = byte_order();
    for (std::size_t i = 0; i < order.size(); ++i) {
        tokens_.push_back(byte_level_chars()[static_cast<std::size_t>(order[i])]);
        byte_id_[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
    }
}

int Bpe::add_merge(int a, int b) {
    const std::string joined = tokens_[static_cast<std::size_t>(a)] + tokens_[static_cast<std::size_t>(b)];
    int id = -1;
    for (std::size_t i = 256; i < tokens_.size() && id < 0; ++i)
        if (tokens_[i] == joined) id = static_cast<int>(i);
    if (id < 0) {
        id = static_cast<int>(tokens_.size());
        tokens_.push_back(joined);
    }
    rank_[pair_key(a, b)] = {static_cast<int>(merges_.size()), id};
    merges_.emplace_back(a, b);
    return id;
}

namespace {

struct Word {
    std::vector<int> symbols;
    std::int64_t count = 0;
};

// Pair counts over all words, and which words hold each pair (a word may be listed more than once).
struct PairTable {
    std::unordered_map<std::uint64_t, std::int64_t> count;
    std::unordered_map<std::uint64_t, std::vector<int>> words;

    void add(const Word& w, int index, std::int64_t sign) {
        for (std::size_t i = 0; i + 1 < w.symbols.size(); ++i) {
            const std::uint64_t k = pair_key(w.symbols[i], w.symbols[i + 1]);
            count[k] += sign * w.count;
            if (sign > 0) words[k].push_back(index);
        }
    }
    // The most frequent pair (the smaller key on a tie), or 0 count when none occurs twice.
    std::pair<std::uint64_t, std::int64_t> best() {
        std::uint64_t key = 0;
        std::int64_t top = 1;
        for (auto it = count.begin(); it != count.end();) {
            if (it->second <= 0) { it = count.erase(it); continue; }
            if (it->second > top || (it->second == top && top > 1 && it->first < key)) { key = it->first; top = it->second; }
            ++it;
        }
        return {key, top > 1 ? top : 0};
    }
};

std::vector<int> merge_pair(const std::vector<int>& s, int a, int b, int merged) {
    std::vector<int> out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
            out.push_back(merged);
            ++i;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

} // namespace

Bpe Bpe::learn(const std::string& text, int merges) {
    Bpe bpe;
    std::map<std::string, std::int64_t> counts; // ordered: the same words in the same order on every run
    for (std::string& w : gpt2_words(text)) ++counts[w];
    std::vector<Word> words;
    for (const auto& [w, n] : counts) {
        Word word;
        for (unsigned char c : w) word.symbols.push_back(bpe.byte_id_[c]);
        word.count = n;
        words.push_back(std::move(word));
    }
    PairTable table;
    for (std::size_t i = 0; i < words.size(); ++i) table.add(words[i], static_cast<int>(i), +1);
    std::vector<int> stamp(words.size(), -1);
    for (int m = 0; m < merges; ++m) {
        const auto [key, n] = table.best();
        if (n == 0) break;
        const int a = static_cast<int>(key >> 32), b = static_cast<int>(key & 0xFFFFFFFFu);
        const int merged = bpe.add_merge(a, b);
        const std::vector<int> holders = std::move(table.words[key]);
        table.words.erase(key);
        for (int wi : holders) {
            if (stamp[static_cast<std::size_t>(wi)] == m) continue;
            stamp[static_cast<std::size_t>(wi)] = m;
            Word& w = words[static_cast<std::size_t>(wi)];
            table.add(w, wi, -1);
            w.symbols = merge_pair(w.symbols, a, b, merged);
            table.add(w, wi, +1);
        }
    }
    bpe.tokens_.push_back("<|endoftext|>");
    return bpe;
}

// [SECTION] encoding and decoding ------------------------------------------------------------------

// Merges the lowest-ranked adjacent pair, all its occurrences left to right, until none is a merge.
std::vector<int> Bpe::encode_word(const std::string& word) const {
    std::vector<int> s;
    for (unsigned char c : word) s.push_back(byte_id_[c]);
    while (s.size() > 1) {
        int best_rank = -1, a = 0, b = 0, merged = 0;
        for (std::size_t i = 0; i + 1 < s.size(); ++i) {
            const auto it = rank_.find(pair_key(s[i], s[i + 1]));
            if (it != rank_.end() && (best_rank < 0 || it->second.first < best_rank)) {
                best_rank = it->second.first;
                a = s[i];
                b = s[i + 1];
                merged = it->second.second;
            }
        }
        if (best_rank < 0) break;
        s = merge_pair(s, a, b, merged);
    }
    return s;
}

std::vector<int> Bpe::encode(const std::string& text) const {
    std::unordered_map<std::string, std::vector<int>> cache; // a corpus repeats its words
    std::vector<int> ids;
    for (const std::string& w : gpt2_words(text)) {
        auto it = cache.find(w);
        if (it == cache.end()) it = cache.emplace(w, encode_word(w)).first;
        ids.insert(ids.end(), it->second.begin(), it->second.end());
    }
    return ids;
}

std::string Bpe::decode(const std::vector<int>& ids) const {
    std::unordered_map<std::string, char> byte_of;
    for (int b = 0; b < 256; ++b) byte_of[byte_level_chars()[static_cast<std::size_t>(b)]] = static_cast<char>(b);
    std::string out;
    for (int id : ids) {
        if (id < 0 || id >= eos_id()) continue;
        const std::string& t = tokens_[static_cast<std::size_t>(id)];
        for (std::size_t i = 0; i < t.size();) {
            const std::size_t len = (static_cast<unsigned char>(t[i]) & 0x80) ? 2 : 1; // every character is below U+0800
            out += byte_of.at(t.substr(i, len));
            i += len;
        }
    }
    return out;
}

// [SECTION] tokenizer.json -------------------------------------------------------------------------

std::string Bpe::tokenizer_json() const {
    using json = nlohmann::ordered_json;
    const json byte_level = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
    json vocab = json::object();
    for (std::size_t i = 0; i < tokens_.size(); ++i) vocab[tokens_[i]] = i;
    json merges = json::array();
    for (const auto& [a, b] : merges_) merges.push_back(tokens_[static_cast<std::size_t>(a)] + " " + tokens_[static_cast<std::size_t>(b)]);
    json post = byte_level;
    post["trim_offsets"] = false;
    const json j = {
        {"version", "1.0"},
        {"truncation", nullptr},
        {"padding", nullptr},
        {"added_tokens", json::array({{{"id", eos_id()}, {"content", "<|endoftext|>"}, {"single_word", false}, {"lstrip", false},
                                        {"rstrip", false}, {"normalized", true}, {"special", true}}})},
        {"normalizer", nullptr},
        {"pre_tokenizer", byte_level},
        {"post_processor", post},
        {"decoder", byte_level},
        {"model", {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"continuing_subword_prefix", ""},
                   {"end_of_word_suffix", ""}, {"fuse_unk", false}, {"byte_fallback", false}, {"vocab", vocab}, {"merges", merges}}},
    };
    return j.dump(1) + "\n";
}

} // namespace core::train
