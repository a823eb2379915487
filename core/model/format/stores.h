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
#include "core/model/open.h"

#include <optional>
#include <string>
#include <vector>

namespace core::model {

// StoredModel, StorePlaces, ModelListing, store_places, list_models and bundled_model are declared
// in core/model/open.h, for those above the formats; stores.cpp defines them.

// A GGUF file's header, metadata and tensor table, read from its mapping (unmapped after). Throws
// core::io::FileError naming the file.
gguf::File read_gguf(const std::string& path);

// What a GGUF file's weights are: general.file_type's name as llama.cpp gives it ("Q4_K_M"), else
// the ggml type most of its values have ("Q8_0"); "" when the file is no GGUF file attnviz reads.
std::string gguf_quantization(const std::string& path);

} // namespace core::model
