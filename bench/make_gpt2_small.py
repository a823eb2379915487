#!/usr/bin/python3
"""Writes a GPT-2-small-sized checkpoint with random weights in the Hugging Face Hub's layout:
768 wide, 12 layers, 12 heads, 1024 positions, GPT-2's vocabulary of 50257, F32 (about 500 MB).

    /usr/bin/python3 bench/make_gpt2_small.py OUT_DIR      (needs numpy)

config.json, model.safetensors (names without a prefix, as the Hub's gpt2 file has them) and
GPT-2's tokenizer.json; written with the same safetensors writer as the tests' fixtures."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))
import make_checkpoints  # noqa: E402

D, L, H, T, V = 768, 12, 12, 1024, 50257


def main(out):
    rng = np.random.default_rng(0)
    w = {"wte.weight": make_checkpoints.normal(rng, V, D, scale=0.02), "wpe.weight": make_checkpoints.normal(rng, T, D, scale=0.01)}
    for l in range(L):
        h = f"h.{l}."
        w.update({h + "ln_1.weight": np.ones(D, np.float32), h + "ln_1.bias": np.zeros(D, np.float32),
                  h + "attn.c_attn.weight": make_checkpoints.normal(rng, D, 3 * D, scale=0.02),
                  h + "attn.c_attn.bias": np.zeros(3 * D, np.float32),
                  h + "attn.c_proj.weight": make_checkpoints.normal(rng, D, D, scale=0.02), h + "attn.c_proj.bias": np.zeros(D, np.float32),
                  h + "ln_2.weight": np.ones(D, np.float32), h + "ln_2.bias": np.zeros(D, np.float32),
                  h + "mlp.c_fc.weight": make_checkpoints.normal(rng, D, 4 * D, scale=0.02), h + "mlp.c_fc.bias": np.zeros(4 * D, np.float32),
                  h + "mlp.c_proj.weight": make_checkpoints.normal(rng, 4 * D, D, scale=0.02), h + "mlp.c_proj.bias": np.zeros(D, np.float32)})
    w.update({"ln_f.weight": np.ones(D, np.float32), "ln_f.bias": np.zeros(D, np.float32)})
    config = {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "vocab_size": V, "n_embd": D, "n_layer": L, "n_head": H,
              "n_positions": T, "n_ctx": T, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new",
              "bos_token_id": 50256, "eos_token_id": 50256}
    make_checkpoints.save(out, ".", config, w, "F32", make_checkpoints.gpt2_tokenizer()[0])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_gpt2_small.py OUT_DIR")
    main(sys.argv[1])
