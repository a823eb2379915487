// The scenario file format: a round trip, and a clear message for every kind of bad input.
#include "core/presets.h"
#include "core/io/scenario_io.h"
#include "tests/fixture_files.h"
#include "tests/thrown.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace {

std::string parse_error(const std::string& text) { return thrown<core::ScenarioError>([&] { core::io::parse_scenario(text); }); }

const std::string seed_file = R"({
  "tokens": ["the", "cat", "sat"],
  "X":   [[1, 0], [0, 1], [1, 1]],
  "W_Q": [[1, 0], [1, 2]],
  "W_K": [[2, 0], [0, 1]],
  "W_V": [[1, 0], [0, 2]],
  "causal": false,
  "scale": true
})";

} // namespace

TEST_CASE("the three-token article's file reads as the worked example") {
    CHECK(core::io::parse_scenario(seed_file) == core::preset_three_tokens());
    // causal and scale may be left out; tokens default to t1, t2, …
    const core::Scenario s = core::io::parse_scenario(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})");
    CHECK(s.tokens == std::vector<std::string>{"t1"});
    CHECK(s.scale == core::ScoreScale::inv_sqrt_d_k);
    CHECK_FALSE(s.causal);
}

TEST_CASE("save then load gives back the same scenario, doubles exact") {
    const std::string dir = fixtures::temp_dir();
    for (core::Scenario s : {core::preset_three_tokens(), core::preset_numpy_random(), core::preset_it_sentence(),
                             core::random_scenario(core::Shape{}.with_tokens(5).with_d_model(3).with_d_k(2).with_d_v(4).with_heads(3).with_W_O(), 99)}) {
        s.causal = true;
        s.scale = core::ScoreScale::none;
        s.positional = core::Positional::sinusoidal;
        s.tokens[0] = "quote \" and ünïcode";
        s.pin = core::QueryPin{static_cast<int>(s.heads.size()) - 1, 1, core::Vector::Constant(s.d_k(), 0.1)};
        s.X(0, 0) = 1.0 / 3.0;
        s.X(0, s.d_model() - 1) = -1e-300;
        const std::string path = dir + "/scene.json";
        core::io::save_scenario_file(path, s);
        CHECK(core::io::load_scenario_file(path) == s);
        CHECK(core::io::to_json_text(core::io::load_scenario_file(path)) == fixtures::read(path));
    }
    std::remove((dir + "/scene.json").c_str());
    ::rmdir(dir.c_str());
}

TEST_CASE("multi-head files use \"heads\" and \"W_O\"") {
    const core::Scenario s = core::io::parse_scenario(R"({"X": [[1, 2]],
        "heads": [{"W_Q": [[1], [0]], "W_K": [[1], [0]], "W_V": [[1], [1]]},
                  {"W_Q": [[0], [1]], "W_K": [[0], [1]], "W_V": [[2], [2]]}],
        "W_O": [[1, 0], [0, 1]]})");
    CHECK(s.heads.size() == 2);
    CHECK(s.W_O.rows() == 2);
}

TEST_CASE("bad files: each message names the field") {
    CHECK(parse_error("{") .rfind("invalid JSON: parse error", 0) == 0);
    CHECK(parse_error("") .rfind("invalid JSON", 0) == 0);
    CHECK(parse_error("[1, 2]") == "the file is an array, expected a JSON object");
    CHECK(parse_error(R"({"X": [[1, 0]]})") == "W_Q is missing");
    CHECK(parse_error(R"({"X": true, "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "X is true/false, expected an array of rows");
    // A string names a file (see test_scenario_files.cpp).
    CHECK(parse_error(R"({"X": "abc", "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") ==
          "X: abc: unknown kind of file; attnviz reads arrays from .npy, .npz, .safetensors, .csv and .tsv");
    CHECK(parse_error(R"({"X": [[1, "a"]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "X[0][1] is a string, expected a number");
    CHECK(parse_error(R"({"X": [[1, 2], [3]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "X[1] has 1 entries, expected 2 (like X[0])");
    CHECK(parse_error(R"({"X": [[1, 0], [0, 1], [1, 1]], "W_Q": [[1, 0], [1, 2], [0, 0]], "W_K": [[2, 0], [0, 1]], "W_V": [[1, 0], [0, 2]]})") ==
          "W_Q has 3 rows, expected 2 (the width of X)");
    CHECK(parse_error(R"({"X": [[1e7]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "X[0][0] is 10000000, outside ±1e6");
    CHECK(parse_error(R"({"X": [[1e400]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})") == "X[0][0] is 1e400, too large for a double (line 1, column 9)");
    CHECK(parse_error("{\"X\": [[1]],\n \"heads\": [{\"W_Q\": [[1]], \"W_K\": [[-2e999]], \"W_V\": [[1]]}]}") ==
          "heads[0].W_K[0][0] is -2e999, too large for a double (line 2, column 36)");
    CHECK(parse_error("{\"X\": [[1, 1e400") == "invalid JSON: 1e400 is too large for a double (line 1, column 12)");
    CHECK(parse_error(R"({"X": [[NaN]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})").rfind("invalid JSON", 0) == 0);
    CHECK(parse_error(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "causal": 1})") == "causal is a number, expected true or false");
    CHECK(parse_error(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "w_o": 1})") == "unknown field \"w_o\"");
    CHECK(parse_error(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "tokens": ["a", "b"]})") == "tokens has 2 names, expected 1 (the rows of X)");
    CHECK(parse_error(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "tokens": [3]})") == "tokens[0] is a number, expected a string");
    CHECK(parse_error(R"({"X": [[1]], "heads": []})") == "heads is empty (at least one head is needed)");
    CHECK(parse_error(R"({"X": [[1]], "heads": [{"W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]}, {"W_Q": [[1, 1]], "W_K": [[1]], "W_V": [[1]]}]})") ==
          "heads[1].W_Q has 2 columns, expected 1 (d_k, the width of heads[0].W_Q)");
    CHECK(parse_error(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "positional": "rope"})") ==
          "positional is \"rope\", expected \"none\" or \"sinusoidal\"");
    CHECK(parse_error(R"({"X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]], "pin": {"head": 0, "row": 5, "q": [1]}})") ==
          "pin.row is 5, expected 0..0");
}

