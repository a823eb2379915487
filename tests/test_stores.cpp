// The places people keep models (core/model/format/stores.h) in a fake HOME: every model under the
// name a person knows it by, with its store, path, format and size; bad manifests are one line each
// and the listing goes on; an Ollama NAME:TAG on the command line.
#include "core/model/format/checkpoint.h"
#include "core/model/format/ollama.h"
#include "core/model/format/stores.h"
#include "core/io/tensor.h"
#include "core/model/input.h"
#include "core/model/tokenizer/tokenizer.h"
#include "tests/cli_run.h"
#include "tests/store_home.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using core::model::StoredModel;

namespace {

const StoredModel* named(const std::vector<StoredModel>& models, const std::string& name) {
    for (const auto& m : models)
        if (m.name == name) return &m;
    return nullptr;
}

} // namespace

TEST_CASE("model stores: every model in the Hugging Face cache, Ollama, LM Studio and llama.cpp under its own name") {
    Stores home;
    const auto listing = core::model::list_models(core::model::store_places());
    std::vector<std::string> names, stores;
    for (const auto& m : listing.models) names.push_back(m.name), stores.push_back(m.store);
    CHECK(names == std::vector<std::string>{"Qwen/Qwen3-0.6B", "unsloth/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q6_K.gguf",
                                            "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", "qwen3:0.6b", "someone/tiny:latest",
                                            "lmstudio-community/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf",
                                            "TheBloke/Llama-2-7B-GGUF/llama-2-7b.Q4_K_M.gguf",
                                            "ggml-org_gemma-3-1b-it-GGUF_gemma-3-1b-it-Q4_K_M.gguf"});
    CHECK(stores == std::vector<std::string>{"Hugging Face", "Hugging Face", "Ollama", "Ollama", "Ollama", "LM Studio", "LM Studio", "llama.cpp"});
    const StoredModel* hf = named(listing.models, "Qwen/Qwen3-0.6B");
    REQUIRE(hf);
    CHECK(hf->format == "safetensors");
    CHECK(hf->quantization == "BF16");
    CHECK(hf->complete);
    CHECK(hf->bytes == 8 + std::string(R"({"torch_dtype": "bfloat16"})").size());
    const StoredModel* qwen = named(listing.models, "qwen3:0.6b");
    REQUIRE(qwen);
    CHECK(qwen->path == home.qwen_blob);
    CHECK(qwen->format == "gguf");
    CHECK(qwen->bytes == small_gguf(15).size());
    CHECK(qwen->quantization == "Q4_K_M");
    CHECK(named(listing.models, "someone/tiny:latest")->quantization == "Q8_0");
    CHECK(named(listing.models, "unsloth/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q6_K.gguf")->quantization == "Q6_K");
    CHECK(named(listing.models, "unsloth/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q6_K.gguf")->path == home.hub_gguf);
    CHECK(named(listing.models, "lmstudio-community/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf")->path == home.lm_file);
    CHECK(named(listing.models, "ggml-org_gemma-3-1b-it-GGUF_gemma-3-1b-it-Q4_K_M.gguf")->path == home.cpp_file);
    REQUIRE(listing.problems.size() == 2);
    CHECK(listing.problems[0].find(home.ollama_dir() + "/manifests/registry.ollama.ai/library/") == 0);
    for (const auto& p : listing.problems) {
        INFO(p);
        CHECK(p.find('\n') == std::string::npos);
        CHECK((p.find("/library/broken/latest: not an Ollama manifest") != std::string::npos ||
               p.find("/library/gone/latest: its model layer's blob " + home.ollama_dir() + "/blobs/sha256-dd44 is missing") != std::string::npos));
    }
}

