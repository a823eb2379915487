// core/model/open.h — a model from where it lies, as the window and the command line ask for it:
// opening one, listing the models in the places people keep them, its tokenizer, one of its
// tensors. The formats' details stay behind it in core/model/format/, which defines what it declares:
// checkpoint.cpp opens and reads tensors (gguf_model.cpp and trained.cpp open their files), and
// stores.cpp lists the stores and finds a tokenizer.
//
// What opens: a directory in the Hugging Face Hub's layout, a snapshot or entry of the Hugging Face
// cache, a GGUF file of llama.cpp, Ollama or LM Studio, or attnviz's own trained .safetensors.
#pragma once

#include "core/model/forward.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace core::model {

class Weights;
class Tokenizer;

struct OpenedModel {
    std::string path;                // what was asked for
    std::string dir;                 // the directory holding config.json (empty for a trained .safetensors)
    std::string name;                // for titles: "ORG/NAME" in the cache, else the directory's or file's name
    std::unique_ptr<Model> model;
    std::shared_ptr<const Weights> weights;
    std::string notice; // one line on what of the checkpoint is not shown (a multimodal model's vision tower), or empty
};

// Opens a model; reads config.json and the safetensors headers, no weights (they are mapped).
// Throws core::io::FileError, one line naming the file: no config.json, an unknown architecture,
// a missing tensor, a wrong shape or dtype, a truncated file, a shard index naming a missing file.
OpenedModel open_model(const std::string& path);

// The directory a path names: a model directory, a snapshot, or a cache entry models--ORG--NAME
// (its refs/main snapshot, else its only one). Throws core::io::FileError.
std::string resolve_model_dir(const std::string& path);

// Whether a path is attnviz's own trained model (a .safetensors file, not a directory).
bool is_trained_model_file(const std::string& path);

// Whether `path` is a GGUF file: a file named .gguf, or whose first four bytes say so (Ollama's blobs
// have no extension).
bool is_gguf_file(const std::string& path);

// A model's tokenizer without its weights: a GGUF file's own (the file named, or an Ollama
// NAME:TAG's blob); a Hugging Face cache entry (models--ORG--NAME) stands for its snapshot; anything
// else is read as it is, so that a folder with only a tokenizer works too.
Tokenizer model_tokenizer(const std::string& model);

// Whether any matrix of the model is stored as float32, float16 or bfloat16, not quantized.
bool has_float_matrices(const OpenedModel& m);

// One tensor of an opened model as attnviz reads it, a row at a time as float32.
struct ModelTensor {
    std::string name;                 // the name attnviz reads it by (a GGUF file's own name translated)
    std::string type;                 // as stored: "F32", "BF16", "Q4_K", …
    std::vector<std::int64_t> shape;  // row-major, outermost first
    std::int64_t rows = 0, width = 0; // seen as (rows, width): shape[0] and the product of the rest
    // Row r into dst (width floats), dequantized and in transformers' row order.
    std::function<void(std::int64_t r, float* dst)> read_row;
};

// The tensor `name` (as the model's builder names it, or as the file itself does), valid while
// `m` is; nothing when the model has no such tensor.
std::optional<ModelTensor> find_tensor(const OpenedModel& m, const std::string& name);

struct StoredModel {
    std::string name;         // "Qwen/Qwen3-0.6B", "qwen3:0.6b", "lmstudio-community/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q4_K_M.gguf"
    std::string store;        // "Hugging Face", "Ollama", "LM Studio", "llama.cpp"
    std::string path;         // what open_model opens
    std::string format;       // "safetensors" or "gguf"
    std::uint64_t bytes = 0;
    std::string quantization; // "Q4_K_M", "Q8_0", "BF16", …; "" when the files do not say
    bool complete = true;     // it has what open_model needs (a Hugging Face snapshot may not)
};

// The places people keep models (core/model/format/stores.h says where each one is).
struct StorePlaces {
    std::string hub, ollama, llama_cpp;
    std::vector<std::string> lm_studio;
};

// The places from the environment (they may not exist).
StorePlaces store_places();

struct ModelListing {
    std::vector<StoredModel> models;   // by store, then name
    std::vector<std::string> problems; // one line each, "FILE: what is wrong" (a bad manifest, a missing blob)
};

// Every model in those places; a place that does not exist adds nothing.
ModelListing list_models(const StorePlaces& places);

// The model attnviz ships (assets/models/NAME/, the first with a config.json), listed as store
// "attnviz" under its folder's name; nothing when this build ships none.
std::optional<StoredModel> bundled_model();

} // namespace core::model
