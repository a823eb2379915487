// core/train/model_file.h — a trained model as a .safetensors file.
//
// Tensors (float64; float32 is read too), layers l counted from 0:
//   embed.W_E (vocab, D)  embed.W_pos (T, D)
//   blocks.{l}.ln1.w (D)  blocks.{l}.ln1.b (D)
//   blocks.{l}.attn.W_Q, W_K, W_V (H, D, d_head)  blocks.{l}.attn.W_O (H·d_head, D)
//   with the MLP: blocks.{l}.ln2.w, .b (D)  blocks.{l}.mlp.W_in (D, 4D)  b_in (4D)  W_out (4D, D)  b_out (D)
//   ln_f.w (D)  ln_f.b (D)  unembed.W_U (D, vocab)
// __metadata__ "config": {"vocab", "T", "D", "H", "L", "mlp", "task", "seed", "step", "init"} as JSON.
#pragma once

#include "core/io/tensor.h"
#include "core/train/model.h"

#include <string>

namespace core::train {

struct SavedModel {
    Model model;
    Task task = Task::repeat;
    Init init = Init::large;
    std::uint64_t seed = 1;
    int step = 0;
};

core::io::TensorFile to_tensor_file(const SavedModel& saved);
// Throws core::io::FileError "PATH: …" naming the tensor or config field that is wrong: a missing
// or unexpected tensor, a wrong shape or dtype, a config that does not describe the tensors.
SavedModel from_tensor_file(const core::io::TensorFile& file, const std::string& path);

// Written atomically (temp file + rename).
void save_model(const std::string& path, const SavedModel& saved);
SavedModel load_model(const std::string& path);

} // namespace core::train
