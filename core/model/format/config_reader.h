// core/model/format/config_reader.h — a config.json's fields read with checks: each architecture's
// read_config (core/model/arch/NAME.cpp) takes its sizes and constants through a ConfigReader, which
// refuses a bad value with one line naming the file and the field (core::io::FileError).
#pragma once

#include "core/io/tensor.h"
#include "core/model/config.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace core::model {

constexpr int max_config_size = 1 << 20;        // any width or depth past this is not a real config
constexpr long long max_config_vocab = 1 << 24;

using core::io::quote_text; // the file's own names in messages

struct ConfigReader {
    const nlohmann::json& j;  // the object read (config.json, or a sub-object such as rope_scaling)
    const std::string& path;  // for messages

    [[noreturn]] void fail(const std::string& key, const std::string& why) const;
    bool has(const char* key) const;
    // A whole number in lo … hi; required, or `fallback` when absent.
    int whole(const char* key, long long lo, long long hi) const;
    int whole(const char* key, long long lo, long long hi, int fallback) const;
    double real(const char* key, double lo, double hi, double fallback) const;
    bool flag(const char* key, bool fallback) const;
    std::string text(const char* key, const std::string& fallback) const;
    // An activation attnviz runs (gelu_new, gelu_pytorch_tanh, gelu_fast, gelu, relu, silu, swish, quick_gelu).
    std::string activation(const char* key, const std::string& fallback) const;
    // bos/eos ids may be a list (Llama 3 lists several eos ids): the first, or -1.
    int token_id(const char* key) const;
    // Every valid id of a single id or a list.
    std::vector<int> token_ids(const char* key) const;
    // The sub-object `key` (such as rope_scaling), read the same way; fails when it is not an object.
    ConfigReader object(const char* key) const;
    // layer_types, one "full_attention" or "sliding_attention" per layer: which layers slide; empty
    // when the config has none.
    std::vector<bool> sliding_layers(int layers) const;
};

// The sizes every architecture has, by its configuration class's names and defaults (0: required).
struct SizeKey {
    const char* name;
    int fallback;
};
struct SizeKeys {
    SizeKey vocab, d_model, layers, heads;
};
void read_sizes(const ConfigReader& r, ModelConfig& c, const SizeKeys& keys);

} // namespace core::model
