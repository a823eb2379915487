// core/train/gpt2_file.h — a trained GPT-2 as a Hugging Face model directory, the layout that
// transformers' save_pretrained writes and from_pretrained reads:
//
//   DIR/config.json        GPT2LMHeadModel: n_embd, n_layer, n_head, n_positions, vocab_size, …
//   DIR/model.safetensors  F32, GPT-2's names without the "transformer." prefix (as the Hub's gpt2
//                          file has them); no lm_head.weight: the head is tied to wte.weight
//   DIR/tokenizer.json     the byte-level BPE (core/train/bpe.h)
#pragma once

#include "core/train/gpt2.h"

#include <string>
#include <vector>

namespace core::train {

struct Gpt2Saved {
    Gpt2Config config;
    std::vector<float> params; // Gpt2Layout(config).total values
    int eos_id = -1;           // bos_token_id and eos_token_id
};

// config.json's text for `c`.
std::string gpt2_config_json(const Gpt2Config& c, int eos_id);

// Creates DIR if needed and writes the three files (each atomically). Throws core::io::FileError.
void save_gpt2_dir(const std::string& dir, const Gpt2Saved& model, const std::string& tokenizer_json);

// Reads DIR/config.json and DIR/model.safetensors (F32 or F16) back. Throws core::io::FileError
// naming the file and the field or tensor that is wrong.
Gpt2Saved load_gpt2_dir(const std::string& dir);

} // namespace core::train
