// --train and --forward through the program's entry point, and the model file: a round trip and
// every way a model file can be wrong.
#include "cli_run.h"
#include "core/io/safetensors.h"
#include "core/train/model_file.h"
#include "core/train/trainer.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>
#include <unistd.h>

using namespace core::train;

namespace {

std::string train_out_path(const std::string& stem) {
    return "/tmp/attnviz-train-" + std::to_string(::getpid()) + "-" + stem + ".safetensors";
}

SavedModel tiny_model(bool mlp) {
    SavedModel s{Model(ModelConfig{7, 8, 8, 2, 2, mlp}), Task::previous, Init::large, 5, 12}; // vocab 7, T 8, D 8, 2 heads, 2 layers
    Rng rng(5);
    initialise(s.model, Init::large, rng);
    return s;
}

// Exit 2, nothing on stdout, one line naming every fragment.
void fails_naming(const Run& r, std::initializer_list<std::string> fragments) {
    CHECK(r.code == 2);
    CHECK(r.out.empty());
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    for (const std::string& f : fragments) {
        CAPTURE(f);
        CHECK(r.err.find(f) != std::string::npos);
    }
}

} // namespace

TEST_CASE("train cli: bad flags exit 2 with a clear message") {
    fails_naming(run({"--train", "juggle", "--out", "x.safetensors"}), {"unknown task \"juggle\""});
    fails_naming(run({"--train", "repeat"}), {"--out"});
    fails_naming(run({"--train", "repeat", "--heads", "3", "--out", "x"}), {"D = 32 is not a multiple of H = 3"});
    fails_naming(run({"--train", "repeat", "--lr", "fast", "--out", "x"}), {"--lr", "fast"});
    fails_naming(run({"--train", "repeat", "--steps", "-4", "--out", "x"}), {"--steps", "-4"});
    fails_naming(run({"--train", "repeat", "--init", "huge", "--out", "x"}), {"--init", "huge"});
    fails_naming(run({"--train", "repeat", "--wobble", "--out", "x"}), {"unknown option --wobble"});
    fails_naming(run({"--forward", "m.safetensors"}), {"--sequence"});
    fails_naming(run({"--forward", "m.safetensors", "--sequence", "1", "--mlp"}), {"--forward takes only --sequence"});
}

TEST_CASE("train cli: --train prints a JSON line every 50 steps and after the last, then --forward reads the model") {
    const std::string path = train_out_path("cli");
    const Run r = run({"--train", "previous", "--layers", "1", "--heads", "2", "--d-model", "8", "--ctx", "6", "--vocab", "5",
                       "--steps", "60", "--seed", "3", "--threads", "1", "--out", path});
    REQUIRE(r.code == 0);
    std::istringstream lines(r.out);
    std::vector<nlohmann::json> js;
    for (std::string line; std::getline(lines, line);) js.push_back(nlohmann::json::parse(line));
    REQUIRE(js.size() == 2);
    CHECK(js[0]["step"] == 50);
    CHECK(js[1]["step"] == 60);
    REQUIRE(js[1]["heads"].size() == 2);
    CHECK(js[1]["heads"][1]["layer"] == 1);
    CHECK(js[1]["heads"][1]["head"] == 2);
    for (const char* key : {"loss", "accuracy", "steps_per_s"}) CHECK(js[1][key].is_number());
    for (const char* key : {"previous", "induction", "copy"}) CHECK(js[1]["heads"][0][key].is_number());

    const Run f = run({"--forward", path, "--sequence", "3 1 4 1"});
    REQUIRE(f.code == 0);
    const auto j = nlohmann::json::parse(f.out);
    const SavedModel saved = load_model(path);
    CHECK(saved.step == 60);
    Batch b;
    b.B = 1;
    b.t = 4;
    b.tokens = {3, 1, 4, 1};
    b.targets.assign(4, -1);
    Workspace ws;
    forward_all(saved.model, b, ws);
    REQUIRE(j["logits"].size() == 4);
    REQUIRE(j["logits"][0].size() == 5);
    CHECK(j["logits"][3][2].get<double>() == ws.logits(3, 2)); // 17 digits: exact
    REQUIRE(j["attention"].size() == 1);
    REQUIRE(j["attention"][0].size() == 2);
    CHECK(j["attention"][0][1][2][1].get<double>() == ws.attention(0, 0, 1)(2, 1));
    CHECK(j["attention"][0][1][1][2].get<double>() == 0.0); // causal

    fails_naming(run({"--forward", path, "--sequence", "3 9"}), {"\"9\"", path});
    fails_naming(run({"--forward", path, "--sequence", "1 2 3 4 1 2 3"}), {"7 tokens", "1 to 6"});
    std::remove(path.c_str());
}

