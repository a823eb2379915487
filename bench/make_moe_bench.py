#!/usr/bin/python3
"""Writes a mixture-of-experts GGUF file at a real model's shapes, with random weights, for the
benchmarks (bench/bench_moe.sh): attnviz and llama.cpp both open it.

    /usr/bin/python3 bench/make_moe_bench.py gpt-oss-20b OUT.gguf      about 12 GB: MXFP4 experts, Q8_0 else
    /usr/bin/python3 bench/make_moe_bench.py qwen3-30b-a3b OUT.gguf    about 17 GB: Q4_K_M as llama.cpp mixes it
    /usr/bin/python3 bench/make_moe_bench.py gpt-oss-20b-hub OUT_DIR [LAYERS]
        the Hub's directory of gpt-oss-20b (config.json, model.safetensors): MXFP4 experts as U8
        *_blocks and *_scales, BF16 else; LAYERS of its 24 (default 24: about 13.8 GB; 2.6 GB + 0.47 GB
        a layer)

The shapes are those of the models' config.json files (openai/gpt-oss-20b, Qwen/Qwen3-30B-A3B). The
blocks are random bytes with their scales set to small finite values, so that every weight is
finite and of the size a trained one has; no float32 copy of a tensor is ever made, so the file is
written in a few minutes with little memory. The vocabulary is unused tokens, one per embedding
row. Needs numpy."""
import json
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures"))
import make_gguf  # noqa: E402

BLOCK_BYTES = {"F32": (4, 1), "Q8_0": (34, 32), "Q4_K": (144, 256), "Q6_K": (210, 256), "MXFP4": (17, 32)}
RNG = np.random.default_rng(7)


def random_blocks(kind, count):
    """`count` blocks of `kind` as bytes (count, block bytes), scales small and finite."""
    size = BLOCK_BYTES[kind][0]
    b = RNG.integers(0, 256, (count, size), dtype=np.uint8)
    half = lambda v: np.frombuffer(np.float16(v).tobytes(), np.uint8)  # noqa: E731
    if kind == "Q8_0":
        b[:, 0:2] = half(4e-4)          # d; weights up to ±0.05
    elif kind == "Q4_K":
        b[:, 0:2] = half(2e-4)          # d
        b[:, 2:4] = half(2e-4)          # dmin
    elif kind == "Q6_K":
        b[:, 208:210] = half(2e-5)      # d, after ql, qh and the int8 scales
    elif kind == "MXFP4":
        b[:, 0] = 120                   # E8M0 scale 2^-7
    return b


def tensor_bytes(kind, shape):
    size, per = BLOCK_BYTES[kind]
    n = int(np.prod(shape))
    assert n % per == 0, (kind, shape)
    return n // per * size


