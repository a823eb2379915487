#!/usr/bin/python3
"""PyTorch's float32 forward of a Llama checkpoint with every attention map kept (as transformers'
output_attentions=True does), on 2 threads: the anchor bench/bench_model.sh times attnviz's
Llama-1B-sized forward against.

    /usr/bin/python3 bench/torch_llama.py MODEL_DIR TOKENS REPS      prints {"median_ms", "tokens", "blas", ...}

The BF16 (or F16, F32) weights are widened to float32 once at load, so that PyTorch multiplies in
float32 as attnviz does; its BLAS and kernel are reported as bench/torch_gpt2.py reports them.

Written here from modeling_llama.py's equations (not transformers itself, which Debian does not
ship): nn.Linear weights (out, in), RMSNorm x / sqrt(mean(x²) + eps) · w, rotary embeddings on the
halves of each head (rotate_half) with the llama3 frequency scaling where the config asks, grouped
keys and values repeated over their heads, causal softmax(q kᵀ / √head_dim), down(silu(gate) · up),
lm_head = embed_tokensᵀ when the embeddings are tied."""
import json
import math
import sys

import numpy as np
import torch

from torch_gpt2 import time_forward


def load(path):
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for k, e in header.items():
        if k == "__metadata__":
            continue
        begin, end = (8 + n + o for o in e["data_offsets"])
        if e["dtype"] == "BF16":  # the top half of a float32
            a = (np.frombuffer(raw, "<u2", (end - begin) // 2, begin).astype(np.uint32) << 16).view(np.float32)
        elif e["dtype"] == "F16":
            a = np.frombuffer(raw, "<f2", (end - begin) // 2, begin).astype(np.float32)
        else:
            a = np.frombuffer(raw, "<f4", (end - begin) // 4, begin).copy()
        out[k] = torch.from_numpy(a.reshape(e["shape"]))
    return out


def inverse_frequencies(c, head_dim):
    inv = 1.0 / (c.get("rope_theta", 10000.0) ** (torch.arange(0, head_dim, 2, dtype=torch.float32) / head_dim))
    s = c.get("rope_scaling") or {}
    if s.get("rope_type", s.get("type")) != "llama3":
        return inv
    factor, low, high, old = s["factor"], s["low_freq_factor"], s["high_freq_factor"], s["original_max_position_embeddings"]
    wavelength = 2 * math.pi / inv
    smooth = (old / wavelength - low) / (high - low)
    scaled = torch.where(wavelength > old / low, inv / factor, inv)
    middle = (wavelength <= old / low) & (wavelength >= old / high)
    return torch.where(middle, (1 - smooth) * inv / factor + smooth * inv, scaled)


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


def rms_norm(x, w, eps):
    return w * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps))


def forward(w, c, ids):
    t, D, H, KV = ids.shape[0], c["hidden_size"], c["num_attention_heads"], c["num_key_value_heads"]
    d = c.get("head_dim", D // H)
    eps = c["rms_norm_eps"]
    angles = torch.outer(torch.arange(t, dtype=torch.float32), inverse_frequencies(c, d))
    cos, sin = torch.cat((angles, angles), -1).cos(), torch.cat((angles, angles), -1).sin()  # (t, d)
    mask = torch.full((t, t), float("-inf")).triu(1)
    x = w["model.embed_tokens.weight"][ids]
    attentions = []
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        a = rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q = (a @ w[p + "self_attn.q_proj.weight"].T).view(t, H, d).transpose(0, 1)   # (H, t, d)
        k = (a @ w[p + "self_attn.k_proj.weight"].T).view(t, KV, d).transpose(0, 1)  # (KV, t, d)
        v = (a @ w[p + "self_attn.v_proj.weight"].T).view(t, KV, d).transpose(0, 1)
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        k, v = k.repeat_interleave(H // KV, dim=0), v.repeat_interleave(H // KV, dim=0)
        att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(d) + mask, dim=-1)  # (H, t, t)
        attentions.append(att)
        x = x + (att @ v).transpose(0, 1).reshape(t, H * d) @ w[p + "self_attn.o_proj.weight"].T
        a = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        gate = torch.nn.functional.silu(a @ w[p + "mlp.gate_proj.weight"].T)
        x = x + (gate * (a @ w[p + "mlp.up_proj.weight"].T)) @ w[p + "mlp.down_proj.weight"].T
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w.get("lm_head.weight", w["model.embed_tokens.weight"])
    return x @ head.T, torch.stack(attentions)


if __name__ == "__main__":
    time_forward(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), load, forward, "torch_llama.py")
