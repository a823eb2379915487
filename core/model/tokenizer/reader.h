// core/model/tokenizer/reader.h — reading the parts of a tokenizer.json: the Reader's checked
// accessors (every error names the file and the JSON pointer), and the table from each kind of
// model, normalizer, pre-tokenizer, post-processor and decoder to its reader (kinds.cpp). Internal
// to core/model/tokenizer/.
#pragma once

#include "core/model/tokenizer/parts.h"

#include <nlohmann/json.hpp>

#include <deque>

namespace core::model {

using nlohmann::json;

constexpr long max_token_id = 1L << 21; // far above any real vocabulary (about 256k)

// A model's vocabulary and merges when json.cpp read them straight from the file's text (the
// merges view that text, or `unescaped` for strings with escapes).
struct ReadAhead {
    bool vocab = false, merges = false;
    MergeList merge_list;
    std::deque<std::string> unescaped;
};

struct Reader {
    std::string file;
    TokenizerImpl* t = nullptr;
    const ReadAhead* ahead = nullptr; // null: everything is in the document
    bool byte_level = false;
    bool byte_fallback = false;
    bool metaspace = false;

    [[noreturn]] void fail(const std::string& where, const std::string& what) const {
        throw TokenizerError(file + ": " + (where.empty() ? "/" : where) + ": " + what);
    }

    const json* get(const json& obj, const std::string& ptr, const char* key) const;
    const json& need(const json& obj, const std::string& ptr, const char* key) const;
    std::string str(const json& obj, const std::string& ptr, const char* key, const std::string& def) const;
    bool flag(const json& obj, const std::string& ptr, const char* key, bool def) const;
    long count(const json& obj, const std::string& ptr, const char* key, long def, long max) const;
    long number(const json& v, const std::string& ptr, long max) const;
    const json& array(const json& obj, const std::string& ptr, const char* key) const;
    std::string type(const json& obj, const std::string& ptr) const; // "type", which must be there
    // {"String": "..."} or {"Regex": "..."}: the text and whether it is a regex.
    std::pair<std::string, bool> pattern(const json& obj, const std::string& ptr) const;

    // make() with a regex error as this part's /pattern error.
    template <class F> auto with_regex(const std::string& ptr, F make) const {
        try {
            return make();
        } catch (const TokenizerError&) {
            throw;
        } catch (const std::runtime_error& e) {
            fail(ptr + "/pattern", e.what());
        }
    }
    // The parts of a "Sequence" under `key`, each read by read(*this, item, its pointer); null ones left out.
    template <class Part, class Read>
    std::vector<std::unique_ptr<Part>> sequence(const json& j, const std::string& ptr, const char* key, Read read) {
        std::vector<std::unique_ptr<Part>> parts;
        const json& list = array(j, ptr, key);
        for (std::size_t i = 0; i < list.size(); ++i)
            if (auto p = read(*this, list[i], ptr + "/" + key + "/" + std::to_string(i))) parts.push_back(std::move(p));
        return parts;
    }
};

// [SECTION] the table of kinds

// One kind of a part: its "type" in tokenizer.json and the reader that builds it from its object.
template <class Built> struct KindRow {
    const char* type;
    Built (*read)(Reader& r, const json& j, const std::string& ptr);
};

struct KindTable {
    std::vector<KindRow<std::unique_ptr<TokenizerModel>>> models;
    std::vector<KindRow<std::unique_ptr<Normalizer>>> normalizers;
    std::vector<KindRow<std::unique_ptr<PreTokenizer>>> pre_tokenizers;
    std::vector<KindRow<std::vector<TemplateItem>>> post_processors; // the single-sequence template
    std::vector<KindRow<std::unique_ptr<Decoder>>> decoders;
};
const KindTable& kind_table();

// A part through its row; null gives none (the post-processor: the sequence alone). An unknown
// type is refused with the kinds the table has.
std::unique_ptr<TokenizerModel> read_model(Reader& r, const json& j, const std::string& ptr);
std::unique_ptr<Normalizer> read_normalizer(Reader& r, const json& j, const std::string& ptr);
std::unique_ptr<PreTokenizer> read_pre_tokenizer(Reader& r, const json& j, const std::string& ptr);
std::vector<TemplateItem> read_post_processor(Reader& r, const json& j, const std::string& ptr);
std::unique_ptr<Decoder> read_decoder(Reader& r, const json& j, const std::string& ptr);
// The model's type, inferred from its keys when it has no "type" (older files); "" when unknown.
std::string model_type(const json& model);

// The names in rows, as "A, B, C" ("A and B" for two).
template <class Built> std::string kind_names(const std::vector<KindRow<Built>>& rows) {
    std::string out;
    for (std::size_t i = 0; i < rows.size(); ++i) out += (i == 0 ? "" : rows.size() == 2 ? " and " : ", ") + std::string(rows[i].type);
    return out;
}

} // namespace core::model