def write_data(f, kind, shape, fill):
    """The tensor's bytes, a slab at a time: F32 as `fill` (a constant, or None: normal with σ 0.02,
    as a router needs to send tokens to different experts), blocks at random."""
    if kind == "F32":
        n = int(np.prod(shape))
        f.write((RNG.normal(0, 0.02, n) if fill is None else np.full(n, fill)).astype("<f4").tobytes())
        return
    size, per = BLOCK_BYTES[kind]
    blocks = int(np.prod(shape)) // per
    slab = max(1, (64 << 20) // size)
    for start in range(0, blocks, slab):
        f.write(random_blocks(kind, min(slab, blocks - start)).tobytes())


def gpt_oss_20b():
    D, L, H, KV, dh, E, F, V = 2880, 24, 64, 8, 64, 32, 2880, 201088
    meta = {"context_length": 131072, "embedding_length": D, "block_count": L, "feed_forward_length": F,
            "attention.head_count": H, "attention.head_count_kv": KV, "attention.key_length": dh,
            "attention.value_length": dh, "attention.layer_norm_rms_epsilon": 1e-5, "rope.freq_base": 150000.0,
            "expert_count": E, "expert_used_count": 4, "expert_feed_forward_length": F,
            "attention.sliding_window": 128, "rope.scaling.type": "yarn", "rope.scaling.factor": 32.0,
            "rope.scaling.original_context_length": 4096}
    tensors = [("token_embd.weight", (V, D), "Q8_0", 0), ("output_norm.weight", (D,), "F32", 1), ("output.weight", (V, D), "Q8_0", 0)]
    for l in range(L):
        p = f"blk.{l}."
        tensors += [(p + "attn_norm.weight", (D,), "F32", 1), (p + "post_attention_norm.weight", (D,), "F32", 1),
                    (p + "attn_q.weight", (H * dh, D), "Q8_0", 0), (p + "attn_q.bias", (H * dh,), "F32", 0),
                    (p + "attn_k.weight", (KV * dh, D), "Q8_0", 0), (p + "attn_k.bias", (KV * dh,), "F32", 0),
                    (p + "attn_v.weight", (KV * dh, D), "Q8_0", 0), (p + "attn_v.bias", (KV * dh,), "F32", 0),
                    (p + "attn_output.weight", (D, H * dh), "Q8_0", 0), (p + "attn_output.bias", (D,), "F32", 0),
                    (p + "attn_sinks.weight", (H,), "F32", 0),
                    (p + "ffn_gate_inp.weight", (E, D), "F32", None), (p + "ffn_gate_inp.bias", (E,), "F32", 0)]
        for part, shape in (("gate", (E, F, D)), ("up", (E, F, D)), ("down", (E, D, F))):
            tensors += [(p + f"ffn_{part}_exps.weight", shape, "MXFP4", 0), (p + f"ffn_{part}_exps.bias", shape[:2], "F32", 0)]
    return "gpt-oss", meta, tensors, V


def qwen3_30b_a3b():
    D, L, H, KV, dh, E, F, V = 2048, 48, 32, 4, 128, 128, 768, 151936
    meta = {"context_length": 40960, "embedding_length": D, "block_count": L, "feed_forward_length": 6144,
            "attention.head_count": H, "attention.head_count_kv": KV, "attention.key_length": dh,
            "attention.value_length": dh, "attention.layer_norm_rms_epsilon": 1e-6, "rope.freq_base": 1000000.0,
            "expert_count": E, "expert_used_count": 8, "expert_feed_forward_length": F}
    more_bits = lambda l: l < L // 8 or l >= 7 * L // 8 or (l - L // 8) % 3 == 2  # noqa: E731 (llama.cpp's Q4_K_M)
    tensors = [("token_embd.weight", (V, D), "Q4_K", 0), ("output_norm.weight", (D,), "F32", 1), ("output.weight", (V, D), "Q6_K", 0)]
    for l in range(L):
        p, big = f"blk.{l}.", "Q6_K" if more_bits(l) else "Q4_K"
        tensors += [(p + "attn_norm.weight", (D,), "F32", 1), (p + "ffn_norm.weight", (D,), "F32", 1),
                    (p + "attn_q.weight", (H * dh, D), "Q4_K", 0), (p + "attn_k.weight", (KV * dh, D), "Q4_K", 0),
                    (p + "attn_v.weight", (KV * dh, D), big, 0), (p + "attn_output.weight", (D, H * dh), "Q4_K", 0),
                    (p + "attn_q_norm.weight", (dh,), "F32", 1), (p + "attn_k_norm.weight", (dh,), "F32", 1),
                    (p + "ffn_gate_inp.weight", (E, D), "F32", None),
                    (p + "ffn_gate_exps.weight", (E, F, D), "Q4_K", 0), (p + "ffn_up_exps.weight", (E, F, D), "Q4_K", 0),
                    (p + "ffn_down_exps.weight", (E, D, F), big, 0)]
    return "qwen3moe", meta, tensors, V


def main(model, out, layers=None):
    if model == "gpt-oss-20b-hub":
        return write_gpt_oss_hub(out, int(layers or 24))
    write_file(out, model, *{"gpt-oss-20b": gpt_oss_20b, "qwen3-30b-a3b": qwen3_30b_a3b}[model]())


def hub_bytes(kind, n, fill):
    """n values of a Hub tensor as bytes: BF16 `fill` (a constant, or None: random of magnitude 2^-7 to
    2^-6, either sign), U8 MXFP4 values at random, or U8 E8M0 scales of 2^-7 ("scales")."""
    if kind == "scales":
        return np.full(n, 120, np.uint8).tobytes()
    if kind == "U8":
        return RNG.integers(0, 256, n, dtype=np.uint8).tobytes()
    if fill is not None:
        return np.full(n, np.frombuffer(np.float32(fill).tobytes(), "<u2")[1], "<u2").tobytes()
    return (RNG.integers(0, 128, n, dtype=np.uint16) | (0x3C00 + 0x8000 * RNG.integers(0, 2, n, dtype=np.uint16))).astype("<u2").tobytes()


def write_gpt_oss_hub(out, layers):
    """openai/gpt-oss-20b's directory at its shapes, `layers` of its layers: config.json as the Hub's,
    and model.safetensors written a slab at a time."""
    D, H, KV, dh, E, F, V = 2880, 64, 8, 64, 32, 2880, 201088
    config = {"architectures": ["GptOssForCausalLM"], "attention_bias": True, "eos_token_id": 200002, "experts_per_token": 4,
              "head_dim": dh, "hidden_act": "silu", "hidden_size": D, "initial_context_length": 4096, "intermediate_size": F,
              "layer_types": ["sliding_attention" if l % 2 == 0 else "full_attention" for l in range(layers)],
              "max_position_embeddings": 131072, "model_type": "gpt_oss", "num_attention_heads": H, "num_experts_per_tok": 4,
              "num_hidden_layers": layers, "num_key_value_heads": KV, "num_local_experts": E, "pad_token_id": 199999,
              "quantization_config": {"quant_method": "mxfp4"}, "rms_norm_eps": 1e-05,
              "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096,
                               "rope_type": "yarn", "truncate": False},
              "rope_theta": 150000, "sliding_window": 128, "swiglu_limit": 7.0, "tie_word_embeddings": False,
              "torch_dtype": "bfloat16", "vocab_size": V}
    tensors = [("model.embed_tokens.weight", (V, D), "BF16", None), ("model.norm.weight", (D,), "BF16", 1.0),
               ("lm_head.weight", (V, D), "BF16", None)]
    for l in range(layers):
        p = f"model.layers.{l}."
        tensors += [(p + "input_layernorm.weight", (D,), "BF16", 1.0), (p + "post_attention_layernorm.weight", (D,), "BF16", 1.0),
                    (p + "self_attn.sinks", (H,), "BF16", 0.0), (p + "mlp.router.weight", (E, D), "BF16", None),
                    (p + "mlp.router.bias", (E,), "BF16", 0.0)]
        for name, rows, cols in (("q_proj", H * dh, D), ("k_proj", KV * dh, D), ("v_proj", KV * dh, D), ("o_proj", D, H * dh)):
            tensors += [(p + f"self_attn.{name}.weight", (rows, cols), "BF16", None), (p + f"self_attn.{name}.bias", (rows,), "BF16", 0.0)]
        for name, rows, cols in (("gate_up_proj", 2 * F, D), ("down_proj", D, F)):
            e = p + "mlp.experts." + name
            tensors += [(e + "_blocks", (E, rows, cols // 32, 16), "U8", None), (e + "_scales", (E, rows, cols // 32), "scales", None),
                        (e + "_bias", (E, rows), "BF16", 0.0)]
    header, offset = {}, 0
    for name, shape, kind, _ in tensors:
        size = int(np.prod(shape)) * (2 if kind == "BF16" else 1)
        header[name] = {"dtype": "BF16" if kind == "BF16" else "U8", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    text += b" " * ((-len(text)) % 8)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text)
        for name, shape, kind, fill in tensors:
            n = int(np.prod(shape))
            for start in range(0, n, 32 << 20):
                f.write(hub_bytes(kind, min(32 << 20, n - start), fill))
    print(f"{os.path.basename(sys.argv[0])}: {out}, {offset / 1e9:.2f} GB of tensors")


def write_file(out, model, arch, keys, tensors, vocab):
    """A GGUF file of general.architecture `arch` with the keys `keys` (without the "arch." prefix),
    the tensors (name, shape, type, F32 fill) and a vocabulary of `vocab` unused tokens."""
    meta = {"general.architecture": arch, "general.name": f"random {model}", "general.alignment": 32}
    meta.update({f"{arch}.{k}": v for k, v in keys.items()})
    meta.update({"tokenizer.ggml.model": "gpt2", "tokenizer.ggml.pre": "gpt-2",
                 "tokenizer.ggml.tokens": [f"<unused{i}>" for i in range(vocab)],
                 "tokenizer.ggml.token_type": [("i32", 1)] * vocab, "tokenizer.ggml.merges": ["<unused0> <unused1>"]})
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(meta))
    for key, value in meta.items():
        kind, data = make_gguf.gguf_value(value)
        head += make_gguf.gguf_string(key) + struct.pack("<I", kind) + data
    offset, pads = 0, []
    for name, shape, kind, _ in tensors:
        head += make_gguf.gguf_string(name) + struct.pack("<I", len(shape)) + b"".join(struct.pack("<Q", n) for n in reversed(shape))
        head += struct.pack("<IQ", make_gguf.TYPES[kind][0], offset)
        size = tensor_bytes(kind, shape)
        pads.append((-size) % 32)
        offset += size + pads[-1]
    with open(out, "wb") as f:
        f.write(head + b"\0" * ((-len(head)) % 32))
        for (name, shape, kind, fill), pad in zip(tensors, pads):
            write_data(f, kind, shape, fill)
            f.write(b"\0" * pad)
    print(f"{os.path.basename(sys.argv[0])}: {out}, {offset / 1e9:.2f} GB of tensors")


if __name__ == "__main__":
    if not 3 <= len(sys.argv) <= (4 if sys.argv[1:2] == ["gpt-oss-20b-hub"] else 3) or sys.argv[1] not in ("gpt-oss-20b", "qwen3-30b-a3b", "gpt-oss-20b-hub"):
        sys.exit(__doc__)
    main(*sys.argv[1:])
