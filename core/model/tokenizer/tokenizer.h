// core/model/tokenizer/tokenizer.h — a model's tokenizer: Hugging Face tokenizer.json (BPE byte-level, BPE with
// Metaspace and byte fallback, WordPiece), GPT-2's older vocab.json + merges.txt, or a GGUF file's.
//
// The pipeline follows the Hugging Face tokenizers library: added tokens are split out first, the rest
// is normalised, pre-tokenised into words, each word goes through the model, then the post-processor
// adds BOS or [CLS] ... [SEP]. Decoding runs the file's decoder chain.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace core::model {

namespace gguf {
struct File;
}

// A tokenizer file that cannot be read, or text that cannot be tokenised: one line naming the file
// and the place (a JSON pointer, a line, a byte offset).
struct TokenizerError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Encoding {
    std::vector<int> ids;
    std::vector<std::string> tokens; // the vocabulary's strings ("Ġcat", "▁cat", "##s", "<0x0A>")
    // Byte ranges [begin, end) in the text given to encode(); (0, 0) for tokens the template adds.
    std::vector<std::pair<std::size_t, std::size_t>> offsets;
    std::vector<bool> special; // added by the template or a special added token
};

struct TokenizerImpl;

class Tokenizer {
public:
    Tokenizer() = default; // empty: vocab_size() 0; encode throws

    // Invalid UTF-8 throws TokenizerError naming the byte offset.
    Encoding encode(const std::string& text, bool add_special_tokens = true) const;
    std::vector<int> encode_ids(const std::string& text, bool add_special_tokens = true) const { return encode(text, add_special_tokens).ids; }
    // The text of `ids` through the file's decoder; ids out of range are skipped.
    std::string decode(const std::vector<int>& ids, bool skip_special_tokens = false) const;

    std::string token_string(int id) const;  // the vocabulary's string, "" when out of range
    std::string token_display(int id) const; // token_display(token_string(id))
    int token_id(const std::string& token) const; // -1 when absent
    int vocab_size() const;                  // largest id + 1, added tokens included
    bool is_special(int id) const;

    // -1 when the tokenizer has none.
    int bos_id() const;
    int eos_id() const;
    int unk_id() const;
    int pad_id() const;
    int cls_id() const;
    int sep_id() const;
    int mask_id() const;

    const std::string& source() const; // the file it was read from
    std::string kind() const;          // e.g. "BPE (byte-level)", "BPE (Metaspace, byte fallback)", "WordPiece"

    explicit Tokenizer(std::shared_ptr<const TokenizerImpl> impl) : impl_(std::move(impl)) {}

private:
    const TokenizerImpl& impl() const;
    std::shared_ptr<const TokenizerImpl> impl_;
};

// A model directory: its tokenizer.json, else vocab.json + merges.txt. A path to a tokenizer.json
// file works too.
Tokenizer load_tokenizer(const std::string& model_dir);
Tokenizer load_tokenizer_json(const std::string& path);
// `text` is the content of tokenizer.json; `name` is what messages call it.
Tokenizer parse_tokenizer_json(const std::string& text, const std::string& name);
// GPT-2's vocab.json + merges.txt, with GPT-2's pre-tokenizer regex and byte-level decoder.
Tokenizer load_gpt2_files(const std::string& vocab_json, const std::string& merges_txt);
Tokenizer parse_gpt2_files(const std::string& vocab_text, const std::string& merges_text, const std::string& vocab_name,
                           const std::string& merges_name);

// The tokenizer in a GGUF file's tokenizer.ggml.* metadata (core/model/tokenizer/gguf.cpp): "gpt2"
// (byte-level BPE with the pre-tokenizer tokenizer.ggml.pre names) or "llama" (SentencePiece's BPE
// by score, byte fallback), with BOS and EOS as add_bos_token and add_eos_token say. Throws
// TokenizerError, or core::io::FileError from the reader's getters, naming the file and the key.
Tokenizer gguf_tokenizer(const gguf::File& file);

// A token as a person reads it: a byte-level tokenizer's characters back to bytes, "<0x0A>" as its
// byte, spaces and "▁" as "␣", "##" kept, newlines as \n, control characters and bytes that are not
// UTF-8 as \xNN. E.g. "Ġcat" -> "␣cat", "▁cat" -> "␣cat", "Ċ" -> "\n", "ðŁ" -> "\xF0\x9F".
std::string token_display(const std::string& token, bool byte_level);

// The byte offset of the first invalid UTF-8 sequence in `text`, or npos.
std::size_t invalid_utf8_offset(const std::string& text);

} // namespace core::model
