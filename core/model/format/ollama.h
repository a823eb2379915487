// core/model/format/ollama.h — Ollama's store: $OLLAMA_MODELS, else ~/.ollama/models. A manifest
// manifests/HOST/NAMESPACE/NAME/TAG names its layers; the one of mediaType
// application/vnd.ollama.image.model is the GGUF file blobs/sha256-HEX. `ollama list` shows the model
// as NAME:TAG, with the default registry's library/ namespace bare ("qwen3:0.6b").
#pragma once

#include "core/model/open.h"

#include <optional>
#include <string>
#include <vector>

namespace core::model {

std::string ollama_store_dir(); // from the environment (it may not exist)

// Every model of the store at `dir` into `out`; a manifest that is not JSON, names no model layer
// or whose blob is missing is one line "MANIFEST: what is wrong" in `problems`.
void list_ollama(const std::string& dir, std::vector<StoredModel>& out, std::vector<std::string>& problems);

// An Ollama name as `ollama list` shows it ("qwen3:0.6b"; ":latest" when no tag is given), in the
// store at `dir`; nothing when the store has no such model.
std::optional<StoredModel> find_ollama_model(const std::string& name, const std::string& dir);

} // namespace core::model
