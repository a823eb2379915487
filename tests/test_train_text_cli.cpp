// attnviz --train text: a small run writes a model directory; a bad corpus or flag is one line, exit 2.
#include "tests/cli_run.h"
#include "tests/fixture_files.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

namespace {

std::string write_corpus(const std::string& dir, const std::string& text) {
    const std::string file = dir + "/corpus.txt";
    std::ofstream(file, std::ios::binary) << text;
    return file;
}

std::vector<std::string> small_run(const std::string& corpus, const std::string& out) {
    return {"--train", "text", "--corpus", corpus, "--out", out, "--merges", "30", "--layers", "1", "--heads", "2",
            "--d-model", "16", "--ctx", "8", "--steps", "4", "--batch", "4", "--log-every", "2"};
}

} // namespace

TEST_CASE("--train text: a short run prints its progress and writes config.json, model.safetensors and tokenizer.json") {
    const std::string dir = fixtures::temp_dir();
    std::string text;
    for (int i = 0; i < 60; ++i) text += "The cat sat on the mat. The dog did not.\n";
    const Run r = run(small_run(write_corpus(dir, text), dir + "/model"));
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("\"train_tokens\"") != std::string::npos);
    CHECK(r.out.find("{\"step\": 2,") != std::string::npos);
    CHECK(r.out.find("{\"step\": 4,") != std::string::npos);
    CHECK(r.out.find("\"held_out_loss\"") != std::string::npos);
    CHECK(r.out.find("\"unigram_loss\"") != std::string::npos);
    CHECK(r.out.find("\"repeat_heads\"") != std::string::npos);
    for (const char* f : {"config.json", "model.safetensors", "tokenizer.json"}) CHECK(std::filesystem::is_regular_file(dir + "/model/" + f));
}

TEST_CASE("--train text: a missing, invalid or too short corpus and bad flags are refused with one line") {
    const std::string dir = fixtures::temp_dir();
    const Run missing = run(small_run(dir + "/absent.txt", dir + "/m"));
    CHECK(missing.code == 2);
    CHECK(missing.err.find(dir + "/absent.txt") != std::string::npos);

    std::string bad;
    for (int i = 0; i < 40; ++i) bad += "fine text here\n";
    bad += "caf\xc3 broken\n";
    const Run invalid = run(small_run(write_corpus(dir, bad), dir + "/m"));
    CHECK(invalid.code == 2);
    CHECK(invalid.err == "attnviz: " + dir + "/corpus.txt: invalid UTF-8 at byte " + std::to_string(40 * 15 + 3) + "\n");

    const Run short_one = run(small_run(write_corpus(dir, "too short\n"), dir + "/m"));
    CHECK(short_one.code == 2);
    CHECK(short_one.err.find("the corpus is too short") != std::string::npos);

    const Run no_corpus = run({"--train", "text", "--out", dir + "/m"});
    CHECK(no_corpus.code == 2);
    CHECK(no_corpus.err.find("--train text needs --corpus FILE") != std::string::npos);
    const Run bad_heads = run({"--train", "text", "--corpus", "c.txt", "--out", "m", "--d-model", "30", "--heads", "4"});
    CHECK(bad_heads.code == 2);
    CHECK(bad_heads.err.find("n_embd = 30 is not a multiple of n_head = 4") != std::string::npos);
    const Run unknown = run({"--train", "text", "--corpus", "c.txt", "--out", "m", "--mlp", "1"});
    CHECK(unknown.code == 2);
    CHECK(unknown.err.find("unknown option --mlp") != std::string::npos);
    CHECK(!std::filesystem::exists(dir + "/m"));
}