TEST_CASE("200,000 nested brackets: a message, not a crash") {
    CHECK(parse_error(std::string(200000, '[')) == "nesting is deeper than 32 levels");
    CHECK(parse_error("{\"X\": " + std::string(100000, '[') + std::string(100000, ']') + "}") == "nesting is deeper than 32 levels");
    // Brackets inside strings do not count.
    CHECK(parse_error(R"({"tokens": ["[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["], "X": [[1]], "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})").empty());
}

TEST_CASE("loading a file: missing, a directory, and the path in the message") {
    auto load_error = [](const std::string& path) {
        try {
            core::io::load_scenario_file(path);
        } catch (const core::ScenarioError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(load_error("/nonexistent/scene.json") == "/nonexistent/scene.json: cannot open: No such file or directory");
    CHECK(load_error("/tmp") == "/tmp: is a directory, expected a scenario file");
    // A model given where a scenario goes (`attnviz model.gguf`) is named as a model, before any of
    // its bytes are read as JSON.
    const std::string gguf = fixtures::temp_dir() + "/model.gguf", folder = fixtures::temp_dir() + "/hub_model";
    std::ofstream(gguf, std::ios::binary) << "GGUF\x03\x00\x00\x00[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[";
    ::mkdir(folder.c_str(), 0755);
    std::ofstream(folder + "/config.json") << R"({"model_type": "gpt2"})";
    const std::string hint = ": is a model, not a scenario file: open it with --model, or with File ▸ Open model…";
    CHECK(load_error(gguf) == gguf + hint);
    CHECK(load_error(folder) == folder + hint);
}

TEST_CASE("random garbage never crashes the loader") {
    std::mt19937 rng(1);
    const std::string alphabet = "{}[]\",:0123456789.eE+-tfnXW_QKVOheadsrul \n";
    for (int trial = 0; trial < 2000; ++trial) {
        std::string text = seed_file;
        for (int k = 0; k < 1 + trial % 6; ++k) text[rng() % text.size()] = alphabet[rng() % alphabet.size()];
        try {
            const core::Scenario s = core::io::parse_scenario(text);
            CHECK(core::validate(s).empty());
        } catch (const core::ScenarioError& e) {
            CHECK(std::string(e.what()).size() > 0);
        }
    }
}

TEST_CASE("a failed save names the file and leaves the old one") {
    const std::string dir = fixtures::temp_dir();
    const std::string path = dir + "/keep.json";
    core::io::save_scenario_file(path, core::preset_three_tokens());
    const std::string before = fixtures::read(path);
    CHECK_THROWS_WITH_AS(core::io::save_scenario_file(dir + "/missing/x.json", core::preset_it_sentence()),
                         doctest::Contains("missing/x.json: cannot create a temporary file"), core::ScenarioError);
    core::Scenario bad = core::preset_it_sentence();
    bad.X(0, 0) = NAN;
    CHECK_THROWS_AS(core::io::save_scenario_file(path, bad), core::ScenarioError);
    CHECK(fixtures::read(path) == before);
    std::remove(path.c_str());
    ::rmdir(dir.c_str());
}
