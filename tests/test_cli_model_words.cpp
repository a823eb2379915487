// The command line's model modes in the words a person reads: every id printed with its token, a
// mistyped option answered with the nearest, positions checked against the prompt's own length, a
// word taken as the one token it is inside a sentence, an empty token named as such, and --text and
// --sequence read by core's one path (core/model/input.h).
#include "core/model/format/checkpoint.h"
#include "core/model/input.h"
#include "core/model/tokenizer/tokenizer.h"
#include "tests/checkpoint_fixtures.h"
#include "tests/cli_run.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace {

std::string gpt2() { return fixtures::checkpoints() + "/gpt2"; }

} // namespace

TEST_CASE("cli words: --logit-lens, --attribute and --generate print each id beside its token") {
    NEED_CHECKPOINTS();
    const core::model::Tokenizer tok = core::model::load_tokenizer(gpt2());
    const Run lens = run({"--logit-lens", gpt2(), "--text", "the cat sat", "--top", "2"});
    REQUIRE(lens.code == 0);
    const nlohmann::json l = nlohmann::json::parse(lens.out);
    REQUIRE(l["top_tokens"].size() == l["top"].size());
    for (std::size_t layer = 0; layer < l["top"].size(); ++layer)
        for (std::size_t i = 0; i < l["top"][layer].size(); ++i)
            for (std::size_t k = 0; k < 2; ++k) CHECK(l["top_tokens"][layer][i][k] == tok.token_string(l["top"][layer][i][k].get<int>()));
    const Run attribution = run({"--attribute", gpt2(), "--text", "the cat sat", "--target", "#5", "--vs", " cat"});
    REQUIRE(attribution.code == 0);
    const nlohmann::json a = nlohmann::json::parse(attribution.out);
    CHECK(a["target_token"] == tok.token_string(5));
    CHECK(a["vs_token"] == "Ġcat");
    const Run generated = run({"--generate", gpt2(), "--text", "the cat", "--tokens", "2"});
    REQUIRE(generated.code == 0);
    const nlohmann::json g = nlohmann::json::parse(generated.out);
    CHECK(g["prompt_tokens"] == std::vector<std::string>{"the", "Ġcat"});
    REQUIRE(g["tokens"].size() == 2);
    for (std::size_t k = 0; k < 2; ++k) CHECK(g["tokens"][k] == tok.token_string(g["ids"][k].get<int>()));
}

TEST_CASE("cli words: a mistyped option names the nearest one; one far from every option names none") {
    CHECK(run({"--logit-lense", "m"}).err == "attnviz: unknown option --logit-lense; did you mean --logit-lens? (see attnviz --help)\n");
    CHECK(run({"--screenshoot", "a.png"}).err == "attnviz: unknown option --screenshoot; did you mean --screenshot? (see attnviz --help)\n");
    CHECK(run({"--frobnicate"}).err == "attnviz: unknown option --frobnicate (see attnviz --help)\n");
    CHECK(run({"--logit-lens", "m", "--sequense", "1 2"}).err ==
          "attnviz: unknown option --sequense for --logit-lens; did you mean --sequence? (see attnviz --help)\n");
}

TEST_CASE("cli words: --query and --key range over the prompt's own tokens") {
    NEED_CHECKPOINTS();
    const Run zero = run({"--qk", gpt2(), "--sequence", "5 6 7", "--head", "1.1", "--query", "0"});
    CHECK(zero.code == 2);
    CHECK(zero.err == "attnviz: --query takes a whole number from 1 to 3, not \"0\" (see attnviz --help)\n");
    const Run past = run({"--qk", gpt2(), "--sequence", "5 6 7", "--head", "1.1", "--query", "3", "--key", "4"});
    CHECK(past.err == "attnviz: --key takes a whole number from 1 to 3, not \"4\" (see attnviz --help)\n");
    const Run fine = run({"--qk", gpt2(), "--sequence", "5 6 7", "--head", "1.1", "--query", "3", "--key", "1"});
    CHECK(fine.code == 0);
    CHECK(nlohmann::json::parse(fine.out)["query"] == 3);
}