TEST_CASE("model stores: a GGUF file's quantization is general.file_type's name, else its weights' commonest type") {
    StoreHome home;
    fixtures::GgufWriter tensors;
    tensors.put_string("general.architecture", "llama");
    tensors.tensor("token_embd.weight", {32, 4}, 8, 4 * 34);      // Q8_0: 128 values
    tensors.tensor("output_norm.weight", {32}, 0, 32 * 4);         // F32: 32
    tensors.tensor("blk.0.attn_q.weight", {256, 2}, 12, 2 * 144); // Q4_K: 512
    home.file(".cache/llama.cpp/tensors.gguf", tensors.bytes());
    home.file(".cache/llama.cpp/bf16.gguf", small_gguf(32));
    home.file(".cache/llama.cpp/new-type.gguf", small_gguf(99));
    home.file(".cache/llama.cpp/truncated.gguf", small_gguf(15).substr(0, 30));
    const auto listing = core::model::list_models(core::model::store_places());
    std::vector<std::string> got;
    for (const auto& m : listing.models) got.push_back(m.name + " " + m.quantization);
    CHECK(got == std::vector<std::string>{"bf16.gguf BF16", "new-type.gguf ", "tensors.gguf Q4_K", "truncated.gguf "});
}

TEST_CASE("model stores: the places follow the environment, and a place that is not there lists nothing") {
    StoreHome home;
    ::setenv("OLLAMA_MODELS", "/elsewhere/ollama", 1);
    ::setenv("XDG_CACHE_HOME", "/xdg", 1);
    auto places = core::model::store_places();
    CHECK(places.ollama == "/elsewhere/ollama");
    CHECK(places.llama_cpp == "/xdg/llama.cpp");
    CHECK(places.hub == home.dir + "/.cache/huggingface/hub");
    CHECK(places.lm_studio == std::vector<std::string>{home.dir + "/.lmstudio/models", home.dir + "/.cache/lm-studio/models"});
    ::setenv("LLAMA_CACHE", "/cache/llama", 1);
    CHECK(core::model::store_places().llama_cpp == "/cache/llama");
    const auto listing = core::model::list_models(places);
    CHECK(listing.models.empty());
    CHECK(listing.problems.empty());
}

TEST_CASE("model stores: an Ollama name finds its model blob, as ollama names it") {
    Stores home;
    const std::string store = home.ollama_dir();
    for (const char* name : {"qwen3:0.6b", "QWEN3:0.6B", "library/qwen3:0.6b", "registry.ollama.ai/library/qwen3:0.6b"}) {
        INFO(name);
        const auto m = core::model::find_ollama_model(name, store);
        REQUIRE(m);
        CHECK(m->path == home.qwen_blob);
        CHECK(m->name == "qwen3:0.6b");
    }
    CHECK(core::model::find_ollama_model("someone/tiny", store)->path == home.user_blob);
    CHECK(core::model::find_ollama_model("hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", store)->path == home.hf_blob);
    for (const char* missing : {"qwen3", "qwen3:4b", "tiny", "broken", "gone", "", "../qwen3:0.6b"}) CHECK(!core::model::find_ollama_model(missing, store));
}

TEST_CASE("model stores: --list-models prints every model as JSON, the bundled one first, each bad manifest one line, and goes on") {
    Stores home;
    const Run r = run({"--list-models"});
    CHECK(r.code == 0);
    const nlohmann::json j = nlohmann::json::parse(r.out);
    REQUIRE(j["models"].size() == 9);
    const nlohmann::json& bundled = j["models"][0]; // as Open model lists it
    const std::optional<StoredModel> shipped = core::model::bundled_model();
    REQUIRE(shipped);
    CHECK(bundled["name"] == std::filesystem::path(shipped->path).filename().string());
    CHECK(bundled["store"] == "attnviz");
    CHECK(bundled["path"] == shipped->path);
    CHECK(bundled["format"] == "safetensors");
    CHECK(bundled["bytes"].get<std::uint64_t>() > 1000);
    CHECK(core::model::open_model(bundled["path"].get<std::string>()).model->config().layers > 0);
    const nlohmann::json& qwen = j["models"][4];
    CHECK(qwen["name"] == "qwen3:0.6b");
    CHECK(qwen["store"] == "Ollama");
    CHECK(qwen["path"] == home.qwen_blob);
    CHECK(qwen["format"] == "gguf");
    CHECK(qwen["bytes"] == small_gguf(15).size());
    CHECK(j["models"][1]["quantization"] == "BF16");
    CHECK(qwen["quantization"] == "Q4_K_M");
    CHECK(r.err.find("attnviz: " + home.ollama_dir() + "/manifests/registry.ollama.ai/library/broken/latest: not an Ollama manifest") == 0);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 2);
    const Run bad = run({"--list-models", "extra"});
    CHECK(bad.code == 2);
    CHECK(bad.err.find("--list-models takes nothing more, not extra") != std::string::npos);
}

