// tokenizer.json as the Hugging Face tokenizers library writes it, into the parts of the pipeline.
// Every error names the file and the JSON pointer of the value that is wrong.
#include "core/model/tokenizer/parts.h"

#include "core/io/files.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace core::model {

using nlohmann::json;

namespace {

constexpr long max_token_id = 1L << 21; // far above any real vocabulary (about 256k)

struct Reader {
    std::string file;
    bool byte_level = false;
    bool byte_fallback = false;
    bool metaspace = false;

    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw TokenizerError(file + ": " + (where.empty() ? "/" : where) + ": " + what);
    }

    const json* get(const json& obj, const std::string& ptr, const char* key) const {
        if (!obj.is_object()) fail(ptr, "expected an object");
        const auto it = obj.find(key);
        return it == obj.end() || it->is_null() ? nullptr : &*it;
    }
    const json& need(const json& obj, const std::string& ptr, const char* key) const {
        const json* v = get(obj, ptr, key);
        if (!v) fail(ptr + "/" + key, "missing");
        return *v;
    }
    std::string str(const json& obj, const std::string& ptr, const char* key, const std::string& def) const {
        const json* v = get(obj, ptr, key);
        if (!v) return def;
        if (!v->is_string()) fail(ptr + "/" + key, "expected a string");
        return v->get<std::string>();
    }
    bool flag(const json& obj, const std::string& ptr, const char* key, bool def) const {
        const json* v = get(obj, ptr, key);
        if (!v) return def;
        if (!v->is_boolean()) fail(ptr + "/" + key, "expected true or false");
        return v->get<bool>();
    }
    long count(const json& obj, const std::string& ptr, const char* key, long def, long max) const {
        const json* v = get(obj, ptr, key);
        if (!v) return def;
        return number(*v, ptr + "/" + key, max);
    }
    long number(const json& v, const std::string& ptr, long max) const {
        if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > max)
            fail(ptr, "expected a whole number from 0 to " + std::to_string(max));
        return static_cast<long>(v.get<long long>());
    }
    const json& array(const json& obj, const std::string& ptr, const char* key) const {
        const json& v = need(obj, ptr, key);
        if (!v.is_array()) fail(ptr + "/" + key, "expected an array");
        return v;
    }
    std::string type(const json& obj, const std::string& ptr) const {
        const std::string t = str(obj, ptr, "type", "");
        if (t.empty()) fail(ptr + "/type", "missing");
        return t;
    }
    // {"String": "..."} or {"Regex": "..."}: the text and whether it is a regex.
    std::pair<std::string, bool> pattern(const json& obj, const std::string& ptr) const {
        const json& p = need(obj, ptr, "pattern");
        if (p.is_string()) return {p.get<std::string>(), false};
        if (const json* s = get(p, ptr + "/pattern", "String"); s && s->is_string()) return {s->get<std::string>(), false};
        if (const json* r = get(p, ptr + "/pattern", "Regex"); r && r->is_string()) return {r->get<std::string>(), true};
        fail(ptr + "/pattern", "expected {\"String\": ...} or {\"Regex\": ...}");
    }
    template <class F> auto with_regex(const std::string& ptr, F make) const {
        try {
            return make();
        } catch (const TokenizerError&) {
            throw;
        } catch (const std::runtime_error& e) {
            fail(ptr + "/pattern", e.what());
        }
    }
    // The parts of a "Sequence" under `key`, each read by read(item, its pointer); null ones left out.
    template <class Part, class Read>
    std::vector<std::unique_ptr<Part>> sequence(const json& j, const std::string& ptr, const char* key, Read read) const {
        std::vector<std::unique_ptr<Part>> parts;
        const json& list = array(j, ptr, key);
        for (std::size_t i = 0; i < list.size(); ++i)
            if (auto p = read(list[i], ptr + "/" + key + "/" + std::to_string(i))) parts.push_back(std::move(p));
        return parts;
    }
    [[noreturn]] void unsupported(const std::string& ptr, const std::string& what, const std::string& name, const char* supported) const {
        fail(ptr + "/type", "the " + what + " \"" + name + "\" is not supported (attnviz reads " + supported + ")");
    }

    std::unique_ptr<Normalizer> normalizer(const json& j, const std::string& ptr) const;
    std::unique_ptr<PreTokenizer> pre_tokenizer(const json& j, const std::string& ptr);
    std::unique_ptr<Decoder> decoder(const json& j, const std::string& ptr);
    std::unique_ptr<Model> model(const json& j, const std::string& ptr, TokenizerImpl& t);
    void vocab(const json& j, const std::string& ptr, Vocab& v) const;
    void added_tokens(const json& j, TokenizerImpl& t) const;
    std::vector<TemplateItem> post_processor(const json& j, const std::string& ptr, const TokenizerImpl& t) const;
};

