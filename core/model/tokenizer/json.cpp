// tokenizer.json as the Hugging Face tokenizers library writes it, into the parts of the pipeline.
// Every error names the file and the JSON pointer of the value that is wrong.
#include "core/model/tokenizer/reader.h"
#include "core/model/tokenizer/scan.h"

#include "core/io/files.h"
#include "core/parallel.h"

#include <algorithm>
#include <deque>
#include <new>
#include <optional>

namespace core::model {

// [SECTION] the Reader's checked accessors

const json* Reader::get(const json& obj, const std::string& ptr, const char* key) const {
    if (!obj.is_object()) fail(ptr, "expected an object");
    const auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? nullptr : &*it;
}

const json& Reader::need(const json& obj, const std::string& ptr, const char* key) const {
    const json* v = get(obj, ptr, key);
    if (!v) fail(ptr + "/" + key, "missing");
    return *v;
}

std::string Reader::str(const json& obj, const std::string& ptr, const char* key, const std::string& def) const {
    const json* v = get(obj, ptr, key);
    if (!v) return def;
    if (!v->is_string()) fail(ptr + "/" + key, "expected a string");
    return v->get<std::string>();
}

bool Reader::flag(const json& obj, const std::string& ptr, const char* key, bool def) const {
    const json* v = get(obj, ptr, key);
    if (!v) return def;
    if (!v->is_boolean()) fail(ptr + "/" + key, "expected true or false");
    return v->get<bool>();
}

long Reader::count(const json& obj, const std::string& ptr, const char* key, long def, long max) const {
    const json* v = get(obj, ptr, key);
    if (!v) return def;
    return number(*v, ptr + "/" + key, max);
}

long Reader::number(const json& v, const std::string& ptr, long max) const {
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > max)
        fail(ptr, "expected a whole number from 0 to " + std::to_string(max));
    return static_cast<long>(v.get<long long>());
}

const json& Reader::array(const json& obj, const std::string& ptr, const char* key) const {
    const json& v = need(obj, ptr, key);
    if (!v.is_array()) fail(ptr + "/" + key, "expected an array");
    return v;
}

std::string Reader::type(const json& obj, const std::string& ptr) const {
    const std::string kind = str(obj, ptr, "type", "");
    if (kind.empty()) fail(ptr + "/type", "missing");
    return kind;
}

std::pair<std::string, bool> Reader::pattern(const json& obj, const std::string& ptr) const {
    const json& p = need(obj, ptr, "pattern");
    if (p.is_string()) return {p.get<std::string>(), false};
    if (const json* s = get(p, ptr + "/pattern", "String"); s && s->is_string()) return {s->get<std::string>(), false};
    if (const json* r = get(p, ptr + "/pattern", "Regex"); r && r->is_string()) return {r->get<std::string>(), true};
    fail(ptr + "/pattern", "expected {\"String\": ...} or {\"Regex\": ...}");
}