TEST_CASE("model stores: MODEL may be an Ollama NAME:TAG — its blob is what opens, and a bad one is named") {
    Stores home;
    home.file(".ollama/models/blobs/sha256-aa11", "not a model");
    try {
        core::model::open_model("qwen3:0.6b");
        FAIL("a blob that is no model opened");
    } catch (const core::io::FileError& e) {
        CHECK(std::string(e.what()).find(home.qwen_blob) == 0);
    }
    const Run r = run({"--forward", "qwen3:0.6b", "--sequence", "1 2"});
    CHECK(r.code == 2);
    CHECK(r.err.find(home.qwen_blob) != std::string::npos);
    try {
        core::model::open_model("nothere:1b");
        FAIL("opened a model that is nowhere");
    } catch (const core::io::FileError& e) {
        CHECK(std::string(e.what()).find("nothere:1b") == 0);
    }
}

TEST_CASE("model stores: a GGUF file's own tokenizer: --tokenize on the file or its Ollama NAME:TAG, and the model's") {
    StoreHome home;
    // GPT-2's vocabulary and merges as a GGUF file's tokenizer.ggml.* (the tokenizer alone, no tensors).
    const nlohmann::json encoder = nlohmann::json::parse(fixtures::read(fixtures::path("gpt2/encoder.json")));
    std::vector<std::string> tokens(encoder.size()), merges;
    for (auto it = encoder.begin(); it != encoder.end(); ++it) tokens[it.value().get<std::size_t>()] = it.key();
    std::istringstream lines(fixtures::read(fixtures::path("gpt2/vocab.bpe")));
    for (std::string line; std::getline(lines, line);)
        if (!line.empty() && line[0] != '#') merges.push_back(line);
    std::vector<std::int32_t> types(tokens.size(), 1);
    types.back() = 3; // <|endoftext|>: control
    fixtures::GgufWriter w;
    w.put_string("general.architecture", "gpt2");
    w.put_string("tokenizer.ggml.model", "gpt2");
    w.put_string("tokenizer.ggml.pre", "gpt-2");
    w.put_strings("tokenizer.ggml.tokens", tokens);
    w.put_i32s("tokenizer.ggml.token_type", types);
    w.put_strings("tokenizer.ggml.merges", merges);
    const std::string file = home.file("gpt2.gguf", w.bytes());
    home.ollama("registry.ollama.ai/library/tiny/latest", "ee55", w.bytes());
    const std::string text = "The cat's café, 12345 <|endoftext|>!";
    const std::vector<int> want = core::model::load_gpt2_files(fixtures::path("gpt2/encoder.json"), fixtures::path("gpt2/vocab.bpe")).encode_ids(text);
    REQUIRE(want.size() > 8);
    for (const std::string& model : {file, std::string("tiny")}) {
        INFO(model);
        const Run r = run({"--tokenize", model, "--text", text});
        CHECK(r.code == 0);
        CHECK(nlohmann::json::parse(r.out)["ids"].get<std::vector<int>>() == want);
    }
    core::model::OpenedModel m;
    m.path = file;
    CHECK(core::model::tokenizer_of(m).encode_ids(text) == want);
    m.path = home.file("bare.gguf", small_gguf(0)); // no tokenizer.ggml.model: ids are typed
    CHECK(core::model::tokenizer_of(m).vocab_size() == 0);
    const Run bare = run({"--tokenize", m.path, "--text", text});
    CHECK(bare.code == 2);
    CHECK(bare.err.find(m.path + ": metadata key \"tokenizer.ggml.model\"") != std::string::npos);
}