// [SECTION] normalizers

std::unique_ptr<Normalizer> Reader::normalizer(const json& j, const std::string& ptr) const {
    if (j.is_null()) return nullptr;
    const std::string t = type(j, ptr);
    if (t == "BertNormalizer") {
        const bool lower = flag(j, ptr, "lowercase", true);
        return make_bert_normalizer(flag(j, ptr, "clean_text", true), flag(j, ptr, "handle_chinese_chars", true),
                                    flag(j, ptr, "strip_accents", lower), lower);
    }
    if (t == "NFC") return make_form_normalizer(text::Form::nfc);
    if (t == "NFD") return make_form_normalizer(text::Form::nfd);
    if (t == "NFKC") return make_form_normalizer(text::Form::nfkc);
    if (t == "NFKD") return make_form_normalizer(text::Form::nfkd);
    if (t == "Lowercase") return make_lowercase();
    if (t == "StripAccents") return make_strip_accents();
    if (t == "Strip") return make_strip(flag(j, ptr, "strip_left", true), flag(j, ptr, "strip_right", true));
    if (t == "Prepend") return make_prepend(str(j, ptr, "prepend", "\xE2\x96\x81"));
    if (t == "Replace") {
        const auto pat = pattern(j, ptr);
        const std::string content = str(j, ptr, "content", "");
        return with_regex(ptr, [&] { return make_replace(pat.first, pat.second, content); });
    }
    if (t == "Sequence")
        return make_normalizer_sequence(sequence<Normalizer>(j, ptr, "normalizers", [this](const json& n, const std::string& at) { return normalizer(n, at); }));
    unsupported(ptr, "normalizer", t, "BertNormalizer, NFC, NFD, NFKC, NFKD, Lowercase, StripAccents, Strip, Prepend, Replace, Sequence");
}

// [SECTION] pre-tokenizers

