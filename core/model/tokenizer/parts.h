// core/model/tokenizer/parts.h — the steps of the tokenizer pipeline, as the tokenizers library
// names them: Normalizer, PreTokenizer, Model (here TokenizerModel: core::model::Model is the
// network), PostProcessor, Decoder; and the TokenizerImpl that holds one of each. Internal to
// core/model/tokenizer*.cpp.
#pragma once

#include "core/model/tokenizer/tokenizer.h"
#include "core/model/tokenizer/text.h"
#include "core/model/tokenizer/token_ids.h"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace core::model {

using text::NString;

struct Normalizer {
    virtual ~Normalizer() = default;
    virtual void apply(NString& n) const = 0;
};

// Splits each piece into smaller pieces (words).
struct PreTokenizer {
    virtual ~PreTokenizer() = default;
    virtual void apply(std::vector<NString>& pieces) const = 0;
};

struct Vocab {
    TokenIds ids;
    std::vector<std::string> strings; // by id; "" for ids no token has
    std::size_t longest = 0;          // bytes of the longest token
    int id(std::string_view token) const { return ids.find(token); }
    // token: id, as the file has it; false when the token had an id already (the new one wins).
    bool set(std::string_view token, std::size_t id) {
        if (id >= strings.size()) strings.resize(id + 1);
        strings[id] = token;
        longest = std::max(longest, token.size());
        return ids.set(token, static_cast<int>(id));
    }
};

// A token the model found in a word: its id and the bytes [b, e) of the word it covers.
struct WordToken {
    int id;
    std::size_t b, e;
};

struct TokenizerModel {
    virtual ~TokenizerModel() = default;
    virtual void tokenize(const std::string& word, const Vocab& vocab, std::vector<WordToken>& out) const = 0;
    virtual int unk_id(const Vocab&) const { return -1; }
};

// Turns the tokens' strings into text, step by step (a chain of decoders).
struct Decoder {
    virtual ~Decoder() = default;
    virtual void apply(std::vector<std::string>& tokens) const = 0;
};

// A key as a JSON pointer spells it: "~" as "~0", "/" as "~1".
inline std::string pointer_escape(const std::string& key) {
    std::string out;
    for (char c : key) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
    return out;
}

struct AddedToken {
    std::string content;
    int id = -1;
    bool special = false, lstrip = false, rstrip = false, single_word = false, normalized = false;
};

// One item of the single-sequence template: the text's tokens, or special tokens.
struct TemplateItem {
    bool sequence = false;
    std::vector<int> ids;
    std::vector<std::string> tokens;
};

struct TokenizerImpl {
    std::string source, kind;
    Vocab vocab; // the model's: what BPE and WordPiece look words up in
    std::vector<AddedToken> added;
    // The added tokens by string and by id; they win over the model's where they share either.
    std::unordered_map<std::string, int> added_ids;
    std::unordered_map<int, std::string> added_strings;
    int size = 0; // largest id + 1
    const std::string& string_of(int id) const {
        const auto it = added_strings.find(id);
        return it != added_strings.end() ? it->second : vocab.strings[static_cast<std::size_t>(id)];
    }
    int id_of(const std::string& token) const {
        const auto it = added_ids.find(token);
        return it != added_ids.end() ? it->second : vocab.id(token);
    }
    std::vector<bool> special; // by id
    std::unique_ptr<Normalizer> normalizer;
    std::unique_ptr<PreTokenizer> pre_tokenizer;
    std::unique_ptr<TokenizerModel> model;
    std::unique_ptr<Decoder> decoder;
    bool byte_level = false; // tokens spell bytes in GPT-2's table
    bool has_template = false;
    std::vector<TemplateItem> single; // the template for one sequence
    int bos = -1, eos = -1, unk = -1, pad = -1, cls = -1, sep = -1, mask = -1;

    // After the parts are in place: added tokens into the vocabulary, special ids, BOS/EOS/....
    void finish();
};

// [SECTION] the parts (steps.cpp, models.cpp)

