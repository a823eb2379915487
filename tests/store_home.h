// tests/store_home.h — a fake HOME for a test's life, with the environment of the model stores
// (HF_HUB_CACHE, HF_HOME, OLLAMA_MODELS, LLAMA_CACHE, XDG_CACHE_HOME) unset, and ways to put models
// where Ollama, LM Studio, llama.cpp and the Hugging Face cache keep them.
#pragma once

#include "tests/fixture_files.h"
#include "tests/gguf_writer.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>

struct StoreHome {
    std::string dir = fixtures::temp_dir();
    std::map<std::string, std::optional<std::string>> saved;

    StoreHome() {
        for (const char* name : {"HOME", "HF_HUB_CACHE", "HF_HOME", "OLLAMA_MODELS", "LLAMA_CACHE", "XDG_CACHE_HOME"}) {
            const char* v = std::getenv(name);
            saved[name] = v ? std::optional<std::string>(v) : std::nullopt;
            ::unsetenv(name);
        }
        ::setenv("HOME", dir.c_str(), 1);
    }
    ~StoreHome() {
        for (const auto& [name, v] : saved) v ? (void)::setenv(name.c_str(), v->c_str(), 1) : (void)::unsetenv(name.c_str());
        std::filesystem::remove_all(dir);
    }
    StoreHome(const StoreHome&) = delete;
    StoreHome& operator=(const StoreHome&) = delete;

    // A file at HOME/rel holding `bytes`.
    std::string file(const std::string& rel, const std::string& bytes) const {
        const std::filesystem::path p = std::filesystem::path(dir) / rel;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << bytes;
        return p.string();
    }
    std::string ollama_dir() const { return dir + "/.ollama/models"; }
    // A manifest at manifests/HOST/NAMESPACE/NAME/TAG whose model layer is `model` (blob sha256-HEX).
    // Returns the blob's path.
    std::string ollama(const std::string& manifest, const std::string& hex, const std::string& model) const {
        const std::string json = R"({"schemaVersion": 2, "config": {"mediaType": "application/vnd.docker.container.image.v1+json",)"
                                 R"( "digest": "sha256:00"}, "layers": [{"mediaType": "application/vnd.ollama.image.template",)"
                                 R"( "digest": "sha256:01"}, {"mediaType": "application/vnd.ollama.image.model", "digest": "sha256:)" + hex + R"(",)"
                                 R"( "size": )" + std::to_string(model.size()) + "}]}";
        file(".ollama/models/manifests/" + manifest, json);
        return file(".ollama/models/blobs/sha256-" + hex, model);
    }
};

inline std::string small_gguf(std::uint32_t file_type) {
    fixtures::GgufWriter w;
    w.put_string("general.architecture", "llama");
    w.put_u32("general.file_type", file_type);
    return w.bytes();
}

// Every store with one or more models, and two bad manifests.
struct Stores : StoreHome {
    std::string qwen_blob, user_blob, hf_blob, lm_file, old_lm_file, cpp_file, hub_gguf;
    Stores() {
        qwen_blob = ollama("registry.ollama.ai/library/qwen3/0.6b", "aa11", small_gguf(15));
        user_blob = ollama("registry.ollama.ai/someone/tiny/latest", "bb22", small_gguf(7));
        hf_blob = ollama("hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF/Q4_K_M", "cc33", small_gguf(15));
        file(".ollama/models/manifests/registry.ollama.ai/library/broken/latest", "{not json");
        ollama("registry.ollama.ai/library/gone/latest", "dd44", "");
        std::filesystem::remove(ollama_dir() + "/blobs/sha256-dd44");
        lm_file = file(".lmstudio/models/lmstudio-community/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q8_0.gguf", small_gguf(7));
        file(".lmstudio/models/lmstudio-community/Qwen3-0.6B-GGUF/mmproj-Qwen3-0.6B-F16.gguf", small_gguf(1));
        file(".lmstudio/models/lmstudio-community/Qwen3-0.6B-GGUF/README.md", "# not a model");
        old_lm_file = file(".cache/lm-studio/models/TheBloke/Llama-2-7B-GGUF/llama-2-7b.Q4_K_M.gguf", small_gguf(15));
        cpp_file = file(".cache/llama.cpp/ggml-org_gemma-3-1b-it-GGUF_gemma-3-1b-it-Q4_K_M.gguf", small_gguf(15));
        file(".cache/llama.cpp/big-00002-of-00002.gguf", small_gguf(15));
        const std::string hub = ".cache/huggingface/hub/";
        file(hub + "models--Qwen--Qwen3-0.6B/refs/main", "rev1");
        file(hub + "models--Qwen--Qwen3-0.6B/snapshots/rev1/config.json", R"({"torch_dtype": "bfloat16"})");
        file(hub + "models--Qwen--Qwen3-0.6B/snapshots/rev1/model.safetensors", "12345678");
        hub_gguf = file(hub + "models--unsloth--Qwen3-0.6B-GGUF/snapshots/rev2/Qwen3-0.6B-Q6_K.gguf", small_gguf(18));
    }
};