TEST_CASE("cli words: a word that is one token after a space is that token; an empty token says so") {
    NEED_CHECKPOINTS();
    const core::model::Tokenizer tok = core::model::load_tokenizer(gpt2());
    REQUIRE(tok.encode_ids("looked", false).size() == 2); // "look" "ed" alone, " looked" inside a sentence
    const std::vector<int> spaced = tok.encode_ids(" looked", false);
    REQUIRE(spaced.size() == 1);
    const Run patch = run({"--patch", gpt2(), "--clean", "Mr. Darcy looked", "--corrupt", "Mr. Bingley looked", "--answer", "looked", "--vs", "#7"});
    CHECK(patch.code == 0);
    const Run attribution = run({"--attribute", gpt2(), "--text", "Mr. Darcy", "--target", "looked"});
    REQUIRE(attribution.code == 0);
    CHECK(nlohmann::json::parse(attribution.out)["target"] == spaced[0]);
    const Run empty = run({"--attribute", gpt2(), "--text", "Mr. Darcy", "--target", ""});
    CHECK(empty.code == 2);
    CHECK(empty.err == "attnviz: --target \"\" is empty; give a text that is one token of " + gpt2() + "'s vocabulary, or #ID (see attnviz --help)\n");
    const Run two = run({"--attribute", gpt2(), "--text", "Mr. Darcy", "--target", "Darcy"});
    CHECK(two.err == "attnviz: --target \"Darcy\" is 2 tokens of " + gpt2() + "'s vocabulary, not one; give #ID (see attnviz --help)\n");
}

TEST_CASE("cli words: --text and --sequence are core's read_input, its refusals named by the flag") {
    NEED_CHECKPOINTS();
    const core::model::OpenedModel m = core::model::open_model(gpt2());
    const core::model::ModelConfig& c = m.model->config();
    const core::model::Tokenizer tok = core::model::load_tokenizer(gpt2());
    const core::model::ModelInput text = core::model::read_input(m, {true, "the cat"});
    CHECK(text.ids == tok.encode_ids("the cat", true));
    CHECK(text.tokens == std::vector<std::string>{"the", "Ġcat"});
    const core::model::ModelInput ids = core::model::read_input(m, {false, " 5 6 "});
    CHECK(ids.ids == std::vector<int>{5, 6});
    CHECK(ids.tokens == std::vector<std::string>{tok.token_string(5), tok.token_string(6)});
    CHECK_THROWS_WITH_AS(core::model::read_input(m, {false, "  "}), "no token ids", core::model::InputError);
    CHECK_THROWS_WITH_AS(core::model::read_input(m, {true, ""}), "the text gives no tokens", core::model::InputError);

    const std::string not_an_id = "\"x\" is not a token id of " + c.name + " (0 … " + std::to_string(c.vocab - 1) + ")";
    CHECK(run({"--forward", gpt2(), "--sequence", "5 x"}).err == "attnviz: --sequence: " + not_an_id + "\n");
    CHECK(run({"--heads", gpt2(), "--sequence", " "}).err == "attnviz: --sequence: no token ids\n");
    CHECK(run({"--forward", gpt2(), "--text", ""}).err == "attnviz: --text: the text gives no tokens\n");
    // The same checkpoint without its tokenizer: a prompt is refused, ids are their own tokens.
    const std::string bare = fixtures::temp_dir() + "/gpt2_without_tokenizer";
    std::filesystem::create_directories(bare);
    for (const char* f : {"config.json", "model.safetensors"})
        std::filesystem::copy_file(gpt2() + "/" + f, bare + "/" + f, std::filesystem::copy_options::overwrite_existing);
    const Run refused = run({"--forward", bare, "--text", "the cat"});
    CHECK(refused.code == 2);
    CHECK(refused.err == "attnviz: --text: " + bare + " has no tokenizer.json (nor vocab.json + merges.txt); give its token ids\n");
    const core::model::ModelInput own = core::model::read_input(core::model::open_model(bare), {false, "5 6"});
    CHECK(own.tokens == std::vector<std::string>{"5", "6"});
    // The probe, the third input, through the same path: probe_ids's draw, each id's token beside it.
    const core::model::ModelInput probe = core::model::read_input(m, {false, "", 5, 7});
    CHECK(probe.ids == core::model::probe_ids(c, tok, 5, 7));
    REQUIRE(probe.tokens.size() == probe.ids.size());
    CHECK(probe.tokens.back() == tok.token_string(probe.ids.back()));
    const Run long_probe = run({"--heads", gpt2(), "--probe", "100000"});
    CHECK(long_probe.code == 2);
    CHECK(long_probe.err.rfind("attnviz: --probe: ", 0) == 0);
}
