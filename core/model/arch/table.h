// core/model/arch/table.h — the one table of architectures attnviz runs.
//
// A row per value of config.json's `architectures` field. A new architecture is one file
// core/model/arch/NAME.cpp with its build function, plus one row in arch/table.cpp. Its model
// derives from layers::LayerStack (core/model/arch/layers.h), which runs the frame of every forward,
// and gives the embeddings, one layer and the final norm, with the Hugging Face modeling file's
// names. A new family also gets its fields in config.h, read by format/config_json.cpp (whose `sizes`
// table names the sizes every family has).
#pragma once

#include "core/model/config.h"
#include "core/model/forward.h"

#include <memory>
#include <string>
#include <vector>

namespace core::model {

class Weights;

using BuildModel = std::unique_ptr<Model> (*)(const ModelConfig& config, std::shared_ptr<const Weights> weights);

struct Architecture {
    const char* name;  // as config.json's `architectures` has it
    Family family;
    bool lm_head;      // predicts tokens (false: a bare encoder giving hidden states)
    BuildModel build;
};

const std::vector<Architecture>& architectures();
// The row of `name`, or null.
const Architecture* find_architecture(const std::string& name);
// "GPT2LMHeadModel, LlamaForCausalLM, …" for messages.
std::string supported_architectures();

// The build functions (arch/*.cpp). Each checks every tensor it needs (present, shape, dtype) and
// throws core::io::FileError naming the file and the tensor.
std::unique_ptr<Model> build_gpt2(const ModelConfig& config, std::shared_ptr<const Weights> weights);
std::unique_ptr<Model> build_llama(const ModelConfig& config, std::shared_ptr<const Weights> weights);
std::unique_ptr<Model> build_bert(const ModelConfig& config, std::shared_ptr<const Weights> weights);

} // namespace core::model
