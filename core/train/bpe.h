// core/train/bpe.h — a byte-level BPE vocabulary that attnviz learns from a corpus, the way GPT-2's
// tokenizer works: the text is cut into words by GPT-2's regex, each word's UTF-8 bytes are the
// starting symbols, and the merges learned most-frequent-pair first join them.
//
// Token strings are byte-level: each byte is one printable character (GPT-2's bytes_to_unicode:
// the space is "Ġ", the newline "Ċ"), so that tokenizer.json can hold any byte sequence as text.
// Ids: 0 … 255 the bytes in GPT-2's order ("!" = 0), then one id per merge, then <|endoftext|>.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace core::train {

struct BpeError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class Bpe {
public:
    // Learns up to `merges` merges from `text` (fewer when no pair occurs twice). Throws BpeError
    // naming the byte offset of invalid UTF-8.
    static Bpe learn(const std::string& text, int merges);

    std::vector<int> encode(const std::string& text) const; // throws BpeError on invalid UTF-8
    std::string decode(const std::vector<int>& ids) const;  // <|endoftext|> decodes to nothing

    int vocab_size() const { return static_cast<int>(tokens_.size()); }
    int eos_id() const { return vocab_size() - 1; } // <|endoftext|>, also the BOS
    int merge_count() const { return static_cast<int>(merges_.size()); }
    const std::string& token(int id) const { return tokens_[static_cast<std::size_t>(id)]; }

    // The Hugging Face tokenizers file: model BPE (vocab, merges), pre_tokenizer and decoder
    // ByteLevel, <|endoftext|> as a special added token.
    std::string tokenizer_json() const;

private:
    std::vector<std::string> tokens_;               // by id, byte-level strings
    std::vector<std::pair<int, int>> merges_;       // by rank
    std::unordered_map<std::uint64_t, std::pair<int, int>> rank_; // pair → (rank, merged id)
    std::vector<int> byte_id_;                      // (256) byte → id

    Bpe();
    int add_merge(int a, int b); // the merged token's id
    std::vector<int> encode_word(const std::string& word) const;
};

// The words GPT-2's pre-tokenizer regex cuts `text` into ('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+|
// ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+); their concatenation is the text. Throws BpeError on invalid UTF-8.
std::vector<std::string> gpt2_words(const std::string& text);

// Throws BpeError naming the byte offset of the first invalid UTF-8 sequence in `text`.
void check_utf8(const std::string& text);

// GPT-2's byte → character table as UTF-8 strings (256 entries).
const std::vector<std::string>& byte_level_chars();

} // namespace core::train
