// core/model/format/stores.h — the places people keep models, and every model in them under the name a
// person knows it by:
//
//   the Hugging Face cache   $HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub    Qwen/Qwen3-0.6B
//   Ollama's store           $OLLAMA_MODELS, else ~/.ollama/models: manifests/HOST/NAMESPACE/NAME/TAG name
//                            the model layer's blob blobs/sha256-HEX                            qwen3:0.6b
//   LM Studio's models       ~/.lmstudio/models, ~/.cache/lm-studio/models: PUBLISHER/REPO/*.gguf
//   llama.cpp's cache        $LLAMA_CACHE, else $XDG_CACHE_HOME/llama.cpp, else ~/.cache/llama.cpp
#pragma once

#include "core/model/format/gguf.h"
#include "core/model/format/stored_model.h"

#include <optional>
#include <string>
#include <vector>

namespace core::model {

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

// A GGUF file's header, metadata and tensor table, read from its mapping (unmapped after). Throws
// core::io::FileError naming the file.
gguf::File read_gguf(const std::string& path);

// What a GGUF file's weights are: general.file_type's name as llama.cpp gives it ("Q4_K_M"), else
// the ggml type most of its values have ("Q8_0"); "" when the file is no GGUF file attnviz reads.
std::string gguf_quantization(const std::string& path);

} // namespace core::model