SplitBehavior behavior_of(const Reader& r, const json& j, const std::string& ptr, const char* def) {
    const std::string b = r.str(j, ptr, "behavior", def);
    if (b == "Removed") return SplitBehavior::removed;
    if (b == "Isolated") return SplitBehavior::isolated;
    if (b == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
    if (b == "MergedWithNext") return SplitBehavior::merged_with_next;
    if (b == "Contiguous") return SplitBehavior::contiguous;
    r.fail(ptr + "/behavior", "\"" + b + "\" is not Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
}

// The Metaspace replacement and prepend scheme, in the current and the older (add_prefix_space) form.
std::pair<std::string, Prepend> metaspace_of(const Reader& r, const json& j, const std::string& ptr) {
    const std::string rep = r.str(j, ptr, "replacement", r.str(j, ptr, "str_rep", "\xE2\x96\x81"));
    if (rep.empty() || text::utf8_length(static_cast<unsigned char>(rep[0])) != rep.size()) r.fail(ptr + "/replacement", "expected one character");
    Prepend scheme = r.flag(j, ptr, "add_prefix_space", true) ? Prepend::always : Prepend::never;
    if (r.get(j, ptr, "prepend_scheme")) {
        const std::string s = r.str(j, ptr, "prepend_scheme", "always");
        if (s == "always") scheme = Prepend::always;
        else if (s == "never") scheme = Prepend::never;
        else if (s == "first") scheme = Prepend::first;
        else r.fail(ptr + "/prepend_scheme", "\"" + s + "\" is not always, never or first");
    }
    return {rep, scheme};
}

std::unique_ptr<PreTokenizer> Reader::pre_tokenizer(const json& j, const std::string& ptr) {
    if (j.is_null()) return nullptr;
    const std::string t = type(j, ptr);
    if (t == "ByteLevel") {
        byte_level = true;
        return make_byte_level(flag(j, ptr, "add_prefix_space", true), flag(j, ptr, "use_regex", true));
    }
    if (t == "Split") {
        const auto pat = pattern(j, ptr);
        const SplitBehavior b = behavior_of(*this, j, ptr, "Isolated");
        const bool invert = flag(j, ptr, "invert", false);
        return with_regex(ptr, [&] { return make_split(pat.first, pat.second, b, invert); });
    }
    if (t == "Metaspace") {
        metaspace = true;
        const auto [rep, scheme] = metaspace_of(*this, j, ptr);
        return make_metaspace(rep, scheme, flag(j, ptr, "split", true));
    }
    if (t == "BertPreTokenizer") return make_bert_pre_tokenizer();
    if (t == "Whitespace") return make_whitespace();
    if (t == "WhitespaceSplit") return make_whitespace_split();
    if (t == "Digits") return make_digits(flag(j, ptr, "individual_digits", false));
    if (t == "Punctuation") return make_punctuation(behavior_of(*this, j, ptr, "Isolated"));
    if (t == "Sequence")
        return make_pre_tokenizer_sequence(sequence<PreTokenizer>(j, ptr, "pretokenizers", [this](const json& p, const std::string& at) { return pre_tokenizer(p, at); }));
    unsupported(ptr, "pre-tokenizer", t, "ByteLevel, Split, Metaspace, BertPreTokenizer, Whitespace, WhitespaceSplit, Digits, Punctuation, Sequence");
}

// [SECTION] decoders

std::unique_ptr<Decoder> Reader::decoder(const json& j, const std::string& ptr) {
    if (j.is_null()) return nullptr;
    const std::string t = type(j, ptr);
    if (t == "ByteLevel") {
        byte_level = true;
        return make_byte_level_decoder();
    }
    if (t == "Metaspace") {
        const auto [rep, scheme] = metaspace_of(*this, j, ptr);
        return make_metaspace_decoder(rep, scheme != Prepend::never);
    }
    if (t == "ByteFallback") return make_byte_fallback_decoder();
    if (t == "Fuse") return make_fuse_decoder();
    if (t == "Strip") {
        return make_strip_decoder(str(j, ptr, "content", " "), static_cast<std::size_t>(count(j, ptr, "start", 0, 1 << 20)),
                                  static_cast<std::size_t>(count(j, ptr, "stop", 0, 1 << 20)));
    }
    if (t == "Replace") {
        const auto pat = pattern(j, ptr);
        const std::string content = str(j, ptr, "content", "");
        return with_regex(ptr, [&] { return make_replace_decoder(pat.first, pat.second, content); });
    }
    if (t == "WordPiece") return make_wordpiece_decoder(str(j, ptr, "prefix", "##"), flag(j, ptr, "cleanup", true));
    if (t == "BPEDecoder") return make_bpe_decoder(str(j, ptr, "suffix", "</w>"));
    if (t == "Sequence")
        return make_decoder_sequence(sequence<Decoder>(j, ptr, "decoders", [this](const json& d, const std::string& at) { return decoder(d, at); }));
    unsupported(ptr, "decoder", t, "ByteLevel, Metaspace, ByteFallback, Fuse, Strip, Replace, WordPiece, BPEDecoder, Sequence");
}

// [SECTION] models

void Reader::vocab(const json& j, const std::string& ptr, Vocab& v) const {
    const json& map = need(j, ptr, "vocab");
    if (!map.is_object()) fail(ptr + "/vocab", "expected an object of token: id");
    v.ids.reserve(map.size());
    v.strings.reserve(map.size());
    for (auto it = map.begin(); it != map.end(); ++it) {
        const auto id = static_cast<std::size_t>(number(it.value(), ptr + "/vocab/" + pointer_escape(it.key()), max_token_id));
        if (id >= v.strings.size()) v.strings.resize(id + 1);
        v.strings[id] = it.key();
        v.ids[it.key()] = static_cast<int>(id);
    }
}

std::vector<std::pair<std::string, std::string>> merges_of(const Reader& r, const json& j, const std::string& ptr) {
    std::vector<std::pair<std::string, std::string>> merges;
    const json* list = r.get(j, ptr, "merges");
    if (!list) return merges;
    if (!list->is_array()) r.fail(ptr + "/merges", "expected an array");
    merges.reserve(list->size());
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& m = (*list)[i];
        const std::string at = ptr + "/merges/" + std::to_string(i);
        if (m.is_string()) {
            const std::string s = m.get<std::string>();
            const std::size_t space = s.find(' ');
            if (space == std::string::npos) r.fail(at, "expected \"left right\"");
            merges.emplace_back(s.substr(0, space), s.substr(space + 1));
        } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
            merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
        } else {
            r.fail(at, "expected \"left right\" or [\"left\", \"right\"]");
        }
    }
    return merges;
}

