#include "core/train/gpt2_file.h"

#include "core/io/safetensors.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <system_error>

namespace core::train {

using core::io::FileError;

std::string gpt2_config_json(const Gpt2Config& c, int eos_id) {
    const nlohmann::ordered_json j = {
        {"architectures", {"GPT2LMHeadModel"}},
        {"model_type", "gpt2"},
        {"vocab_size", c.vocab},
        {"n_positions", c.n_ctx},
        {"n_ctx", c.n_ctx},
        {"n_embd", c.n_embd},
        {"n_layer", c.n_layer},
        {"n_head", c.n_head},
        {"n_inner", nullptr},
        {"activation_function", "gelu_new"},
        {"layer_norm_epsilon", gpt2_layer_norm_epsilon},
        {"initializer_range", 0.02},
        {"resid_pdrop", 0.0},
        {"embd_pdrop", 0.0},
        {"attn_pdrop", 0.0},
        {"scale_attn_weights", true},
        {"bos_token_id", eos_id},
        {"eos_token_id", eos_id},
        {"tie_word_embeddings", true},
        {"torch_dtype", "float32"},
        {"use_cache", true},
    };
    return j.dump(2) + "\n";
}

void save_gpt2_dir(const std::string& dir, const Gpt2Saved& model, const std::string& tokenizer_json) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw FileError(dir + ": cannot create the folder (" + ec.message() + ")");
    const Gpt2Layout lay(model.config);
    core::io::TensorFile f;
    for (const Gpt2Tensor& t : lay.tensors) {
        core::io::Tensor out;
        out.dtype = core::io::DType::f32;
        out.shape = t.shape;
        out.values.assign(model.params.begin() + static_cast<std::ptrdiff_t>(t.offset),
                          model.params.begin() + static_cast<std::ptrdiff_t>(t.offset + t.size));
        f.tensors[t.name] = std::move(out);
    }
    f.metadata["format"] = "pt"; // what transformers checks before reading a safetensors file
    core::io::write_safetensors(dir + "/model.safetensors", f);
    core::io::write_file_bytes_atomically(dir + "/config.json", gpt2_config_json(model.config, model.eos_id));
    core::io::write_file_bytes_atomically(dir + "/tokenizer.json", tokenizer_json);
}

namespace {

int config_int(const nlohmann::json& j, const char* key, const std::string& path) {
    if (!j.contains(key) || !j.at(key).is_number_integer()) throw FileError(path + ": \"" + key + "\" is missing or not a whole number");
    return j.at(key).get<int>();
}

Gpt2Saved read_config(const std::string& path) {
    const nlohmann::json j = nlohmann::json::parse(core::io::read_file_bytes(path, 1u << 20), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw FileError(path + ": not a JSON object");
    if (j.value("model_type", std::string()) != "gpt2") throw FileError(path + ": \"model_type\" is not \"gpt2\"");
    Gpt2Saved s;
    s.config.vocab = config_int(j, "vocab_size", path);
    s.config.n_ctx = config_int(j, "n_positions", path);
    s.config.n_embd = config_int(j, "n_embd", path);
    s.config.n_head = config_int(j, "n_head", path);
    s.config.n_layer = config_int(j, "n_layer", path);
    s.eos_id = j.contains("eos_token_id") ? config_int(j, "eos_token_id", path) : -1;
    if (std::string e = validate(s.config); !e.empty()) throw FileError(path + ": " + e);
    return s;
}

} // namespace

Gpt2Saved load_gpt2_dir(const std::string& dir) {
    Gpt2Saved s = read_config(dir + "/config.json");
    const Gpt2Layout lay(s.config);
    const std::string path = dir + "/model.safetensors";
    const core::io::TensorFile f = core::io::read_safetensors(path);
    s.params.assign(lay.total, 0.0f);
    for (const Gpt2Tensor& t : lay.tensors) {
        const auto it = f.tensors.find(t.name);
        if (it == f.tensors.end()) throw FileError(path + ": tensor " + t.name + " is missing");
        const core::io::Tensor& x = it->second;
        if (x.dtype != core::io::DType::f32 && x.dtype != core::io::DType::f16)
            throw FileError(path + ": tensor " + t.name + " has dtype " + core::io::dtype_name(x.dtype) + ", expected float32 or float16");
        if (x.shape != t.shape)
            throw FileError(path + ": tensor " + t.name + " has shape " + core::io::shape_text(x.shape) + ", config.json needs " + core::io::shape_text(t.shape));
        for (std::size_t i = 0; i < t.size; ++i) s.params[t.offset + i] = static_cast<float>(x.values[i]);
    }
    return s;
}

} // namespace core::train