namespace {

// [SECTION] added tokens

void read_added_tokens(const Reader& r, const json& j, TokenizerImpl& t) {
    const json* list = r.get(j, "", "added_tokens");
    if (!list) return;
    if (!list->is_array()) r.fail("/added_tokens", "expected an array");
    for (std::size_t i = 0; i < list->size(); ++i) {
        const json& a = (*list)[i];
        const std::string at = "/added_tokens/" + std::to_string(i);
        AddedToken tok;
        tok.id = static_cast<int>(r.number(r.need(a, at, "id"), at + "/id", max_token_id));
        tok.content = r.str(a, at, "content", "");
        if (tok.content.empty()) r.fail(at + "/content", "expected the token's text");
        tok.special = r.flag(a, at, "special", false);
        tok.lstrip = r.flag(a, at, "lstrip", false);
        tok.rstrip = r.flag(a, at, "rstrip", false);
        tok.single_word = r.flag(a, at, "single_word", false);
        tok.normalized = r.flag(a, at, "normalized", !tok.special);
        t.added.push_back(std::move(tok));
    }
}

std::string kind_of(const Reader& r, const json& model) {
    const std::string m = model_type(model);
    if (m != "BPE") return m;
    std::string parts;
    if (r.byte_level) parts = "byte-level";
    if (r.metaspace) parts = "Metaspace";
    if (r.byte_fallback) parts += parts.empty() ? "byte fallback" : ", byte fallback";
    return parts.empty() ? "BPE" : "BPE (" + parts + ")";
}

// [SECTION] the fast path: the vocabulary and the merges straight from the text

using Keys = std::vector<std::pair<std::string, std::string_view>>; // key, its value's text

// The keys of the object at s, and their values' text; `inside(key)` says which values are
// objects to outline too (into `inner`).
template <class Inside> bool outline(scan::Scanner& s, Keys& keys, Inside inside) {
    if (!s.take('{')) return false;
    if (s.take('}')) return true;
    do {
        std::string_view raw;
        bool escaped = false;
        if (!s.at('"') || !s.string(raw, escaped) || !s.take(':')) return false;
        std::string key = escaped ? scan::unescape(raw) : std::string(raw);
        s.space();
        const char* begin = s.p;
        if (!inside(key, s)) return false;
        keys.emplace_back(std::move(key), std::string_view(begin, static_cast<std::size_t>(s.p - begin)));
    } while (s.take(','));
    return s.take('}');
}

// Entries "token": id from s on, each given to add(token, id): to the '}' that closes them and the
// end of the text, or, when `cut` (the text ends inside the object), to the end right after a comma.
template <class Add> bool vocab_entries(scan::Scanner& s, bool cut, Add add) {
    std::string unescaped;
    for (;;) {
        std::string_view raw;
        bool escaped = false;
        long id = 0;
        if (!s.at('"') || !s.string(raw, escaped) || !s.take(':') || !s.small_whole(id) || id > max_token_id) return false;
        if (!add(escaped ? std::string_view(unescaped = scan::unescape(raw)) : raw, id, escaped)) return false;
        if (!s.take(',')) break;
        if (cut && (s.space(), s.p == s.end)) return true;
    }
    if (cut || !s.take('}')) return false;
    s.space();
    return s.p == s.end;
}

// "token": id pairs, each token and each id once. A large one is read in two halves at a line
// break near its middle (a line break is never inside a JSON string), the second half scanned on
// another core while this one fills the table from the first.
bool fast_vocab(std::string_view text, Vocab& v) {
    const auto entries = static_cast<std::size_t>(std::count(text.begin(), text.end(), ':')); // at least one a token
    std::vector<bool> taken;
    const auto insert = [&](std::string_view token, long id, bool) {
        const auto at = static_cast<std::size_t>(id);
        if (at >= taken.size()) taken.resize(std::max(at + 1, taken.size() * 2));
        if (taken[at] || !v.set(token, at)) return false;
        taken[at] = true;
        return true;
    };
    const auto whole = [&] {
        v = Vocab{};
        taken.clear();
        v.ids.reserve(entries);
        v.strings.reserve(entries);
        scan::Scanner s(text);
        if (!s.take('{')) return false;
        if (s.take('}')) return s.space(), s.p == s.end;
        return vocab_entries(s, false, insert);
    };
    const std::size_t cut = text.size() > (1u << 20) ? text.find('\n', text.size() / 2) : std::string_view::npos;
    if (cut == std::string_view::npos) return whole();
    std::vector<std::pair<std::string_view, long>> later;
    std::deque<std::string> kept; // the second half's tokens that had escapes
    bool later_ok = false;
    const auto scan_later = [&] {
        try {
            scan::Scanner s(text.substr(cut));
            later.reserve(entries / 2 + 1);
            later_ok = vocab_entries(s, false, [&](std::string_view token, long id, bool escaped) {
                later.emplace_back(escaped ? std::string_view(kept.emplace_back(token)) : token, id);
                return true;
            });
        } catch (const std::exception&) {
        }
    };
    bool first_ok = false;
    const auto scan_first = [&] {
        try {
            v.ids.reserve(entries);
            v.strings.reserve(entries);
            scan::Scanner s(text.substr(0, cut));
            first_ok = s.take('{') && vocab_entries(s, true, insert);
        } catch (const std::exception&) { // out of memory: the full parser decides
        }
    };
    core::parallel::both(scan_first, scan_later);
    if (!first_ok || !later_ok) return whole(); // the line break was not between two entries
    for (const auto& [token, id] : later)
        if (!insert(token, id, false)) return false;
    return true;
}

// Merges as "left right" or ["left", "right"].
bool fast_merges(std::string_view text, ReadAhead& a) {
    scan::Scanner s(text);
    if (!s.take('[')) return false;
    a.merge_list.reserve(text.size() / 16);
    const auto next = [&](std::string_view& out) {
        bool escaped = false;
        if (!s.at('"') || !s.string(out, escaped)) return false;
        if (escaped) out = a.unescaped.emplace_back(scan::unescape(out));
        return true;
    };
    if (!s.take(']')) {
        do {
            std::string_view left, right;
            if (s.at('"')) {
                if (!next(left)) return false;
                const std::size_t space = left.find(' ');
                if (space == std::string_view::npos) return false;
                right = left.substr(space + 1), left = left.substr(0, space);
            } else if (!s.take('[') || !next(left) || !s.take(',') || !next(right) || !s.take(']')) {
                return false;
            }
            a.merge_list.emplace_back(left, right);
        } while (s.take(','));
        if (!s.take(']')) return false;
    }
    s.space();
    return s.p == s.end;
}

// The document without the model's vocabulary and merges (parsed as json), and those two read
// into `vocab` and `a`; false for anything the full parser should read (and perhaps refuse).
bool read_fast(const std::string& content, json& doc, Vocab& vocab, ReadAhead& a) {
    scan::Scanner s(content);
    if (content.compare(0, 3, "\xEF\xBB\xBF") == 0) return false; // a byte-order mark
    Keys top, model;
    std::vector<std::string_view> skipped; // values passed over unchecked
    bool model_object = false;
    const bool outlined = outline(s, top, [&](const std::string& key, scan::Scanner& sc) {
        if (key == "model") model_object = sc.at('{'), model.clear(); // a later "model" wins, as in the parser
        if (key != "model" || !model_object) return sc.value();
        return outline(sc, model, [&](const std::string& k, scan::Scanner& inner) {
            if (!((k == "vocab" && inner.at('{')) || (k == "merges" && inner.at('[')))) return inner.value();
            const char* begin = inner.p;
            const bool passed = inner.skip_nested(); // fast_vocab and fast_merges check it, or the loop below
            skipped.emplace_back(begin, static_cast<std::size_t>(inner.p - begin));
            return passed;
        });
    });
    s.space();
    if (!outlined || s.p != s.end) return false;
    std::string_view vocab_text, merges_text;
    json m = json::object();
    for (const auto& [key, text] : model) {
        if (key == "vocab") vocab_text = text, m[key] = json::object();
        else if (key == "merges") merges_text = text, m[key] = json::array();
        else m[key] = json::parse(text.begin(), text.end());
    }
    for (const auto& [key, text] : top) doc[key] = key == "model" && model_object ? m : json::parse(text.begin(), text.end());
    for (const std::string_view text : skipped) { // one that a later key of the same name replaced
        scan::Scanner check(text);
        if (text.data() != vocab_text.data() && text.data() != merges_text.data() && !check.value()) return false;
    }
    if (!model_object) return true;
    bool merges_ok = true;
    const auto read_merges = [&] {
        try {
            merges_ok = merges_text.empty() || (a.merges = fast_merges(merges_text, a));
        } catch (const std::exception&) {
            merges_ok = false;
        }
    };
    bool vocab_ok = false;
    const auto read_vocab = [&] {
        try {
            vocab_ok = vocab_text.empty() || (a.vocab = fast_vocab(vocab_text, vocab));
        } catch (const std::exception&) { // out of memory: the full parser decides
        }
    };
    // The vocabulary and the merges on two cores; the vocabulary's own halves then run one after
    // the other (core::parallel::for_each inside for_each stays on its thread).
    core::parallel::both(read_vocab, read_merges);
    return vocab_ok && merges_ok;
}

// The parts, from the document (and what was read ahead).
void read_parts(Reader& r, const json& j, TokenizerImpl& t) {
    if (!j.is_object()) r.fail("", "expected an object");
    try {
        t.model = read_model(r, r.need(j, "", "model"), "/model");
        read_added_tokens(r, j, t);
        t.normalizer = read_normalizer(r, j.value("normalizer", json()), "/normalizer");
        t.pre_tokenizer = read_pre_tokenizer(r, j.value("pre_tokenizer", json()), "/pre_tokenizer");
        t.decoder = read_decoder(r, j.value("decoder", json()), "/decoder");
        t.single = read_post_processor(r, j.value("post_processor", json()), "/post_processor");
        t.has_template = t.single.size() > 1;
        t.byte_level = r.byte_level;
        t.kind = kind_of(r, j.at("model"));
    } catch (const json::exception& e) {
        r.fail("", e.what());
    }
}

} // namespace

Tokenizer parse_tokenizer_json(const std::string& content, const std::string& name) {
    auto t = std::make_shared<TokenizerImpl>();
    t->source = name;
    Reader r{name, t.get()};
    json doc = json::object();
    ReadAhead ahead;
    bool fast = false;
    try {
        fast = read_fast(content, doc, t->vocab, ahead);
    } catch (const json::exception&) { // a value the scanner passes and the parser refuses (1e999)
    } catch (const std::bad_alloc&) {
    }
    if (fast) {
        r.ahead = &ahead;
    } else {
        t->vocab = Vocab{};
        try {
            doc = json::parse(content);
        } catch (const json::exception& e) { // parse_error, and out_of_range for a number like 1e999
            throw TokenizerError(name + ": not valid JSON: " + e.what());
        }
    }
    read_parts(r, doc, *t);
    t->finish();
    return Tokenizer(t);
}

Tokenizer load_tokenizer_json(const std::string& path) {
    const std::optional<std::string> text = core::io::read_whole_file(path);
    if (!text) throw TokenizerError(path + ": cannot be read");
    return parse_tokenizer_json(*text, path);
}

} // namespace core::model
