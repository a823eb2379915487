// core/model/format/stored_model.h — a model found where people keep them (core/model/format/stores.h).
#pragma once

#include <cstdint>
#include <string>

namespace core::model {

struct StoredModel {
    std::string name;         // "Qwen/Qwen3-0.6B", "qwen3:0.6b", "lmstudio-community/Qwen3-0.6B-GGUF/Qwen3-0.6B-Q4_K_M.gguf"
    std::string store;        // "Hugging Face", "Ollama", "LM Studio", "llama.cpp"
    std::string path;         // what open_model opens
    std::string format;       // "safetensors" or "gguf"
    std::uint64_t bytes = 0;
    std::string quantization; // "Q4_K_M", "Q8_0", "BF16", …; "" when the files do not say
    bool complete = true;     // it has what open_model needs (a Hugging Face snapshot may not)
};

} // namespace core::model
