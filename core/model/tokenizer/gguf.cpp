// core/model/tokenizer/gguf.cpp — the tokenizer a GGUF file carries in its tokenizer.ggml.* metadata,
// as llama.cpp's llama-vocab.cpp reads it, into the parts of the pipeline. One row of the table
// below for each tokenizer.ggml.model; one row of pre_rows for each family of tokenizer.ggml.pre.
#include "core/model/format/gguf.h"
#include "core/model/tokenizer/parts.h"

#include <optional>

namespace core::model {

namespace {

using gguf::File;

enum TokenType { normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 }; // ggml's

constexpr std::size_t max_tokens = 1u << 21;

[[noreturn]] void fail(const File& f, const char* key, const std::string& what) {
    throw TokenizerError(f.path + ": metadata key " + gguf::quote_name(key) + ": " + what);
}

// [SECTION] the pre-tokenizers of tokenizer.ggml.pre

// Hugging Face's spelling of the regexes llama.cpp splits by (its own are rewritten for its engine).
const char* const gpt2_regex = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
const char* const llama3_regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";
const char* const qwen2_regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

struct PreRow {
    std::vector<const char*> names;
    std::vector<const char*> regexes; // each splits the pieces in turn, keeping matches and gaps
    bool ignore_merges = false;       // a word that is a token is that token
    bool add_bos = false;             // llama.cpp's default when the file does not say
};

const std::vector<PreRow> pre_rows = {
    {{"default"}, {"[\\p{P}\\$\\+<=>\\^~\\|]+", "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)", "\\p{N}+", "[0-9][0-9][0-9]"}},
    {{"llama-bpe", "llama3", "llama-v3", "falcon3", "pixtral"}, {llama3_regex}, true, true},
    {{"qwen2", "deepseek-r1-qwen", "megrez", "stablelm2"}, {qwen2_regex}},
    {{"gpt-2", "phi-2", "roberta-bpe", "olmo", "mpt", "jais"}, {gpt2_regex}},
    {{"smollm", "starcoder", "refact", "command-r", "codeshell", "exaone", "minerva-7b"}, {"\\p{N}", gpt2_regex}},
};

const PreRow& pre_row(const File& f, const std::string& name) {
    std::string known;
    for (const PreRow& row : pre_rows) {
        for (const char* n : row.names)
            if (name == n) return row;
        known += (known.empty() ? "" : ", ") + std::string(row.names[0]);
    }
    fail(f, "tokenizer.ggml.pre", gguf::quote_name(name) + " is not a pre-tokenizer attnviz knows (it reads " + known + " and their kin)");
}

std::unique_ptr<PreTokenizer> pre_tokenizer(const PreRow& row) {
    std::vector<std::unique_ptr<PreTokenizer>> steps;
    for (const char* r : row.regexes) steps.push_back(make_split(r, true, SplitBehavior::isolated, false));
    steps.push_back(make_byte_level(false, false));
    return make_pre_tokenizer_sequence(std::move(steps));
}

// [SECTION] the vocabulary, special tokens and template

// tokenizer.ggml.tokens by id; the control, unknown and user-defined ones are added tokens too, split
// out of the text before the rest is tokenised (control and unknown ones special).
void read_tokens(const File& f, TokenizerImpl& t) {
    const std::vector<std::string> tokens = gguf::get_strings(f, "tokenizer.ggml.tokens");
    if (tokens.empty() || tokens.size() > max_tokens) fail(f, "tokenizer.ggml.tokens", std::to_string(tokens.size()) + " tokens (expected 1 to 2097152)");
    const auto types = gguf::find_i32s(f, "tokenizer.ggml.token_type");
    if (types && types->size() != tokens.size())
        fail(f, "tokenizer.ggml.token_type", std::to_string(types->size()) + " types for " + std::to_string(tokens.size()) + " tokens");
    t.vocab.ids.reserve(tokens.size());
    for (std::size_t id = 0; id < tokens.size(); ++id) {
        t.vocab.set(tokens[id], id);
        const int type = types ? (*types)[id] : normal;
        if (tokens[id].empty() || (type != control && type != unknown && type != user_defined)) continue;
        AddedToken a;
        a.content = tokens[id], a.id = static_cast<int>(id), a.special = type != user_defined;
        t.added.push_back(std::move(a));
    }
}

// An id the file names; nothing when it names none or no token (llama.cpp then keeps its default).
std::optional<int> token_key(const File& f, const char* key, std::size_t tokens) {
    const auto id = gguf::find_u64(f, key);
    return id && *id < tokens ? std::optional<int>(static_cast<int>(*id)) : std::nullopt;
}

TemplateItem special_item(const TokenizerImpl& t, int id) { return TemplateItem{false, {id}, {t.vocab.strings[static_cast<std::size_t>(id)]}}; }

// BOS and EOS as tokenizer.ggml.add_bos_token and add_eos_token say (else llama.cpp's default), and
// the special ids the file names over those finish() guesses from their strings.
void special_tokens(const File& f, TokenizerImpl& t, bool default_bos) {
    const std::size_t n = t.vocab.strings.size();
    const std::optional<int> bos = token_key(f, "tokenizer.ggml.bos_token_id", n), eos = token_key(f, "tokenizer.ggml.eos_token_id", n);
    const bool add_bos = gguf::find_bool(f, "tokenizer.ggml.add_bos_token").value_or(default_bos);
    const bool add_eos = gguf::find_bool(f, "tokenizer.ggml.add_eos_token").value_or(false);
    if (add_bos && !bos) fail(f, "tokenizer.ggml.add_bos_token", "true, but tokenizer.ggml.bos_token_id names no token");
    if (add_eos && !eos) fail(f, "tokenizer.ggml.add_eos_token", "true, but tokenizer.ggml.eos_token_id names no token");
    t.has_template = true;
    if (add_bos) t.single.push_back(special_item(t, *bos));
    t.single.push_back(TemplateItem{true, {}, {}});
    if (add_eos) t.single.push_back(special_item(t, *eos));
    t.finish();
    const std::pair<const char*, int*> keys[] = {{"tokenizer.ggml.bos_token_id", &t.bos},       {"tokenizer.ggml.eos_token_id", &t.eos},
                                                 {"tokenizer.ggml.unknown_token_id", &t.unk},   {"tokenizer.ggml.padding_token_id", &t.pad},
                                                 {"tokenizer.ggml.seperator_token_id", &t.sep}, {"tokenizer.ggml.cls_token_id", &t.cls},
                                                 {"tokenizer.ggml.mask_token_id", &t.mask}};
    for (const auto& [key, id] : keys)
        if (const auto v = token_key(f, key, n)) *id = *v;
}

// [SECTION] the models of tokenizer.ggml.model

// "gpt2": byte-level BPE from tokenizer.ggml.merges ("left right", by rank).
void byte_level_bpe(const File& f, TokenizerImpl& t) {
    read_tokens(f, t);
    const std::string pre = gguf::find_string(f, "tokenizer.ggml.pre").value_or("default");
    const PreRow& row = pre_row(f, pre);
    const std::vector<std::string> merges = gguf::get_strings(f, "tokenizer.ggml.merges");
    MergeList list;
    list.reserve(merges.size());
    for (std::size_t i = 0; i < merges.size(); ++i) {
        const std::size_t space = merges[i].find(' ', 1);
        if (space == std::string::npos) fail(f, "tokenizer.ggml.merges", "item " + std::to_string(i) + ": expected \"left right\"");
        const std::string_view m = merges[i];
        list.emplace_back(m.substr(0, space), m.substr(space + 1));
    }
    BpeOptions o;
    o.ignore_merges = row.ignore_merges;
    try {
        t.model = make_bpe(t.vocab, list, o);
    } catch (const BadMerge& e) {
        fail(f, "tokenizer.ggml.merges", "item " + std::to_string(e.index) + ": " + e.what());
    }
    t.pre_tokenizer = pre_tokenizer(row);
    t.decoder = make_byte_level_decoder();
    t.byte_level = true;
    t.kind = "BPE (byte-level, GGUF, pre-tokenizer " + pre + ")";
    special_tokens(f, t, row.add_bos);
}

// "llama": SentencePiece's BPE by tokenizer.ggml.scores, spaces as ▁ (one before the text unless
// tokenizer.ggml.add_space_prefix is false), byte fallback.
void sentencepiece_bpe(const File& f, TokenizerImpl& t) {
    read_tokens(f, t);
    std::vector<float> scores = gguf::find_f32s(f, "tokenizer.ggml.scores").value_or(std::vector<float>(t.vocab.strings.size(), 0.0f));
    if (scores.size() != t.vocab.strings.size())
        fail(f, "tokenizer.ggml.scores", std::to_string(scores.size()) + " scores for " + std::to_string(t.vocab.strings.size()) + " tokens");
    const int unk = token_key(f, "tokenizer.ggml.unknown_token_id", scores.size()).value_or(t.vocab.id("<unk>"));
    const bool prefix = gguf::find_bool(f, "tokenizer.ggml.add_space_prefix").value_or(true);
    const std::string space = "\xE2\x96\x81"; // ▁
    std::vector<std::unique_ptr<Normalizer>> norm;
    if (prefix) norm.push_back(make_prepend(space));
    norm.push_back(make_replace(" ", false, space));
    t.normalizer = make_normalizer_sequence(std::move(norm));
    t.model = make_scored_bpe(std::move(scores), unk);
    std::vector<std::unique_ptr<Decoder>> dec;
    dec.push_back(make_replace_decoder(space, false, " "));
    dec.push_back(make_byte_fallback_decoder());
    dec.push_back(make_fuse_decoder());
    if (prefix) dec.push_back(make_strip_decoder(" ", 1, 0));
    t.decoder = make_decoder_sequence(std::move(dec));
    t.kind = "SentencePiece BPE (GGUF, by score, byte fallback)";
    special_tokens(f, t, true);
}

struct GgufKind {
    const char* model; // tokenizer.ggml.model
    void (*read)(const File& f, TokenizerImpl& t);
};

const GgufKind gguf_kinds[] = {
    {"gpt2", byte_level_bpe},
    {"llama", sentencepiece_bpe},
};

} // namespace

Tokenizer gguf_tokenizer(const gguf::File& file) {
    const std::string model = gguf::get_string(file, "tokenizer.ggml.model");
    std::string known;
    for (const GgufKind& k : gguf_kinds) {
        if (model != k.model) {
            known += (known.empty() ? "" : " and ") + std::string(k.model);
            continue;
        }
        auto t = std::make_shared<TokenizerImpl>();
        t->source = file.path;
        k.read(file, *t);
        return Tokenizer(t);
    }
    fail(file, "tokenizer.ggml.model", gguf::quote_name(model) + " is not a tokenizer attnviz reads (it reads " + known + ")");
}

} // namespace core::model