TEST_CASE("train cli: a model file round-trips exactly, with and without the MLP") {
    for (bool mlp : {false, true}) {
        const SavedModel a = tiny_model(mlp);
        const std::string path = train_out_path("roundtrip");
        save_model(path, a);
        const SavedModel b = load_model(path);
        CHECK(b.model.config() == a.model.config());
        CHECK(b.model.params == a.model.params);
        CHECK(b.task == a.task);
        CHECK(b.seed == a.seed);
        CHECK(b.step == a.step);
        // W_Q is (H, D, d_head) in the file: head 1, row 2, column 3 is column d_head + 3 here.
        const core::io::TensorFile f = core::io::read_safetensors(path);
        const core::io::Tensor& wq = f.tensors.at("blocks.1.attn.W_Q");
        CHECK(wq.shape == std::vector<std::int64_t>{2, 8, 4});
        CHECK(wq.values[(1 * 8 + 2) * 4 + 3] == a.model.tensor(a.model.layout.layers[1].W_Q)(2, 4 + 3));
        CHECK(f.tensors.at("blocks.0.ln1.w").shape == std::vector<std::int64_t>{8});
        CHECK(nlohmann::json::parse(f.metadata.at("config"))["mlp"] == mlp);
        std::remove(path.c_str());
    }
}

namespace {
// Writes the tiny model with `change` applied and runs --forward on it.
template <class Change>
Run forward_on_broken(Change change, std::string& path) {
    core::io::TensorFile f = to_tensor_file(tiny_model(false));
    change(f);
    path = train_out_path("broken");
    core::io::write_safetensors(path, f);
    Run r = run({"--forward", path, "--sequence", "1 2 3"});
    std::remove(path.c_str());
    return r;
}
} // namespace

TEST_CASE("train cli: a bad model file exits 2 naming the file and the tensor") {
    std::string path;
    SUBCASE("a missing tensor") {
        const Run r = forward_on_broken([](core::io::TensorFile& f) { f.tensors.erase("blocks.1.attn.W_K"); }, path);
        fails_naming(r, {path, "blocks.1.attn.W_K", "missing"});
    }
    SUBCASE("a wrong shape") {
        const Run r = forward_on_broken([](core::io::TensorFile& f) {
            core::io::Tensor& t = f.tensors.at("unembed.W_U");
            t.shape = {7, 8};
        }, path);
        fails_naming(r, {path, "unembed.W_U", "(7, 8)", "(8, 7)"});
    }
    SUBCASE("a wrong dtype") {
        const Run r = forward_on_broken([](core::io::TensorFile& f) {
            core::io::Tensor& t = f.tensors.at("embed.W_pos");
            for (double& v : t.values) v = std::round(v * 10);
            t.dtype = core::io::DType::i32;
        }, path);
        fails_naming(r, {path, "embed.W_pos", "int32"});
    }
    SUBCASE("a config that does not match the tensors") {
        const Run r = forward_on_broken([](core::io::TensorFile& f) {
            auto c = nlohmann::json::parse(f.metadata.at("config"));
            c["D"] = 16;
            f.metadata["config"] = c.dump();
        }, path);
        fails_naming(r, {path, "embed.W_E", "(7, 8)", "(7, 16)"});
    }
    SUBCASE("a config with the MLP on, tensors without") {
        const Run r = forward_on_broken([](core::io::TensorFile& f) {
            auto c = nlohmann::json::parse(f.metadata.at("config"));
            c["mlp"] = true;
            f.metadata["config"] = c.dump();
        }, path);
        fails_naming(r, {path, "blocks.0.ln2.w", "missing"});
    }
    SUBCASE("an extra tensor the config does not describe") {
        const Run r = forward_on_broken([](core::io::TensorFile& f) { f.tensors["blocks.2.attn.W_O"] = f.tensors.at("blocks.1.attn.W_O"); }, path);
        fails_naming(r, {path, "blocks.2.attn.W_O", "not part of the model"});
    }
    SUBCASE("no config") {
        const Run r = forward_on_broken([](core::io::TensorFile& f) { f.metadata.clear(); }, path);
        fails_naming(r, {path, "config"});
    }
    SUBCASE("a file that is not there") {
        fails_naming(run({"--forward", "/nonexistent/m.safetensors", "--sequence", "1"}), {"/nonexistent/m.safetensors"});
    }
}