std::unique_ptr<Model> Reader::model(const json& j, const std::string& ptr, TokenizerImpl& t) {
    if (!j.is_object()) fail(ptr, "expected an object");
    std::string kind = str(j, ptr, "type", "");
    if (kind.empty()) kind = j.contains("merges") ? "BPE" : j.contains("max_input_chars_per_word") ? "WordPiece" : "";
    if (kind == "BPE") {
        vocab(j, ptr, t.vocab);
        BpeOptions o;
        o.unk_token = str(j, ptr, "unk_token", "");
        o.continuing_subword_prefix = str(j, ptr, "continuing_subword_prefix", "");
        o.end_of_word_suffix = str(j, ptr, "end_of_word_suffix", "");
        o.fuse_unk = flag(j, ptr, "fuse_unk", false);
        o.byte_fallback = byte_fallback = flag(j, ptr, "byte_fallback", false);
        o.ignore_merges = flag(j, ptr, "ignore_merges", false);
        if (const json* d = get(j, ptr, "dropout"); d && !d->is_number()) fail(ptr + "/dropout", "expected a number or null");
        try {
            return make_bpe(t.vocab, merges_of(*this, j, ptr), o);
        } catch (const BadMerge& e) {
            fail(ptr + "/merges/" + std::to_string(e.index), e.what());
        }
    }
    if (kind == "WordPiece") {
        vocab(j, ptr, t.vocab);
        return make_wordpiece(t.vocab, str(j, ptr, "unk_token", "[UNK]"), str(j, ptr, "continuing_subword_prefix", "##"),
                              static_cast<std::size_t>(count(j, ptr, "max_input_chars_per_word", 100, 1L << 30)));
    }
    if (kind.empty()) fail(ptr + "/type", "missing");
    unsupported(ptr, "model", kind, "BPE and WordPiece");
}

// [SECTION] added tokens and the post-processor

void Reader::added_tokens(const json& j, TokenizerImpl& t) const {
    const json* list = get(j, "", "added_tokens");
    if (!list) return;
    if (!list->is_array()) fail("/added_tokens", "expected an array");
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& a = (*list)[i];
        const std::string at = "/added_tokens/" + std::to_string(i);
        AddedToken tok;
        tok.id = static_cast<int>(number(need(a, at, "id"), at + "/id", max_token_id));
        tok.content = str(a, at, "content", "");
        if (tok.content.empty()) fail(at + "/content", "expected the token's text");
        tok.special = flag(a, at, "special", false);
        tok.lstrip = flag(a, at, "lstrip", false);
        tok.rstrip = flag(a, at, "rstrip", false);
        tok.single_word = flag(a, at, "single_word", false);
        tok.normalized = flag(a, at, "normalized", !tok.special);
        t.added.push_back(std::move(tok));
    }
}

// A special token of a post-processor, as [name, id].
TemplateItem pair_item(const Reader& r, const json& j, const std::string& ptr, const char* key) {
    const json& v = r.need(j, ptr, key);
    if (!v.is_array() || v.size() != 2 || !v[0].is_string()) r.fail(ptr + "/" + key, "expected [token, id]");
    TemplateItem item;
    item.ids.push_back(static_cast<int>(r.number(v[1], ptr + "/" + key + "/1", max_token_id)));
    item.tokens.push_back(v[0].get<std::string>());
    return item;
}

