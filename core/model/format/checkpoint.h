// core/model/format/checkpoint.h — finding and opening a model: a directory in the Hugging Face Hub's
// layout, a snapshot in the Hugging Face cache, or attnviz's own trained .safetensors model.
//
//   DIR/config.json                         the architecture and sizes (core/model/config.h)
//   DIR/model.safetensors                   or DIR/model.safetensors.index.json + its shards
//   DIR/tokenizer.json                      or GPT-2's DIR/vocab.json + DIR/merges.txt
//
// In the cache ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub) a model is
// models--ORG--NAME/snapshots/REVISION/, whose files are symbolic links into models--ORG--NAME/blobs/.
#pragma once

#include "core/model/open.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core::model {

// OpenedModel, open_model, resolve_model_dir, is_trained_model_file and is_gguf_file are declared
// in core/model/open.h, for those above the formats; their definitions are here and in gguf_model.cpp.

// attnviz's own trained model (a .safetensors written by --train) as a GPT-2 checkpoint, read from
// the file itself (core/model/format/trained.cpp): the layout is core/train/model_file.h's, which
// core/model does not include, as core/train and core/model stand side by side. Throws
// core::io::FileError "PATH: …" naming the config field or tensor that is wrong: a missing or
// unexpected tensor, a wrong shape or dtype, a config that does not describe the tensors.
OpenedModel open_trained(const std::string& path);

// Whether the file at `path` begins with GGUF's magic, whatever its name.
bool has_gguf_magic(const std::string& path);

// A GGUF file of llama.cpp, Ollama or LM Studio (core/model/format/gguf_model.cpp): the metadata's
// hyper-parameters, the tensors mapped in their own types. Throws core::io::FileError, one line
// naming the file: an unknown architecture, a tensor of a type attnviz does not read, a missing
// tensor, a shape that does not match the metadata, or what gguf::parse refuses.
OpenedModel open_gguf(const std::string& path);

// The Hugging Face cache directory from the environment (it may not exist).
std::string hub_cache_dir();

struct CachedModel {
    std::string name;      // "ORG/NAME"
    std::string snapshot;  // the snapshot directory to open
    std::string revision;  // the snapshot's name (a commit hash)
    std::uint64_t bytes = 0; // the sizes of the files the snapshot links to
    bool complete = false;   // it has config.json and weights
};

// Every model under `hub_dir` (models--*), by name; empty when the directory does not exist.
std::vector<CachedModel> list_cached_models(const std::string& hub_dir);

} // namespace core::model
