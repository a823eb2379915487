// The byte-level BPE that attnviz learns for its text model: GPT-2's word split, merges learned
// from counts, encode/decode round trips and the tokenizer.json it writes.
#include "core/model/tokenizer/tokenizer.h"
#include "core/train/bpe.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

using core::train::Bpe;

TEST_CASE("BPE: GPT-2's pre-tokenizer splits words, contractions, digits, punctuation and spaces as GPT-2 does") {
    using V = std::vector<std::string>;
    CHECK(core::train::gpt2_words("Hello world's  test") == V{"Hello", " world", "'s", " ", " test"});
    CHECK(core::train::gpt2_words("I'll pay 1999 $!\n\nOK") == V{"I", "'ll", " pay", " 1999", " $!", "\n", "\n", "OK"});
    CHECK(core::train::gpt2_words("café naïve") == V{"café", " naïve"});
    CHECK(core::train::gpt2_words("").empty());
    CHECK_THROWS_WITH_AS(core::train::gpt2_words("ok \xff bad"), "invalid UTF-8 at byte 3", core::train::BpeError);
}

TEST_CASE("BPE: the most frequent pair is merged first, and text round-trips through the ids") {
    const Bpe bpe = Bpe::learn("the the the then than a a", 3);
    REQUIRE(bpe.merge_count() == 3);
    CHECK(bpe.vocab_size() == 256 + 3 + 1);
    CHECK(bpe.token(256) == "th"); // 5 times; "Ġt" and "he" 4 times
    CHECK(bpe.token(bpe.eos_id()) == "<|endoftext|>");
    for (const std::string text : {"the then", "unseen words, ünïcödé and 漢字 🙂\n", ""}) {
        const std::vector<int> ids = bpe.encode(text);
        CHECK(bpe.decode(ids) == text);
    }
    CHECK(bpe.encode("the").size() < 3);
    CHECK(bpe.encode("xyz").size() == 3); // unknown letters stay bytes
}

TEST_CASE("BPE: tokenizer.json is a byte-level BPE in the Hugging Face tokenizers format") {
    const Bpe bpe = Bpe::learn("low lower lowest low low", 9); // only 4 pairs ever occur twice
    const nlohmann::json j = nlohmann::json::parse(bpe.tokenizer_json());
    CHECK(j["model"]["type"] == "BPE");
    CHECK(j["model"]["vocab"].size() == static_cast<std::size_t>(bpe.vocab_size()));
    CHECK(j["model"]["vocab"]["<|endoftext|>"] == bpe.eos_id());
    CHECK(j["model"]["vocab"]["Ġ"] == bpe.encode(" ")[0]);
    REQUIRE(bpe.merge_count() == 4);
    REQUIRE(j["model"]["merges"].size() == 4);
    CHECK(j["model"]["merges"][0] == "l o");
    CHECK(j["pre_tokenizer"]["type"] == "ByteLevel");
    CHECK(j["pre_tokenizer"]["add_prefix_space"] == false);
    CHECK(j["pre_tokenizer"]["use_regex"] == true);
    CHECK(j["decoder"]["type"] == "ByteLevel");
    REQUIRE(j["added_tokens"].size() == 1);
    CHECK(j["added_tokens"][0]["content"] == "<|endoftext|>");
    CHECK(j["added_tokens"][0]["special"] == true);
    CHECK(j["added_tokens"][0]["id"] == bpe.eos_id());
}

TEST_CASE("BPE: the model loader's tokenizer reads the tokenizer.json attnviz writes and gives the ids it trained on") {
    std::string corpus;
    const char* lines[] = {"It is a truth universally acknowledged, that a single man in possession of a good fortune,\n",
                           "must be in want of a wife.  \"My dear Mr. Bennet,\" said his lady to him one day,\n",
                           "\"have you heard that Netherfield Park is let at last?\" 1811, 1813; £2000 a year!\n",
                           "She'll say they're here, we've done it, I'm sure you'd like it.\t\tTabs   and   spaces.\n"};
    for (int i = 0; i < 40; ++i) corpus += lines[i % 4];
    const Bpe bpe = Bpe::learn(corpus, 300);
    const core::model::Tokenizer loaded = core::model::parse_tokenizer_json(bpe.tokenizer_json(), "tokenizer.json");
    CHECK(loaded.vocab_size() == bpe.vocab_size());
    CHECK(loaded.token_id("<|endoftext|>") == bpe.eos_id());
    for (const std::string& text : {corpus, std::string("Mr. Darcy's   estate,\n\nten thousand a year — café 漢字 🙂!"), std::string(" leading space"),
                                   std::string("")}) {
        CAPTURE(text);
        CHECK(loaded.encode_ids(text) == bpe.encode(text));
        CHECK(loaded.decode(bpe.encode(text)) == text);
    }
}