TemplateItem special_item(const Reader& r, const json& j, const std::string& ptr, const std::string& name) {
    const json* all = r.get(j, ptr, "special_tokens");
    const json* s = all && all->is_object() && all->contains(name) ? &(*all)[name] : nullptr;
    if (!s) r.fail(ptr + "/special_tokens", "has no entry for \"" + name + "\"");
    const std::string at = ptr + "/special_tokens/" + pointer_escape(name);
    const json& ids = r.array(*s, at, "ids");
    const json& tokens = r.array(*s, at, "tokens");
    if (ids.size() != tokens.size()) r.fail(at, "ids and tokens differ in length");
    TemplateItem item;
    for (std::size_t k = 0; k < ids.size(); ++k) {
        item.ids.push_back(static_cast<int>(r.number(ids[k], at + "/ids/" + std::to_string(k), max_token_id)));
        if (!tokens[k].is_string()) r.fail(at + "/tokens/" + std::to_string(k), "expected a string");
        item.tokens.push_back(tokens[k].get<std::string>());
    }
    return item;
}

// The single-sequence template, as items; nested Sequence processors wrap one another.
std::vector<TemplateItem> Reader::post_processor(const json& j, const std::string& ptr, const TokenizerImpl& t) const {
    TemplateItem seq;
    seq.sequence = true;
    if (j.is_null()) return {seq};
    const std::string kind = type(j, ptr);
    if (kind == "ByteLevel") return {seq};
    if (kind == "BertProcessing" || kind == "RobertaProcessing") return {pair_item(*this, j, ptr, "cls"), seq, pair_item(*this, j, ptr, "sep")};
    if (kind == "TemplateProcessing") {
        std::vector<TemplateItem> out;
        const json& single = array(j, ptr, "single");
        for (std::size_t i = 0; i < single.size(); ++i) {
            const std::string at = ptr + "/single/" + std::to_string(i);
            if (get(single[i], at, "Sequence")) out.push_back(seq);
            else if (const json* s = get(single[i], at, "SpecialToken")) out.push_back(special_item(*this, j, ptr, str(*s, at + "/SpecialToken", "id", "")));
            else fail(at, "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
        }
        return out;
    }
    if (kind == "Sequence") {
        std::vector<TemplateItem> out{seq};
        const json& list = array(j, ptr, "processors");
        for (std::size_t i = 0; i < list.size(); ++i) {
            std::vector<TemplateItem> wrapped;
            for (auto& item : post_processor(list[i], ptr + "/processors/" + std::to_string(i), t)) {
                if (item.sequence) wrapped.insert(wrapped.end(), out.begin(), out.end());
                else wrapped.push_back(std::move(item));
            }
            out = std::move(wrapped);
        }
        return out;
    }
    unsupported(ptr, "post-processor", kind, "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence");
}

std::string kind_of(const Reader& r, const json& model) {
    const std::string m = model.value("type", model.contains("merges") ? "BPE" : "WordPiece");
    if (m != "BPE") return m;
    std::string parts;
    if (r.byte_level) parts = "byte-level";
    if (r.metaspace) parts = "Metaspace";
    if (r.byte_fallback) parts += parts.empty() ? "byte fallback" : ", byte fallback";
    return parts.empty() ? "BPE" : "BPE (" + parts + ")";
}

} // namespace

Tokenizer parse_tokenizer_json(const std::string& content, const std::string& name) {
    json j;
    try {
        j = json::parse(content);
    } catch (const json::exception& e) { // parse_error, and out_of_range for a number like 1e999
        throw TokenizerError(name + ": not valid JSON: " + e.what());
    }
    Reader r{name};
    if (!j.is_object()) r.fail("", "expected an object");
    auto t = std::make_shared<TokenizerImpl>();
    t->source = name;
    try {
        t->model = r.model(r.need(j, "", "model"), "/model", *t);
        r.added_tokens(j, *t);
        t->normalizer = r.normalizer(j.value("normalizer", json()), "/normalizer");
        t->pre_tokenizer = r.pre_tokenizer(j.value("pre_tokenizer", json()), "/pre_tokenizer");
        t->decoder = r.decoder(j.value("decoder", json()), "/decoder");
        const json post = j.value("post_processor", json());
        t->single = r.post_processor(post, "/post_processor", *t);
        t->has_template = t->single.size() > 1;
        t->byte_level = r.byte_level;
        t->kind = kind_of(r, j["model"]);
    } catch (const json::exception& e) {
        r.fail("", e.what());
    }
    t->finish();
    return Tokenizer(t);
}

Tokenizer load_tokenizer_json(const std::string& path) {
    const std::optional<std::string> text = core::io::read_whole_file(path);
    if (!text) throw TokenizerError(path + ": cannot be read");
    return parse_tokenizer_json(*text, path);
}

} // namespace core::model
