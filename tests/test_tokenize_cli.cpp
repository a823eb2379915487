// attnviz --tokenize MODEL --text TEXT: the fixtures' ids as JSON, and exit 2 with one line for bad input.
#include "tests/cli_run.h"
#include "tests/fixture_files.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <fstream>

TEST_CASE("tokenize cli: a GPT-2 vocab.json + merges.txt directory prints the reference ids and tokens") {
    const std::string dir = fixtures::temp_dir();
    std::ofstream(dir + "/vocab.json") << fixtures::read(fixtures::path("gpt2/encoder.json"));
    std::ofstream(dir + "/merges.txt") << fixtures::read(fixtures::path("gpt2/vocab.bpe"));
    const nlohmann::json doc = nlohmann::json::parse(fixtures::read(fixtures::path("gpt2/cases.json")));
    const nlohmann::json& c = doc["cases"][2]; // contractions
    const Run r = run({"--tokenize", dir, "--text", c["text"]});
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["ids"] == c["ids"]);
    CHECK(j["tokens"][0] == "I");
    CHECK(j["tokens"][1] == "'m");
    CHECK(j["tokens"][2] == "Ġsure");
    CHECK(run({"--tokenize", dir, "--text", ""}).out == "{\"ids\":[],\"tokens\":[]}\n");
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("tokenize cli: a tokenizer.json directory adds its template's special tokens") {
    const nlohmann::json bert = nlohmann::json::parse(fixtures::read(fixtures::path("tokenizers/cases.json")))["kinds"]["bert"];
    const nlohmann::json& c = bert["cases"][17]; // accents
    const Run r = run({"--tokenize", fixtures::path("tokenizers/bert"), "--text", c["text"]});
    CHECK(r.code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    CHECK(j["ids"] == c["ids"]);
    CHECK(j["tokens"].front() == "[CLS]");
    CHECK(j["tokens"].back() == "[SEP]");
}

TEST_CASE("tokenize cli: a Hugging Face cache entry is read through its snapshot") {
    const std::string hub = fixtures::temp_dir(), entry = hub + "/models--attnviz--tiny-llama3";
    const std::string snap = entry + "/snapshots/0123abcd";
    std::system(("mkdir -p " + snap + " " + entry + "/refs && printf 0123abcd > " + entry + "/refs/main").c_str());
    std::ofstream(snap + "/tokenizer.json") << fixtures::read(fixtures::path("tokenizers/llama3/tokenizer.json"));
    std::ofstream(snap + "/config.json") << "{}";
    const Run r = run({"--tokenize", entry, "--text", "Hello"});
    CHECK(r.code == 0);
    CHECK(r.err.empty());
    CHECK(nlohmann::json::parse(r.out)["tokens"][0] == "<|begin_of_text|>");
    std::system(("rm -rf " + hub).c_str());
}

TEST_CASE("tokenize cli: bad input exits 2 with one line naming the file") {
    const std::string dir = fixtures::temp_dir();
    Run r = run({"--tokenize", dir, "--text", "hi"});
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(r.err == "attnviz: " + dir + "/tokenizer.json: missing (and no vocab.json + merges.txt beside it)\n");
    std::ofstream(dir + "/tokenizer.json") << R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [["a", "b"]]}})";
    r = run({"--tokenize", dir, "--text", "hi"});
    CHECK(r.code == 2);
    CHECK(r.err == "attnviz: " + dir + "/tokenizer.json: /model/merges/0: \"a b\" needs \"b\", which is not in the vocabulary\n");
    r = run({"--tokenize", fixtures::path("tokenizers/llama3"), "--text", "ab\xE9z"});
    CHECK(r.code == 2);
    CHECK(r.err == "attnviz: --text: the text is not valid UTF-8: byte 2 (0xE9)\n");
    r = run({"--tokenize", dir});
    CHECK(r.code == 2);
    CHECK(r.err == "attnviz: --tokenize needs --text TEXT (see attnviz --help)\n");
    r = run({"--tokenize", dir, "--text", "x", "--dump"});
    CHECK(r.code == 2);
    CHECK(r.err == "attnviz: --tokenize takes MODEL and --text TEXT, not --dump (see attnviz --help)\n");
    std::system(("rm -rf " + dir).c_str());
}
