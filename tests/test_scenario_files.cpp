// Scenario files that point at arrays, direct Q/K/V, and the NumPy presets.
#include "app/cli/cli.h"
#include "core/attention.h"
#include "core/random.h"
#include "core/io/arrays.h"
#include "core/io/npy.h"
#include "core/io/safetensors.h"
#include "core/numpy_print.h"
#include "core/presets.h"
#include "core/io/scenario_io.h"
#include "tests/array_files.h"
#include "tests/fixture_files.h"
#include "tests/thrown.h"

#include <nlohmann/json.hpp>

namespace {

std::string scenario_error(const std::string& text, const std::string& base = "") {
    return thrown<core::ScenarioError>([&] { core::io::parse_scenario(text, base); });
}

core::io::Tensor f64_tensor(std::vector<std::int64_t> shape, std::vector<double> values) {
    core::io::Tensor t;
    t.shape = std::move(shape);
    t.values = std::move(values);
    return t;
}

} // namespace

TEST_CASE("the NumPy example preset prints what the article's print(w.round(2)) prints") {
    const auto art = nlohmann::json::parse(fixtures::read(fixtures::path("rng.json")))["article"];
    const core::Scenario s = core::preset_numpy_example();
    CHECK(s.direct);
    CHECK(s.n() == 4);
    CHECK(s.d_k() == 8);
    const core::Result r = core::compute(s);
    CHECK(core::numpy_print_rounded(r.heads[0].weights, 2) == art["print_w_round_2"].get<std::string>());
    CHECK(core::numpy_print_rounded(r.heads[0].weights, 2) == "[[0.3  0.47 0.08 0.14]\n [0.33 0.07 0.25 0.35]\n [0.32 0.39 0.23 0.06]\n [0.1  0.03 0.68 0.18]]");
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 8; ++j)
            CHECK(r.heads[0].output(i, j) == doctest::Approx(art["out"][static_cast<size_t>(i)][static_cast<size_t>(j)].get<double>()).epsilon(1e-12));
    const core::Scenario big = core::numpy_random_qkv(7, 6, 3);
    CHECK(big.n() == 6);
    CHECK(big.d_v() == 3);
    CHECK(core::find_preset("numpy-example")->make() == s);
    CHECK(core::find_preset("nope") == nullptr);
}

TEST_CASE("direct Q, K, V in a scenario file: one head or several — a round trip — mixed inputs refused") {
    const std::string one = R"({"tokens": ["a", "b"], "Q": [[1, 0], [0, 1]], "K": [[1, 0], [0, 1]], "V": [[2], [4]]})";
    const core::Scenario s = core::io::parse_scenario(one);
    CHECK(s.direct);
    CHECK(s.X.size() == 0);
    const core::Result r = core::compute(s);
    CHECK(r.heads[0].Q == s.heads[0].Q);
    CHECK(r.output.cols() == 1);
    CHECK(core::io::parse_scenario(core::io::to_json_text(s)) == s);
    const core::Scenario two = core::io::parse_scenario(R"({"heads": [{"Q": [[1]], "K": [[1]], "V": [[1]]}, {"Q": [[2]], "K": [[2]], "V": [[3]]}], "W_O": [[1, 1], [0, 1]]})");
    CHECK(two.heads.size() == 2);
    CHECK(core::io::parse_scenario(core::io::to_json_text(two)) == two);
    CHECK(core::compute(two).output.cols() == 2);
    CHECK(scenario_error(R"({"X": [[1]], "Q": [[1]], "K": [[1]], "V": [[1]]})") == "X and Q/K/V are both given; give X with W_Q/W_K/W_V, or Q, K and V");
    CHECK(scenario_error(R"({"Q": [[1, 2]], "K": [[1]], "V": [[1]]})") == "K has 1 columns, expected 2 (d_k, the width of Q)");
    CHECK(scenario_error(R"({"Q": [[1]], "K": [[1], [2]], "V": [[1]]})") == "K has 2 rows, expected 1 (the number of tokens)");
    CHECK(scenario_error(R"({"Q": [[1]], "K": [[1]]})") == "V is missing");
    CHECK(scenario_error(R"({"Q": [[1]], "K": [[1]], "V": [[1]], "positional": "sinusoidal"})") ==
          "positional encoding needs X (Q, K and V are given directly)");
}