std::unique_ptr<Normalizer> make_form_normalizer(text::Form form);
std::unique_ptr<Normalizer> make_lowercase();
std::unique_ptr<Normalizer> make_strip_accents();
std::unique_ptr<Normalizer> make_strip(bool left, bool right);
std::unique_ptr<Normalizer> make_replace(const std::string& pattern, bool regex, const std::string& content);
std::unique_ptr<Normalizer> make_prepend(const std::string& what);
std::unique_ptr<Normalizer> make_bert_normalizer(bool clean_text, bool chinese_chars, bool strip_accents, bool lowercase);
std::unique_ptr<Normalizer> make_normalizer_sequence(std::vector<std::unique_ptr<Normalizer>> steps);

enum class SplitBehavior { removed, isolated, merged_with_previous, merged_with_next, contiguous };
enum class Prepend { always, never, first };
std::unique_ptr<PreTokenizer> make_byte_level(bool add_prefix_space, bool use_regex);
std::unique_ptr<PreTokenizer> make_split(const std::string& pattern, bool regex, SplitBehavior behavior, bool invert);
std::unique_ptr<PreTokenizer> make_metaspace(const std::string& replacement, Prepend scheme, bool split);
std::unique_ptr<PreTokenizer> make_bert_pre_tokenizer();
std::unique_ptr<PreTokenizer> make_whitespace();       // \w+|[^\w\s]+
std::unique_ptr<PreTokenizer> make_whitespace_split(); // on whitespace
std::unique_ptr<PreTokenizer> make_digits(bool individual);
std::unique_ptr<PreTokenizer> make_punctuation(SplitBehavior behavior);
std::unique_ptr<PreTokenizer> make_pre_tokenizer_sequence(std::vector<std::unique_ptr<PreTokenizer>> steps);

struct BpeOptions {
    std::string unk_token, continuing_subword_prefix, end_of_word_suffix;
    bool fuse_unk = false, byte_fallback = false, ignore_merges = false;
};
// A merge whose parts or result are not in the vocabulary.
struct BadMerge : std::runtime_error {
    std::size_t index;
    BadMerge(std::size_t i, const std::string& what) : std::runtime_error(what), index(i) {}
};
// merges: pairs of token strings, in rank order. Throws BadMerge.
using MergeList = std::vector<std::pair<std::string_view, std::string_view>>;
std::unique_ptr<TokenizerModel> make_bpe(const Vocab& vocab, const MergeList& merges, BpeOptions options);
inline MergeList merge_views(const std::vector<std::pair<std::string, std::string>>& merges) {
    MergeList views;
    views.reserve(merges.size());
    for (const auto& [a, b] : merges) views.emplace_back(a, b);
    return views;
}
// SentencePiece's BPE by score (a GGUF file's "llama" vocabulary): scores by id; unk_id -1 for none.
std::unique_ptr<TokenizerModel> make_scored_bpe(std::vector<float> scores, int unk_id);
std::unique_ptr<TokenizerModel> make_wordpiece(const Vocab& vocab, std::string unk_token, std::string prefix, std::size_t max_chars);

std::unique_ptr<Decoder> make_byte_level_decoder();
std::unique_ptr<Decoder> make_metaspace_decoder(const std::string& replacement, bool strip_first);
std::unique_ptr<Decoder> make_byte_fallback_decoder();
std::unique_ptr<Decoder> make_fuse_decoder();
std::unique_ptr<Decoder> make_strip_decoder(const std::string& content, std::size_t start, std::size_t stop);
std::unique_ptr<Decoder> make_replace_decoder(const std::string& pattern, bool regex, const std::string& content);
std::unique_ptr<Decoder> make_wordpiece_decoder(const std::string& prefix, bool cleanup);
std::unique_ptr<Decoder> make_bpe_decoder(const std::string& suffix);
std::unique_ptr<Decoder> make_decoder_sequence(std::vector<std::unique_ptr<Decoder>> steps);

} // namespace core::model
