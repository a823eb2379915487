#!/usr/bin/python3
"""Writes a checkpoint with Llama-3.2-1B's exact shapes and config.json, random weights, in BF16
(2.47 GB): 2048 wide, 16 layers, 32 query and 8 key/value heads of 64, MLP 8192, a vocabulary of
128256 tied to the LM head.

    /usr/bin/python3 bench/make_llama_1b.py OUT_DIR      (needs numpy; put OUT_DIR under /tmp)

Tensors are generated and written one at a time, a block of rows at a time, so writing takes
little memory. No tokenizer: --bench-model runs random ids."""
import json
import os
import sys

import numpy as np

D, F, L, H, KV, DH, V = 2048, 8192, 16, 32, 8, 64, 128256

CONFIG = {"architectures": ["LlamaForCausalLM"], "attention_bias": False, "attention_dropout": 0.0, "bos_token_id": 128000,
          "eos_token_id": 128001, "head_dim": DH, "hidden_act": "silu", "hidden_size": D, "initializer_range": 0.02,
          "intermediate_size": F, "max_position_embeddings": 131072, "mlp_bias": False, "model_type": "llama",
          "num_attention_heads": H, "num_hidden_layers": L, "num_key_value_heads": KV, "pretraining_tp": 1, "rms_norm_eps": 1e-05,
          "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192,
                           "rope_type": "llama3"},
          "rope_theta": 500000.0, "tie_word_embeddings": True, "torch_dtype": "bfloat16", "transformers_version": "4.45.0.dev0",
          "use_cache": True, "vocab_size": V}


def shapes():
    out = {"model.embed_tokens.weight": (V, D)}
    for l in range(L):
        p = f"model.layers.{l}."
        out.update({p + "input_layernorm.weight": (D,), p + "self_attn.q_proj.weight": (H * DH, D),
                    p + "self_attn.k_proj.weight": (KV * DH, D), p + "self_attn.v_proj.weight": (KV * DH, D),
                    p + "self_attn.o_proj.weight": (D, H * DH), p + "post_attention_layernorm.weight": (D,),
                    p + "mlp.gate_proj.weight": (F, D), p + "mlp.up_proj.weight": (F, D), p + "mlp.down_proj.weight": (D, F)})
    out["model.norm.weight"] = (D,)
    return out


def bf16(a):
    """float32 to BF16 bits, rounded to nearest even."""
    bits = a.view(np.uint32)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype("<u2")


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(0)
    header, offset = {}, 0
    for name, shape in shapes().items():
        n = 2 * int(np.prod(shape))
        header[name] = {"dtype": "BF16", "shape": list(shape), "data_offsets": [offset, offset + n]}
        offset += n
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        for name, shape in shapes().items():
            if len(shape) == 1:
                f.write(bf16(np.ones(shape, np.float32)).tobytes())
                continue
            for r in range(0, shape[0], 4096):
                rows = min(4096, shape[0] - r)
                f.write(bf16(rng.standard_normal((rows, shape[1]), dtype=np.float32) * np.float32(0.02)).tobytes())
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(CONFIG, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_llama_1b.py OUT_DIR")
    main(sys.argv[1])
