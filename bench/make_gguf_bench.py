#!/usr/bin/python3
"""Writes a benchmark checkpoint (bench/make_gpt2_small.py's or bench/make_llama_1b.py's) as a GGUF file
that llama.cpp opens too, with the layout and names of tests/fixtures/make_gguf.py.

    /usr/bin/python3 bench/make_gguf_bench.py CHECKPOINT_DIR OUT.gguf F16|Q8_0|Q4_K_M

Q4_K_M mixes types as llama.cpp's quantizer does for that name: Q6_K for the LM head and, in the first
and last eighth of the layers and every third one between, attn_v and ffn_down; Q4_K elsewhere. The
vocabulary is the checkpoint's tokenizer.json (or none) padded to the embedding's rows with unused
tokens, so that llama.cpp's loader finds one token per row. Needs numpy."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))
import make_gguf  # noqa: E402


def more_bits(layer, layers):
    return layer < layers // 8 or layer >= 7 * layers // 8 or (layer - layers // 8) % 3 == 2


def type_of(name, t, kind, layers):
    if t.ndim != 2:
        return "F32"
    if kind != "Q4_K_M":
        return kind
    if name == "output.weight":
        return "Q6_K"
    if ".attn_v." in name or ".ffn_down." in name:
        return "Q6_K" if more_bits(int(name.split(".")[1]), layers) else "Q4_K"
    return "Q4_K"


def vocabulary(src, rows):
    """tokenizer.ggml.* for a byte-level BPE vocabulary of `rows` tokens."""
    tokens, merges = [], []
    path = os.path.join(src, "tokenizer.json")
    if os.path.exists(path):
        model = json.load(open(path))["model"]
        by_id = sorted(model["vocab"].items(), key=lambda kv: kv[1])
        tokens = [t for t, _ in by_id][:rows]
        merges = [m if isinstance(m, str) else " ".join(m) for m in model.get("merges", [])]
    tokens += [f"<unused{i}>" for i in range(rows - len(tokens))]
    return {"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt-2", "tokenizer.ggml.tokens": tokens,
            "tokenizer.ggml.token_type": [("i32", 1)] * rows, "tokenizer.ggml.merges": merges}


def main(src, dst, kind):
    c, w = make_gguf.read_checkpoint(src)
    arch = make_gguf.ARCHS[c["architectures"][0]]
    metadata, a = make_gguf.hyper_parameters(c, arch)
    extra = []
    make_gguf.architecture_keys(c, arch, a, extra)
    layers = c.get("num_hidden_layers", c.get("n_layer"))
    metadata["general.file_type"] = {"F16": 1, "Q8_0": 7, "Q4_K_M": 15}[kind]
    tensors = [(n, t, type_of(n, t, kind, layers)) for n, t in make_gguf.convert(c, w, arch)]
    embed = next(t for n, t, _ in tensors if n == "token_embd.weight")
    metadata.update(vocabulary(src, embed.shape[0]))
    make_gguf.write_gguf(dst, metadata, tensors + extra)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[3] not in ("F16", "Q8_0", "Q4_K_M"):
        sys.exit(__doc__)
    main(*sys.argv[1:])
