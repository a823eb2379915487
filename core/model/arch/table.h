// core/model/arch/table.h — the one table of architectures attnviz runs.
//
// A row per value of config.json's `architectures` field. A new architecture is one file
// core/model/arch/NAME.cpp with its config reading, score scale and build function, plus its row and
// its functions' names in the declaration lists of arch/table.cpp (CMake builds every arch/*.cpp, and --help,
// the messages and the docs list the architectures from this table). Its model derives from
// layers::LayerStack (core/model/arch/layers.h), which runs the frame of every forward, and gives the
// embeddings, one layer and the final norm, with the Hugging Face modeling file's names. The recipe,
// with its checked example, is docs/architecture.md's "A model architecture".
#pragma once

#include "core/model/config.h"
#include "core/model/forward.h"

#include <memory>
#include <string>
#include <vector>

namespace core::model {

class Weights;
struct ConfigReader;
struct GgufKeys;

using ReadConfig = void (*)(const ConfigReader& r, ModelConfig& c);
using ScoreScale = double (*)(const ModelConfig& c, int layer);
using BuildModel = std::unique_ptr<Model> (*)(const ModelConfig& config, std::shared_ptr<const Weights> weights);

// How llama.cpp's GGUF files hold an architecture (core/model/format/gguf_model.h opens them).
struct GgufName {
    const char* file;  // "attn_q" (of "blk.N.attn_q.weight"), "token_embd"; or a layer's whole name, "ssm_dt.bias"
    const char* model; // "self_attn.q_proj" (of "model.layers.N.self_attn.q_proj.weight"), "model.embed_tokens"
};
struct GgufLayout {
    const char* name; // general.architecture: "llama"
    // The architecture's own keys and constants, after the sizes every file has (gguf_model.cpp);
    // refuses a value with k.fail.
    void (*read)(const GgufKeys& k, ModelConfig& c);
    const char* layer_prefix;     // "model.layers."
    std::vector<GgufName> globals; // tensors outside the layers
    std::vector<GgufName> layer;   // each layer's
    // llama.cpp's converter reordered the rows of each head of q_proj and k_proj (LlamaModel's
    // permute) for its rotary convention; the reader undoes it through MappedTensor::row_order.
    bool permuted_qk;
};
using GgufLayoutOf = const GgufLayout& (*)();

struct Architecture {
    const char* name;  // as config.json's `architectures` has it
    bool lm_head;      // predicts tokens (false: a bare encoder giving hidden states)
    // The sizes and constants from config.json, by the configuration class's names and defaults;
    // refuses a field with r.fail. (`architecture` and `lm_head` are set before.)
    ReadConfig read_config;
    // The factor layer `layer` multiplies q·k by before the softmax.
    ScoreScale score_scale;
    BuildModel build;
    GgufLayoutOf gguf = nullptr; // the row a GGUF file of general.architecture gguf().name opens
};

const std::vector<Architecture>& architectures();
// The row of `name`, or null.
const Architecture* find_architecture(const std::string& name);
// "GPT2LMHeadModel, LlamaForCausalLM, …" for messages.
std::string supported_architectures();
// The row whose GGUF column is `gguf_name` ("llama"), or null; and "gpt2, llama, …" for messages.
const Architecture* find_gguf_architecture(const std::string& gguf_name);
std::string supported_gguf_architectures();
// The score scale of the architecture of `c`; throws InputError when there is no such row.
double score_scale(const ModelConfig& c, int layer);

// 1/√d_head, the scale of most architectures.
double inverse_sqrt_head(const ModelConfig& c, int layer);

// What one architecture's file takes from another's: Qwen3's keys of a GGUF file, which Qwen3 MoE's
// extend. Every other function of an architecture is declared above the rows, in arch/table.cpp.
void read_gguf_qwen3(const GgufKeys& k, ModelConfig& c);

} // namespace core::model