TEST_CASE("scenario fields that name .npy, .safetensors and token files, relative to the scenario") {
    const std::string dir = fixtures::temp_dir();
    fixtures::write_npy(dir + "/emb.npy", f64_tensor({3, 2}, {1, 0, 0, 1, 1, 1}));
    core::io::TensorFile layer;
    // PyTorch stores a Linear's weight as (out, in): W_Q of the worked example, transposed.
    layer.tensors["attn.q_proj.weight"] = f64_tensor({2, 2}, {1, 1, 0, 2});
    layer.tensors["k"] = f64_tensor({2, 2}, {2, 0, 0, 1});
    core::io::write_safetensors(dir + "/layer3.safetensors", layer);
    std::ofstream(dir + "/tokens.txt") << "the\ncat\nsat\n";
    std::ofstream(dir + "/scene.json") << R"({"tokens": "tokens.txt", "X": "emb.npy",
        "W_Q": {"file": "layer3.safetensors", "tensor": "attn.q_proj.weight", "transpose": true},
        "W_K": {"file": "layer3.safetensors", "tensor": "k"}, "W_V": [[1, 0], [0, 2]]})";
    CHECK(core::io::load_scenario_file(dir + "/scene.json") == core::preset_three_tokens());

    SUBCASE("a 3-d array fills heads[]") {
        fixtures::write_npy(dir + "/wq.npy", f64_tensor({2, 2, 1}, {1, 0, 0, 1}));
        std::ofstream(dir + "/heads.json") << R"({"X": "emb.npy", "W_Q": "wq.npy", "W_K": "wq.npy", "W_V": "wq.npy"})";
        const core::Scenario s = core::io::load_scenario_file(dir + "/heads.json");
        REQUIRE(s.heads.size() == 2);
        CHECK(s.heads[1].W_Q(1, 0) == 1);
        std::ofstream(dir + "/bad_heads.json") << R"({"X": "emb.npy", "W_Q": "wq.npy", "W_K": [[1], [0]], "W_V": "wq.npy"})";
        CHECK_THROWS_WITH(core::io::load_scenario_file(dir + "/bad_heads.json"),
                          (dir + "/bad_heads.json: W_Q, W_K and W_V give 2, 1 and 2 heads; they must agree").c_str());
    }
    SUBCASE("errors name the scenario, the field and the array file") {
        std::ofstream(dir + "/missing.json") << R"({"X": "nothere.npy", "W_Q": [[1]], "W_K": [[1]], "W_V": [[1]]})";
        CHECK_THROWS_WITH(core::io::load_scenario_file(dir + "/missing.json"),
                          (dir + "/missing.json: X: " + dir + "/nothere.npy: cannot open: No such file or directory").c_str());
        std::ofstream(dir + "/wrongname.json") << R"({"X": "emb.npy", "W_Q": {"file": "layer3.safetensors", "tensor": "q"}, "W_K": [[1]], "W_V": [[1]]})";
        CHECK_THROWS_WITH(core::io::load_scenario_file(dir + "/wrongname.json"),
                          (dir + "/wrongname.json: W_Q: " + dir + "/layer3.safetensors: has no array \"q\" (it has: attn.q_proj.weight, k)").c_str());
        std::ofstream(dir + "/shape.json") << R"({"X": "emb.npy", "W_Q": [[1, 0], [1, 2], [0, 0]], "W_K": [[1]], "W_V": [[1]]})";
        CHECK_THROWS_WITH(core::io::load_scenario_file(dir + "/shape.json"), (dir + "/shape.json: W_Q has 3 rows, expected 2 (the width of X)").c_str());
    }
    SUBCASE("a wrong shape names the scenario and the array file the user must fix") {
        fixtures::write_npy(dir + "/wrongshape.npy", f64_tensor({3, 2}, {1, 0, 0, 1, 1, 1}));
        std::ofstream(dir + "/scene.json") << R"({"X": "emb.npy", "W_Q": "wrongshape.npy", "W_K": [[1]], "W_V": [[1]]})";
        CHECK_THROWS_WITH(core::io::load_scenario_file(dir + "/scene.json"),
                          (dir + "/scene.json: W_Q (wrongshape.npy) has 3 rows, expected 2 (the width of X)").c_str());
        std::ofstream(dir + "/object.json") << R"({"X": "emb.npy", "W_Q": [[1, 0], [0, 1]], "W_K": {"file": "wrongshape.npy"}, "W_V": [[1]]})";
        CHECK_THROWS_WITH(core::io::load_scenario_file(dir + "/object.json"),
                          (dir + "/object.json: W_K (wrongshape.npy) has 3 rows, expected 2 (the width of X)").c_str());
        fixtures::write_npy(dir + "/wq.npy", f64_tensor({2, 2, 1}, {1, 0, 0, 1}));
        fixtures::write_npy(dir + "/wv3.npy", f64_tensor({2, 3, 1}, {1, 0, 0, 1, 1, 1}));
        std::ofstream(dir + "/stacked.json") << R"({"X": "emb.npy", "W_Q": "wq.npy", "W_K": "wq.npy", "W_V": "wv3.npy"})";
        CHECK_THROWS_WITH(core::io::load_scenario_file(dir + "/stacked.json"),
                          (dir + "/stacked.json: heads[0].W_V (wv3.npy) has 3 rows, expected 2 (the width of X)").c_str());
        std::ofstream(dir + "/inline.json") << R"({"heads": [{"Q": [[1]], "K": [[1], [2]], "V": [[1]]}, {"Q": [[1]], "K": "wrongshape.npy", "V": [[1]]}]})";
        CHECK_THROWS_WITH(core::io::load_scenario_file(dir + "/inline.json"),
                          (dir + "/inline.json: heads[0].K has 2 rows, expected 1 (the number of tokens)").c_str());
    }
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("a tensor file alone opens as a scenario") {
    const std::string dir = fixtures::temp_dir();
    fixtures::write_npy(dir + "/emb.npy", f64_tensor({3, 2}, {1, 0, 0, 1, 1, 1}));
    const core::Scenario x = core::io::scenario_from_array_file(dir + "/emb.npy");
    CHECK(x.X == core::preset_three_tokens().X);
    CHECK(x.heads[0].W_Q == core::Matrix::Identity(2, 2));
    std::ofstream(dir + "/emb.csv") << "token,a,b\nthe,1,0\ncat,0,1\n";
    CHECK(core::io::scenario_from_array_file(dir + "/emb.csv").tokens == std::vector<std::string>{"the", "cat"});
    core::io::TensorFile qkv;
    qkv.tensors["Q"] = f64_tensor({2, 1, 2}, {1, 2, 3, 4});
    qkv.tensors["K"] = f64_tensor({2, 1, 2}, {1, 0, 0, 1});
    qkv.tensors["V"] = f64_tensor({2, 1, 1}, {5, 6});
    core::io::write_safetensors(dir + "/qkv.safetensors", qkv);
    const core::Scenario d = core::io::scenario_from_array_file(dir + "/qkv.safetensors");
    CHECK(d.direct);
    CHECK(d.heads.size() == 2);
    CHECK(d.heads[1].V(0, 0) == 6);
    CHECK_THROWS_WITH(core::io::scenario_from_array_file(fixtures::path("npy/bad_nan.npy")),
                      (fixtures::path("npy/bad_nan.npy") + ": element [1, 0] is NaN; every value must be a finite number").c_str());
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("--presets and --preset ID on the command line") {
    auto run = [](std::vector<const char*> args, std::string& out_text, std::string& err_text) {
        args.insert(args.begin(), "attnviz");
        std::ostringstream out, err;
        const int rc = app::main_with(static_cast<int>(args.size()), args.data(), out, err, nullptr);
        out_text = out.str();
        err_text = err.str();
        return rc;
    };
    std::string out, err;
    CHECK(run({"--presets"}, out, err) == 0);
    const auto list = nlohmann::json::parse(out);
    CHECK(list.size() == core::presets().size());
    CHECK(list[1]["id"] == "numpy-example");
    CHECK(list[1]["title"] == "NumPy example — default_rng(0), 4 × 8");
    CHECK(run({"--dump", "--preset", "numpy-random", "--seed", "5", "--tokens", "3", "--dim", "2"}, out, err) == 0);
    const auto dump = nlohmann::json::parse(out);
    CHECK(dump["tokens"].size() == 3);
    CHECK(dump["heads"][0]["Q"][0][0].get<double>() == doctest::Approx(core::NumpyRng(5).standard_normal()));
    CHECK(run({"--dump", "--preset", "nope"}, out, err) == 2);
    CHECK(err.find("there is no preset \"nope\"") != std::string::npos);
    CHECK(run({"--dump", "--preset", "cat-sat", "--seed", "2"}, out, err) == 2);
    CHECK(run({"--dump", fixtures::path("npy/bad_nan.npy").c_str()}, out, err) == 2);
    CHECK(err == "attnviz: " + fixtures::path("npy/bad_nan.npy") + ": element [1, 0] is NaN; every value must be a finite number\n");
}
