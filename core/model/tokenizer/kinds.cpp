// The table of tokenizer.json kinds: each model, normalizer, pre-tokenizer, post-processor and
// decoder type with its reader. A new kind is one row here and its reader (and its part in
// steps.cpp or models.cpp); the messages that list what attnviz reads come from these rows.
#include "core/model/tokenizer/reader.h"

namespace core::model {

namespace {

using R = Reader&;
using J = const json&;
using P = const std::string&;

// [SECTION] normalizers

std::unique_ptr<Normalizer> bert_normalizer(R r, J j, P ptr) {
    const bool lower = r.flag(j, ptr, "lowercase", true);
    return make_bert_normalizer(r.flag(j, ptr, "clean_text", true), r.flag(j, ptr, "handle_chinese_chars", true),
                                r.flag(j, ptr, "strip_accents", lower), lower);
}

std::unique_ptr<Normalizer> replace_normalizer(R r, J j, P ptr) {
    const auto pat = r.pattern(j, ptr);
    const std::string content = r.str(j, ptr, "content", "");
    return r.with_regex(ptr, [&] { return make_replace(pat.first, pat.second, content); });
}

// [SECTION] pre-tokenizers

SplitBehavior behavior_of(R r, J j, P ptr, const char* def) {
    const std::string b = r.str(j, ptr, "behavior", def);
    if (b == "Removed") return SplitBehavior::removed;
    if (b == "Isolated") return SplitBehavior::isolated;
    if (b == "MergedWithPrevious") return SplitBehavior::merged_with_previous;
    if (b == "MergedWithNext") return SplitBehavior::merged_with_next;
    if (b == "Contiguous") return SplitBehavior::contiguous;
    r.fail(ptr + "/behavior", "\"" + b + "\" is not Removed, Isolated, MergedWithPrevious, MergedWithNext or Contiguous");
}

// The Metaspace replacement and prepend scheme, in the current and the older (add_prefix_space) form.
std::pair<std::string, Prepend> metaspace_of(R r, J j, P ptr) {
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

std::unique_ptr<PreTokenizer> split_pre_tokenizer(R r, J j, P ptr) {
    const auto pat = r.pattern(j, ptr);
    const SplitBehavior b = behavior_of(r, j, ptr, "Isolated");
    const bool invert = r.flag(j, ptr, "invert", false);
    return r.with_regex(ptr, [&] { return make_split(pat.first, pat.second, b, invert); });
}

std::unique_ptr<PreTokenizer> metaspace_pre_tokenizer(R r, J j, P ptr) {
    r.metaspace = true;
    const auto [rep, scheme] = metaspace_of(r, j, ptr);
    return make_metaspace(rep, scheme, r.flag(j, ptr, "split", true));
}

// [SECTION] decoders

std::unique_ptr<Decoder> strip_decoder(R r, J j, P ptr) {
    return make_strip_decoder(r.str(j, ptr, "content", " "), static_cast<std::size_t>(r.count(j, ptr, "start", 0, 1 << 20)),
                              static_cast<std::size_t>(r.count(j, ptr, "stop", 0, 1 << 20)));
}

std::unique_ptr<Decoder> replace_decoder(R r, J j, P ptr) {
    const auto pat = r.pattern(j, ptr);
    const std::string content = r.str(j, ptr, "content", "");
    return r.with_regex(ptr, [&] { return make_replace_decoder(pat.first, pat.second, content); });
}

// [SECTION] models

void read_vocab(R r, J j, P ptr, Vocab& v) {
    const json& map = r.need(j, ptr, "vocab");
    if (!map.is_object()) r.fail(ptr + "/vocab", "expected an object of token: id");
    v.ids.reserve(map.size());
    v.strings.reserve(map.size());
    for (auto it = map.begin(); it != map.end(); ++it) {
        v.set(it.key(), static_cast<std::size_t>(r.number(it.value(), ptr + "/vocab/" + pointer_escape(it.key()), max_token_id)));
    }
}

std::vector<std::pair<std::string, std::string>> merges_of(R r, J j, P ptr) {
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

std::unique_ptr<TokenizerModel> bpe_model(R r, J j, P ptr) {
    if (!r.ahead || !r.ahead->vocab) read_vocab(r, j, ptr, r.t->vocab);
    BpeOptions o;
    o.unk_token = r.str(j, ptr, "unk_token", "");
    o.continuing_subword_prefix = r.str(j, ptr, "continuing_subword_prefix", "");
    o.end_of_word_suffix = r.str(j, ptr, "end_of_word_suffix", "");
    o.fuse_unk = r.flag(j, ptr, "fuse_unk", false);
    o.byte_fallback = r.byte_fallback = r.flag(j, ptr, "byte_fallback", false);
    o.ignore_merges = r.flag(j, ptr, "ignore_merges", false);
    if (const json* d = r.get(j, ptr, "dropout"); d && !d->is_number()) r.fail(ptr + "/dropout", "expected a number or null");
    try {
        if (r.ahead && r.ahead->merges) return make_bpe(r.t->vocab, r.ahead->merge_list, o);
        const auto merges = merges_of(r, j, ptr);
        return make_bpe(r.t->vocab, merge_views(merges), o);
    } catch (const BadMerge& e) {
        r.fail(ptr + "/merges/" + std::to_string(e.index), e.what());
    }
}

std::unique_ptr<TokenizerModel> wordpiece_model(R r, J j, P ptr) {
    if (!r.ahead || !r.ahead->vocab) read_vocab(r, j, ptr, r.t->vocab);
    return make_wordpiece(r.t->vocab, r.str(j, ptr, "unk_token", "[UNK]"), r.str(j, ptr, "continuing_subword_prefix", "##"),
                          static_cast<std::size_t>(r.count(j, ptr, "max_input_chars_per_word", 100, 1L << 30)));
}

// [SECTION] post-processors

TemplateItem sequence_item() {
    TemplateItem seq;
    seq.sequence = true;
    return seq;
}

// A special token of a post-processor, as [name, id].
TemplateItem pair_item(R r, J j, P ptr, const char* key) {
    const json& v = r.need(j, ptr, key);
    if (!v.is_array() || v.size() != 2 || !v[0].is_string()) r.fail(ptr + "/" + key, "expected [token, id]");
    TemplateItem item;
    item.ids.push_back(static_cast<int>(r.number(v[1], ptr + "/" + key + "/1", max_token_id)));
    item.tokens.push_back(v[0].get<std::string>());
    return item;
}

std::vector<TemplateItem> cls_sep_processor(R r, J j, P ptr) { return {pair_item(r, j, ptr, "cls"), sequence_item(), pair_item(r, j, ptr, "sep")}; }

TemplateItem special_item(R r, J j, P ptr, const std::string& name) {
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

std::vector<TemplateItem> template_processor(R r, J j, P ptr) {
    std::vector<TemplateItem> out;
    const json& single = r.array(j, ptr, "single");
    for (std::size_t i = 0; i < single.size(); ++i) {
        const std::string at = ptr + "/single/" + std::to_string(i);
        if (r.get(single[i], at, "Sequence")) out.push_back(sequence_item());
        else if (const json* s = r.get(single[i], at, "SpecialToken")) out.push_back(special_item(r, j, ptr, r.str(*s, at + "/SpecialToken", "id", "")));
        else r.fail(at, "expected {\"Sequence\": ...} or {\"SpecialToken\": ...}");
    }
    return out;
}

// Nested processors wrap one another: each one's sequence item stands for what came before.
std::vector<TemplateItem> processor_sequence(R r, J j, P ptr) {
    std::vector<TemplateItem> out{sequence_item()};
    const json& list = r.array(j, ptr, "processors");
    for (std::size_t i = 0; i < list.size(); ++i) {
        std::vector<TemplateItem> wrapped;
        for (auto& item : read_post_processor(r, list[i], ptr + "/processors/" + std::to_string(i))) {
            if (item.sequence) wrapped.insert(wrapped.end(), out.begin(), out.end());
            else wrapped.push_back(std::move(item));
        }
        out = std::move(wrapped);
    }
    return out;
}

// [SECTION] the table

const KindTable table = {
    {
        {"BPE", bpe_model},
        {"WordPiece", wordpiece_model},
    },
    {
        {"BertNormalizer", bert_normalizer},
        {"NFC", [](R, J, P) { return make_form_normalizer(text::Form::nfc); }},
        {"NFD", [](R, J, P) { return make_form_normalizer(text::Form::nfd); }},
        {"NFKC", [](R, J, P) { return make_form_normalizer(text::Form::nfkc); }},
        {"NFKD", [](R, J, P) { return make_form_normalizer(text::Form::nfkd); }},
        {"Lowercase", [](R, J, P) { return make_lowercase(); }},
        {"StripAccents", [](R, J, P) { return make_strip_accents(); }},
        {"Strip", [](R r, J j, P p) { return make_strip(r.flag(j, p, "strip_left", true), r.flag(j, p, "strip_right", true)); }},
        {"Prepend", [](R r, J j, P p) { return make_prepend(r.str(j, p, "prepend", "\xE2\x96\x81")); }},
        {"Replace", replace_normalizer},
        {"Sequence", [](R r, J j, P p) { return make_normalizer_sequence(r.sequence<Normalizer>(j, p, "normalizers", read_normalizer)); }},
    },
    {
        {"ByteLevel",
         [](R r, J j, P p) {
             r.byte_level = true;
             return make_byte_level(r.flag(j, p, "add_prefix_space", true), r.flag(j, p, "use_regex", true));
         }},
        {"Split", split_pre_tokenizer},
        {"Metaspace", metaspace_pre_tokenizer},
        {"BertPreTokenizer", [](R, J, P) { return make_bert_pre_tokenizer(); }},
        {"Whitespace", [](R, J, P) { return make_whitespace(); }},
        {"WhitespaceSplit", [](R, J, P) { return make_whitespace_split(); }},
        {"Digits", [](R r, J j, P p) { return make_digits(r.flag(j, p, "individual_digits", false)); }},
        {"Punctuation", [](R r, J j, P p) { return make_punctuation(behavior_of(r, j, p, "Isolated")); }},
        {"Sequence", [](R r, J j, P p) { return make_pre_tokenizer_sequence(r.sequence<PreTokenizer>(j, p, "pretokenizers", read_pre_tokenizer)); }},
    },
    {
        {"TemplateProcessing", template_processor},
        {"BertProcessing", cls_sep_processor},
        {"RobertaProcessing", cls_sep_processor},
        {"ByteLevel", [](R, J, P) { return std::vector<TemplateItem>{sequence_item()}; }},
        {"Sequence", processor_sequence},
    },
    {
        {"ByteLevel",
         [](R r, J, P) {
             r.byte_level = true;
             return make_byte_level_decoder();
         }},
        {"Metaspace",
         [](R r, J j, P p) {
             const auto [rep, scheme] = metaspace_of(r, j, p);
             return make_metaspace_decoder(rep, scheme != Prepend::never);
         }},
        {"ByteFallback", [](R, J, P) { return make_byte_fallback_decoder(); }},
        {"Fuse", [](R, J, P) { return make_fuse_decoder(); }},
        {"Strip", strip_decoder},
        {"Replace", replace_decoder},
        {"WordPiece", [](R r, J j, P p) { return make_wordpiece_decoder(r.str(j, p, "prefix", "##"), r.flag(j, p, "cleanup", true)); }},
        {"BPEDecoder", [](R r, J j, P p) { return make_bpe_decoder(r.str(j, p, "suffix", "</w>")); }},
        {"Sequence", [](R r, J j, P p) { return make_decoder_sequence(r.sequence<Decoder>(j, p, "decoders", read_decoder)); }},
    },
};

template <class Built> Built read_kind(const std::vector<KindRow<Built>>& rows, const char* part, R r, J j, P ptr, const std::string& type) {
    for (const auto& row : rows)
        if (type == row.type) return row.read(r, j, ptr);
    r.fail(ptr + "/type", std::string("the ") + part + " \"" + type + "\" is not supported (attnviz reads " + kind_names(rows) + ")");
}

} // namespace

const KindTable& kind_table() { return table; }

std::string model_type(const json& model) {
    const auto it = model.find("type");
    if (it != model.end() && it->is_string()) return it->get<std::string>();
    return model.contains("merges") ? "BPE" : model.contains("max_input_chars_per_word") ? "WordPiece" : "";
}

std::unique_ptr<TokenizerModel> read_model(R r, J j, P ptr) {
    if (!j.is_object()) r.fail(ptr, "expected an object");
    std::string type = r.str(j, ptr, "type", "");
    if (type.empty()) type = model_type(j);
    if (type.empty()) r.fail(ptr + "/type", "missing");
    return read_kind(table.models, "model", r, j, ptr, type);
}

std::unique_ptr<Normalizer> read_normalizer(R r, J j, P ptr) {
    return j.is_null() ? nullptr : read_kind(table.normalizers, "normalizer", r, j, ptr, r.type(j, ptr));
}

std::unique_ptr<PreTokenizer> read_pre_tokenizer(R r, J j, P ptr) {
    return j.is_null() ? nullptr : read_kind(table.pre_tokenizers, "pre-tokenizer", r, j, ptr, r.type(j, ptr));
}

std::vector<TemplateItem> read_post_processor(R r, J j, P ptr) {
    return j.is_null() ? std::vector<TemplateItem>{sequence_item()} : read_kind(table.post_processors, "post-processor", r, j, ptr, r.type(j, ptr));
}

std::unique_ptr<Decoder> read_decoder(R r, J j, P ptr) {
    return j.is_null() ? nullptr : read_kind(table.decoders, "decoder", r, j, ptr, r.type(j, ptr));
}

} // namespace core::model
