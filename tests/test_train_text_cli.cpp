// attnviz --train text: a small run writes a model directory; a bad corpus or flag is one line, exit 2.
#include "core/train/gpt2_file.h"
#include "tests/cli_run.h"
#include "tests/fixture_files.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

std::string write_corpus(const std::string& dir, const std::string& text) {
    const std::string file = dir + "/corpus.txt";
    std::ofstream(file, std::ios::binary) << text;
    return file;
}

std::vector<std::string> small_text_run(const std::string& corpus, const std::string& out) {
    return {"--train", "text", "--corpus", corpus, "--out", out, "--merges", "30", "--layers", "1", "--heads", "2",
            "--d-model", "16", "--ctx", "8", "--steps", "4", "--batch", "4", "--log-every", "2"};
}

} // namespace

TEST_CASE("--train text: a short run prints its progress and writes config.json, model.safetensors and tokenizer.json") {
    const std::string dir = fixtures::temp_dir();
    std::string text;
    for (int i = 0; i < 60; ++i) text += "The cat sat on the mat. The dog did not.\n";
    const Run r = run(small_text_run(write_corpus(dir, text), dir + "/model"));
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
    const Run missing = run(small_text_run(dir + "/absent.txt", dir + "/m"));
    CHECK(missing.code == 2);
    CHECK(missing.err.find(dir + "/absent.txt") != std::string::npos);

    std::string bad;
    for (int i = 0; i < 40; ++i) bad += "fine text here\n";
    bad += "caf\xc3 broken\n";
    const Run invalid = run(small_text_run(write_corpus(dir, bad), dir + "/m"));
    CHECK(invalid.code == 2);
    CHECK(invalid.err == "attnviz: " + dir + "/corpus.txt: invalid UTF-8 at byte " + std::to_string(40 * 15 + 3) + "\n");

    const Run short_one = run(small_text_run(write_corpus(dir, "too short\n"), dir + "/m"));
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

TEST_CASE("--train text --init continues from a saved model of the same sizes and tokenizer, and refuses any other") {
    const std::string dir = fixtures::temp_dir();
    std::string text;
    for (int i = 0; i < 60; ++i) text += "The cat sat on the mat. The dog did not.\n";
    const std::string corpus = write_corpus(dir, text);
    REQUIRE(run(small_text_run(corpus, dir + "/first")).code == 0);

    // one step at a learning rate of 1e-6 moves no parameter further than about 1e-6 from where it started
    std::vector<std::string> again = small_text_run(corpus, dir + "/again"); // a later flag wins
    again.insert(again.end(), {"--init", dir + "/first", "--steps", "1", "--warmup", "0", "--lr", "1e-6", "--repeat-share", "0.5",
                         "--mirror-share", "0.25"});
    const Run cont = run(again);
    INFO(cont.err);
    REQUIRE(cont.code == 0);
    const core::train::Gpt2Saved first = core::train::load_gpt2_dir(dir + "/first"), next = core::train::load_gpt2_dir(dir + "/again");
    REQUIRE(first.params.size() == next.params.size());
    double moved = 0, size = 0;
    for (std::size_t i = 0; i < first.params.size(); ++i) {
        moved = std::max(moved, static_cast<double>(std::abs(next.params[i] - first.params[i])));
        size = std::max(size, static_cast<double>(std::abs(first.params[i])));
    }
    CHECK(moved < 1e-5);
    CHECK(size > 1e-2); // a trained model, not zeros

    std::vector<std::string> wider = small_text_run(corpus, dir + "/m");
    wider.insert(wider.end(), {"--d-model", "32", "--init", dir + "/first"});
    const Run sizes = run(wider);
    CHECK(sizes.code == 2);
    CHECK(sizes.err == "attnviz: " + dir + "/first/config.json: the sizes (vocabulary, positions, width, heads, layers) differ from this run's\n");

    // another corpus, the same number of merges: the same sizes, another tokenizer
    std::string other;
    for (int i = 0; i < 60; ++i) other += "A bird flew over the hill. A fox ran under it.\n";
    const std::string other_dir = dir + "/other";
    std::filesystem::create_directories(other_dir);
    std::vector<std::string> few = small_text_run(corpus, dir + "/few");
    few.insert(few.end(), {"--merges", "10"});
    REQUIRE(run(few).code == 0);
    std::vector<std::string> other_bpe = small_text_run(write_corpus(other_dir, other), dir + "/m");
    other_bpe.insert(other_bpe.end(), {"--merges", "10", "--init", dir + "/few"});
    const Run bpe = run(other_bpe);
    CHECK(bpe.code == 2);
    CHECK(bpe.err == "attnviz: " + dir + "/few/tokenizer.json: not the BPE this run learned from its corpus (another corpus or --merges)\n");

    std::vector<std::string> absent = small_text_run(corpus, dir + "/m");
    absent.insert(absent.end(), {"--init", dir + "/nothing"});
    const Run none = run(absent);
    CHECK(none.code == 2);
    CHECK(none.err.find(dir + "/nothing") != std::string::npos);

    std::vector<std::string> share = small_text_run(corpus, dir + "/m");
    share.insert(share.end(), {"--repeat-share", "1.5"});
    const Run bad_share = run(share);
    CHECK(bad_share.code == 2);
    CHECK(bad_share.err.find("--repeat-share takes a number from 0") != std::string::npos);
    std::vector<std::string> shares = small_text_run(corpus, dir + "/m");
    shares.insert(shares.end(), {"--repeat-share", "0.5", "--mirror-share", "0.75"});
    const Run too_many = run(shares);
    CHECK(too_many.code == 2);
    CHECK(too_many.err.find("repeated and mirrored shares = 1.25") != std::string::npos);
    CHECK(!std::filesystem::exists(dir + "/m"));
}
