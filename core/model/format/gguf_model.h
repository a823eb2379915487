// core/model/format/gguf_model.h — a model from a GGUF file of llama.cpp, Ollama or LM Studio
// (open_gguf, declared in checkpoint.h, is in gguf_model.cpp).
//
// general.architecture picks the row of core/model/arch/table.h whose GGUF column names it; that
// row reads the hyper-parameters from the metadata ({arch}.block_count, …) through GgufKeys, and
// its table of names translates the file's tensors ("blk.0.attn_q.weight") to the ones its
// builder asks for ("model.layers.0.self_attn.q_proj.weight"). The tensors are mapped, not read.
#pragma once

#include "core/model/format/blocks.h"
#include "core/model/format/gguf.h"

#include <optional>
#include <string>
#include <vector>

namespace core::model {

// The metadata of one architecture, read with checks: a key is given without its "{arch}." prefix,
// and a bad value is one FileError naming the file and the whole key.
struct GgufKeys {
    const gguf::File& file;
    const unsigned char* bytes; // the mapped file (for small F32 tensors such as rope_freqs)
    std::string arch;           // "llama"

    std::string key(const char* name) const { return arch + "." + name; }
    bool has(const char* name) const { return gguf::find(file, key(name)) != nullptr; }
    [[noreturn]] void fail(const char* name, const std::string& why) const;
    // A whole number in lo … hi; required, or `fallback` when absent.
    int whole(const char* name, long long lo, long long hi) const;
    int whole(const char* name, long long lo, long long hi, int fallback) const;
    double real(const char* name, double lo, double hi, double fallback) const;
    bool has_tensor(const std::string& name) const;
    // A 1-D F32 tensor of `count` values, or nullopt when the file has none of that name.
    std::optional<std::vector<double>> f32_tensor(const std::string& name, int count) const;
};

// The WeightType of a ggml type id attnviz reads (a tensor's gguf::TensorInfo::type); nullopt for
// the others (IQ2_XXS, IQ3_S, TQ1_0, …), which open_gguf refuses naming the tensor.
std::optional<WeightType> readable_weight_type(std::uint32_t ggml_type);

} // namespace core::model
