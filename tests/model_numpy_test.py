#!/usr/bin/python3
"""Real checkpoints against a NumPy reference: every fixture of tests/fixtures/make_checkpoints.py
through `attnviz --forward`, `--generate` and `--export-attention`, and every kind of bad input.

The reference forward passes below are written from transformers' modeling files (modeling_gpt2,
modeling_llama / mistral / qwen2 / qwen3 / qwen3_moe / phi3 / smollm3 / olmo2 / olmo3 / gpt_oss with modeling_rope_utils
(llama3, longrope and YaRN), modeling_bert, modeling_gemma2 and modeling_gemma3 with the defaults of their
configuration classes), in float64, with their own
safetensors reader; they share no code with attnviz.
usage: model_numpy_test.py ATTNVIZ WORKDIR"""
import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np

attnviz, workdir = (sys.argv[1:3] + ["", ""])[:2] if __name__ == "__main__" else ("", "")
here = os.path.dirname(os.path.abspath(__file__))
failures = []


def fail(message):
    failures.append(message)
    print("model_numpy_test: FAIL " + message, file=sys.stderr)


# ---- reading the fixtures back -------------------------------------------------------------------

def read_safetensors(path):
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    out = {}
    for name, e in header.items():
        if name == "__metadata__":
            continue
        b, end = e["data_offsets"]
        data = raw[8 + n + b:8 + n + end]
        if e["dtype"] == "U8":  # MXFP4 blocks and scales: bytes, read by mxfp4_values
            out[name] = np.frombuffer(data, np.uint8).reshape(e["shape"])
            continue
        if e["dtype"] == "F32":
            a = np.frombuffer(data, "<f4")
        elif e["dtype"] == "F16":
            a = np.frombuffer(data, "<f2")
        elif e["dtype"] == "BF16":
            a = (np.frombuffer(data, "<u2").astype(np.uint32) << 16).view(np.float32)
        out[name] = a.astype(np.float64).reshape(e["shape"])
    return out


def read_weights(d):
    index = os.path.join(d, "model.safetensors.index.json")
    if os.path.exists(index):
        w = {}
        for f in sorted(set(json.load(open(index))["weight_map"].values())):
            w.update(read_safetensors(os.path.join(d, f)))
        return w
    return read_safetensors(os.path.join(d, "model.safetensors"))


# ---- the reference forwards ----------------------------------------------------------------------

def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * w + b


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def gelu_erf(x):
    return 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


def attend(q, k, v, mask):
    """q (H, t, dh), k, v (H, t, dh), mask (t, t) True where a key is visible."""
    scores = q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1])
    a = softmax(np.where(mask, scores, -np.inf))
    return a @ v, a


def attend_with_sinks(q, k, v, mask, sinks):
    """GptOssAttention: each head's sink logit joins its row's scores after the scale and mask, the
    softmax runs over both and the sink's column is dropped. The rows (H, t, t) sum to 1 − the sink's
    share (H, t)."""
    scores = np.where(mask, q @ k.transpose(0, 2, 1) / math.sqrt(q.shape[-1]), -np.inf)
    both = softmax(np.concatenate([scores, np.broadcast_to(sinks[:, None, None], scores.shape[:2] + (1,))], -1))
    a = both[..., :-1]
    return a @ v, a, both[..., -1]


def ablated(o, layer, ablate, mode):
    """o (H, t, dh) before the output projection: each head (layer, h) of `ablate` (from 0) set to 0
    or to its mean over the positions; a callable mode(o, layer) returns the heads' outputs instead."""
    if callable(mode):
        return mode(o, layer)
    for l, h in ablate:
        if l == layer:
            o[h] = 0.0 if mode == "zero" else o[h].mean(axis=0)
    return o


def heads(x, n):
    t = x.shape[0]
    return x.reshape(t, n, -1).transpose(1, 0, 2)


def gpt2_forward(c, w, ids, ablate=(), mode="zero"):
    p = "transformer." if "transformer.wte.weight" in w else ""
    eps, H, t = c["layer_norm_epsilon"], c["n_head"], len(ids)
    act = gelu_erf if c["activation_function"] == "gelu" else gelu_tanh
    x = w[p + "wte.weight"][ids] + w[p + "wpe.weight"][:t]
    mask = np.tril(np.ones((t, t), bool))
    atts = []
    for l in range(c["n_layer"]):
        h = f"{p}h.{l}."
        a = layer_norm(x, w[h + "ln_1.weight"], w[h + "ln_1.bias"], eps)
        q, k, v = np.split(a @ w[h + "attn.c_attn.weight"] + w[h + "attn.c_attn.bias"], 3, axis=1)  # Conv1D: (in, out)
        o, att = attend(heads(q, H), heads(k, H), heads(v, H), mask)
        atts.append(att)
        o = ablated(o, l, ablate, mode)
        x = x + o.transpose(1, 0, 2).reshape(t, -1) @ w[h + "attn.c_proj.weight"] + w[h + "attn.c_proj.bias"]
        a = layer_norm(x, w[h + "ln_2.weight"], w[h + "ln_2.bias"], eps)
        x = x + act(a @ w[h + "mlp.c_fc.weight"] + w[h + "mlp.c_fc.bias"]) @ w[h + "mlp.c_proj.weight"] + w[h + "mlp.c_proj.bias"]
    x = layer_norm(x, w[p + "ln_f.weight"], w[p + "ln_f.bias"], eps)
    return x @ w[p + "wte.weight"].T, np.array(atts)


def rope_inv_freq(c, dim):
    inv = 1.0 / c.get("rope_theta", 10000.0) ** (np.arange(0, dim, 2) / dim)
    s = c.get("rope_scaling")
    if s and s.get("rope_type", s.get("type")) == "llama3":
        factor, low, high, old = s["factor"], s["low_freq_factor"], s["high_freq_factor"], s["original_max_position_embeddings"]
        wavelen = 2 * math.pi / inv
        scaled = np.where(wavelen > old / low, inv / factor, inv)
        smooth = (old / wavelen - low) / (high - low)
        medium = (wavelen >= old / high) & (wavelen <= old / low)
        inv = np.where(medium, (1 - smooth) * scaled / factor + smooth * scaled, scaled)
    if s and s.get("rope_type", s.get("type")) == "longrope":  # the short factors: no position past the original context
        inv = inv / np.array(s["short_factor"])
    if s and s.get("rope_type", s.get("type")) == "yarn":
        inv = yarn_inv_freq(c, s, dim)
    return inv


def yarn_inv_freq(c, s, dim):
    """_compute_yarn_parameters: the dims turning fewer than beta_slow times over the original context
    interpolated (divided by factor), those turning more than beta_fast times kept, a linear ramp
    between; the range's ends rounded outwards unless truncate is false."""
    base, original = c.get("rope_theta", 10000.0), s.get("original_max_position_embeddings", c["max_position_embeddings"])
    at = lambda turns: dim * math.log(original / (turns * 2 * math.pi)) / (2 * math.log(base))
    low, high = at(s.get("beta_fast") or 32), at(s.get("beta_slow") or 1)
    if s.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    keep = 1 - np.clip((np.arange(dim // 2) - low) / (high - low), 0, 1)
    extrapolated = 1.0 / base ** (np.arange(0, dim, 2) / dim)
    return extrapolated / s["factor"] * (1 - keep) + extrapolated * keep


def rope_attention_factor(c):
    """longrope's scale of cos and sin; 1 for the other kinds."""
    s = c.get("rope_scaling")
    if s and s.get("rope_type", s.get("type")) == "yarn":
        mscale = lambda m: 1.0 if s["factor"] <= 1 else 0.1 * m * math.log(s["factor"]) + 1.0
        if "attention_factor" in s:
            return s["attention_factor"]
        both = s.get("mscale") and s.get("mscale_all_dim")
        return mscale(s["mscale"]) / mscale(s["mscale_all_dim"]) if both else mscale(1)
    if not s or s.get("rope_type", s.get("type")) != "longrope":
        return 1.0
    original = s.get("original_max_position_embeddings", c.get("original_max_position_embeddings", c["max_position_embeddings"]))
    factor = s.get("factor", c["max_position_embeddings"] / original)
    return s.get("attention_factor", 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(original)))


def rope(x, inv, scale=1.0):
    """x (H, t, dh): the first 2·len(inv) dims of each head become q·cos + rotate_half(q)·sin with
    cos, sin = cat(freqs, freqs) · scale; the rest pass (Phi-3's partial rotary)."""
    t, dim = x.shape[1], 2 * len(inv)
    freqs = np.outer(np.arange(t), inv)
    cos, sin = np.cos(np.concatenate([freqs, freqs], -1)) * scale, np.sin(np.concatenate([freqs, freqs], -1)) * scale
    r, rest = x[..., :dim], x[..., dim:]
    rotated = np.concatenate([-r[..., dim // 2:], r[..., :dim // 2]], -1)
    return np.concatenate([r * cos + rotated * sin, rest], -1)


def rms_norm(x, w, eps):
    return w * (x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps))


def windows(c):
    """Each layer's sliding window (None: every earlier key), as each configuration class sets it."""
    arch, L = c["architectures"][0], c["num_hidden_layers"]
    if arch in ("MistralForCausalLM", "Phi3ForCausalLM"):
        return [c.get("sliding_window")] * L
    if arch == "Qwen3MoeForCausalLM":
        return [c.get("sliding_window", 4096) if c.get("use_sliding_window", False) else None] * L
    if arch == "Qwen3ForCausalLM":
        window = c.get("sliding_window", 4096) if c.get("use_sliding_window", False) else None
        types = c.get("layer_types") or ["sliding_attention" if window is not None and i >= c.get("max_window_layers", 28)
                                         else "full_attention" for i in range(L)]
        return [window if kind == "sliding_attention" else None for kind in types]
    if arch == "GptOssForCausalLM":  # GptOssConfig: sliding from layer 0 on, every other layer
        types = c.get("layer_types") or ["sliding_attention" if i % 2 == 0 else "full_attention" for i in range(L)]
        return [c.get("sliding_window", 128) if kind == "sliding_attention" else None for kind in types]
    if arch == "Olmo3ForCausalLM":  # Olmo3Config: three sliding layers of every four by default
        types = c.get("layer_types") or ["full_attention" if (i + 1) % 4 == 0 else "sliding_attention" for i in range(L)]
        return [c.get("sliding_window", 4096) if kind == "sliding_attention" else None for kind in types]
    return [None] * L


def rope_layers(c):
    """Whether each layer turns q and k: SmolLM3Attention's use_rope = no_rope_layers[l] (1: RoPE)."""
    L = c["num_hidden_layers"]
    if c["architectures"][0] != "SmolLM3ForCausalLM":
        return [True] * L
    interval = c.get("no_rope_layer_interval", 4)
    return [bool(u) for u in (c.get("no_rope_layers") or [int((i + 1) % interval != 0) for i in range(L)])][:L]


def qkv(c, w, p, a, dh):
    """q (t, H·dh), k, v (t, Hkv·dh) of layer prefix p: q_proj / k_proj / v_proj, or Phi-3's fused
    qkv_proj cut at H·dh and H·dh + Hkv·dh."""
    lin = lambda x, name: x @ w[name + ".weight"].T + (w[name + ".bias"] if name + ".bias" in w else 0)
    if p + "self_attn.qkv_proj.weight" in w:
        H, KV = c["num_attention_heads"], c.get("num_key_value_heads", c["num_attention_heads"])
        fused = lin(a, p + "self_attn.qkv_proj")
        return fused[:, :H * dh], fused[:, H * dh:(H + KV) * dh], fused[:, (H + KV) * dh:]
    return lin(a, p + "self_attn.q_proj"), lin(a, p + "self_attn.k_proj"), lin(a, p + "self_attn.v_proj")


def gate_up(w, p, a):
    if p + "mlp.gate_up_proj.weight" in w:  # Phi-3: chunk(2) of one product
        return np.split(a @ w[p + "mlp.gate_up_proj.weight"].T, 2, axis=1)
    lin = lambda name: a @ w[name + ".weight"].T + (w[name + ".bias"] if name + ".bias" in w else 0)
    return lin(p + "mlp.gate_proj"), lin(p + "mlp.up_proj")


def sparse_layer(c, l):
    """Qwen3MoeDecoderLayer's choice: a mixture unless l is in mlp_only_layers, and on every
    decoder_sparse_step-th layer."""
    return c.get("num_experts", 0) > 0 and l not in c.get("mlp_only_layers", []) and (l + 1) % c.get("decoder_sparse_step", 1) == 0


def mixture(c, w, p, a, layer, knocked=(), routing=None):
    """Qwen3MoeSparseMoeBlock on a (t, D): the router's softmax over every expert, its top k (largest
    first), divided by their sum only with norm_topk_prob; each expert's SwiGLU MLP on the positions
    that chose it, times its weight. An expert (layer, e) of `knocked` (from 0) is dropped from the
    chosen, the others keeping their weights. Appends (probabilities, chosen, weights) to `routing`."""
    k = c["num_experts_per_tok"]
    silu = lambda z: z / (1 + np.exp(-z))
    probs = softmax(a @ w[p + "mlp.gate.weight"].T)  # (t, E)
    chosen = np.argsort(-probs, axis=-1, kind="stable")[:, :k]  # (t, k)
    weights = np.take_along_axis(probs, chosen, -1)
    if c.get("norm_topk_prob", False):
        weights = weights / weights.sum(-1, keepdims=True)
    weights = np.where(np.isin(chosen, [e for l, e in knocked if l == layer]), 0.0, weights)
    out = np.zeros_like(a)
    for e in range(c["num_experts"]):
        q = f"{p}mlp.experts.{e}."
        y = (silu(a @ w[q + "gate_proj.weight"].T) * (a @ w[q + "up_proj.weight"].T)) @ w[q + "down_proj.weight"].T
        out += (weights * (chosen == e)).sum(-1, keepdims=True) * y
    if routing is not None:
        routing.append((layer, probs, chosen, weights))
    return out


# The E2M1 values of an MXFP4 nibble (sign in its top bit), as transformers' FP4_VALUES.
FP4_VALUES = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, -0.0, -0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0])


def mxfp4_values(blocks, scales):
    """convert_moe_packed_tensors: blocks (…, R, G, 16) bytes and scales (…, R, G) E8M0 → (…, R, G·32):
    byte j of a block holds value 2j in its low nibble and 2j + 1 in its high one, each times 2^(scale − 127)."""
    pairs = np.stack([FP4_VALUES[blocks & 0x0F], FP4_VALUES[blocks >> 4]], -1).reshape(*blocks.shape[:-1], 32)
    return (pairs * np.exp2(scales.astype(np.float64) - 127)[..., None]).reshape(*blocks.shape[:-2], -1)


def gpt_oss_experts(w, p):
    """Layer prefix p's experts as gate, up (E, F, D), down (E, D, F) and their biases (E, F), (E, F),
    (E, D): GGUF's stacked tensors as they are, or the Hub's (in, out) gate_up_proj (E, D, 2F), gate at
    the even columns, dequantized or from MXFP4 blocks (E, out, in/32, 16)."""
    q = p + "mlp.experts."
    if q + "gate_proj.weight" in w:
        return tuple(w[q + n] for n in ("gate_proj.weight", "up_proj.weight", "down_proj.weight", "gate_proj.bias", "up_proj.bias", "down_proj.bias"))
    if q + "gate_up_proj_blocks" in w:
        gate_up = mxfp4_values(w[q + "gate_up_proj_blocks"], w[q + "gate_up_proj_scales"]).transpose(0, 2, 1)  # (E, D, 2F)
        down = mxfp4_values(w[q + "down_proj_blocks"], w[q + "down_proj_scales"]).transpose(0, 2, 1)  # (E, F, D)
    else:
        gate_up, down = w[q + "gate_up_proj"], w[q + "down_proj"]
    b = w[q + "gate_up_proj_bias"]
    return (gate_up[..., 0::2].transpose(0, 2, 1), gate_up[..., 1::2].transpose(0, 2, 1), down.transpose(0, 2, 1),
            b[:, 0::2], b[:, 1::2], w[q + "down_proj_bias"])


def gpt_oss_mixture(c, w, p, a, layer, knocked=(), routing=None, clamped=None):
    """GptOssMLP on a (t, D): the router's logits (with bias), their top k, weighted by a softmax over
    those k alone; each expert's clamped SwiGLU (gate ≤ limit, |up| ≤ limit, (up + 1) · gate ·
    σ(1.702 · gate)) with biases. Routing's probabilities are the softmax over every logit. `clamped`
    gathers how many values the clamp changed."""
    k, limit = c.get("num_experts_per_tok", c.get("experts_per_token")), c.get("swiglu_limit", 7.0)
    logits = a @ w[p + "mlp.router.weight"].T + w[p + "mlp.router.bias"]  # (t, E)
    chosen = np.argsort(-logits, axis=-1, kind="stable")[:, :k]  # (t, k)
    weights = softmax(np.take_along_axis(logits, chosen, -1))
    weights = np.where(np.isin(chosen, [e for l, e in knocked if l == layer]), 0.0, weights)
    gate, up, down, gate_b, up_b, down_b = gpt_oss_experts(w, p)
    out = np.zeros_like(a)
    for e in range(gate.shape[0]):
        g, u = a @ gate[e].T + gate_b[e], a @ up[e].T + up_b[e]
        if clamped is not None:
            clamped.append(int((g > limit).sum() + (np.abs(u) > limit).sum()))
        g, u = np.minimum(g, limit), np.clip(u, -limit, limit)
        y = ((u + 1) * g / (1 + np.exp(-1.702 * g))) @ down[e].T + down_b[e]
        out += (weights * (chosen == e)).sum(-1, keepdims=True) * y
    if routing is not None:
        routing.append((layer, softmax(logits), chosen, weights))
    return out


def llama_forward(c, w, ids, ablate=(), mode="zero", knocked=(), routing=None, sinks=None, clamped=None):
    """The Llama layer and its relatives. OLMo 2 and 3 (post_feedforward_layernorm present): no norm
    before attention or the MLP, an RMSNorm of each one's output, q/k normed over the whole projection;
    OLMo 3's sliding layers turn by the unscaled frequencies. SmolLM3: no RoPE where no_rope_layers is 0.
    gpt-oss: learned sinks (each layer's shares (H, t) appended to `sinks`) and its mixture."""
    H, KV, eps, t = c["num_attention_heads"], c.get("num_key_value_heads", c["num_attention_heads"]), c["rms_norm_eps"], len(ids)
    dh = c.get("head_dim") or c["hidden_size"] // H
    rotary = int(dh * c.get("partial_rotary_factor", 1.0))
    inv, scale = rope_inv_freq(c, rotary), rope_attention_factor(c)
    plain = 1.0 / c.get("rope_theta", 10000.0) ** (np.arange(0, rotary, 2) / rotary)
    i, j = np.indices((t, t))
    wins = windows(c)
    masks = [(j <= i) & (True if win is None else i - j < win) for win in wins]
    silu = lambda z: z / (1 + np.exp(-z))
    lin = lambda x, name: x @ w[name + ".weight"].T + (w[name + ".bias"] if name + ".bias" in w else 0)
    olmo, olmo3 = "model.layers.0.post_feedforward_layernorm.weight" in w, c["architectures"][0] == "Olmo3ForCausalLM"
    x = w["model.embed_tokens.weight"][ids]
    atts = []
    for l, turns in enumerate(rope_layers(c)):
        p = f"model.layers.{l}."
        a = x if olmo else rms_norm(x, w[p + "input_layernorm.weight"], eps)
        q, k, v = qkv(c, w, p, a, dh)
        if olmo:  # Olmo2Attention: q_norm over H·dh, k_norm over Hkv·dh, before the heads are split
            q, k = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps), rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        q, k, v = heads(q, H), heads(k, KV), heads(v, KV)
        if p + "self_attn.q_norm.weight" in w and not olmo:  # Qwen3: each head normed over head_dim, before RoPE
            q, k = rms_norm(q, w[p + "self_attn.q_norm.weight"], eps), rms_norm(k, w[p + "self_attn.k_norm.weight"], eps)
        if turns:
            sliding = olmo3 and wins[l] is not None
            q, k = rope(q, plain if sliding else inv, 1.0 if sliding else scale), rope(k, plain if sliding else inv, 1.0 if sliding else scale)
        k, v = np.repeat(k, H // KV, axis=0), np.repeat(v, H // KV, axis=0)  # repeat_kv
        if p + "self_attn.sinks" in w:
            o, att, share = attend_with_sinks(q, k, v, masks[l], w[p + "self_attn.sinks"])
            if sinks is not None:
                sinks.append(share)
        else:
            o, att = attend(q, k, v, masks[l])
        atts.append(att)
        o = ablated(o, l, ablate, mode)
        out = lin(o.transpose(1, 0, 2).reshape(t, -1), p + "self_attn.o_proj")
        x = x + (rms_norm(out, w[p + "post_attention_layernorm.weight"], eps) if olmo else out)
        a = x if olmo else rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        if p + "mlp.router.weight" in w:
            x = x + gpt_oss_mixture(c, w, p, a, l, knocked, routing, clamped)
            continue
        if sparse_layer(c, l):
            x = x + mixture(c, w, p, a, l, knocked, routing)
            continue
        g, u = gate_up(w, p, a)
        out = lin(silu(g) * u, p + "mlp.down_proj")
        x = x + (rms_norm(out, w[p + "post_feedforward_layernorm.weight"], eps) if olmo else out)
    x = rms_norm(x, w["model.norm.weight"], eps)
    head = w["model.embed_tokens.weight"] if c.get("tie_word_embeddings") else w["lm_head.weight"]
    return x @ head.T, np.array(atts)


def bert_forward(c, w, ids, ablate=(), mode="zero"):
    w = {k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias"): v for k, v in w.items()}
    p = "bert." if "bert.embeddings.word_embeddings.weight" in w else ""
    H, eps, t = c["num_attention_heads"], c["layer_norm_eps"], len(ids)
    lin = lambda x, name: x @ w[name + ".weight"].T + w[name + ".bias"]
    ln = lambda x, name: layer_norm(x, w[name + ".weight"], w[name + ".bias"], eps)
    e = p + "embeddings."
    x = ln(w[e + "word_embeddings.weight"][ids] + w[e + "position_embeddings.weight"][:t] + w[e + "token_type_embeddings.weight"][0],
           e + "LayerNorm")
    mask = np.ones((t, t), bool)
    atts = []
    for l in range(c["num_hidden_layers"]):
        q = f"{p}encoder.layer.{l}."
        s = q + "attention.self."
        o, att = attend(heads(lin(x, s + "query"), H), heads(lin(x, s + "key"), H), heads(lin(x, s + "value"), H), mask)
        atts.append(att)
        o = ablated(o, l, ablate, mode)
        x = ln(lin(o.transpose(1, 0, 2).reshape(t, -1), q + "attention.output.dense") + x, q + "attention.output.LayerNorm")
        x = ln(lin(gelu_erf(lin(x, q + "intermediate.dense")), q + "output.dense") + x, q + "output.LayerNorm")
    if c["architectures"][0] == "BertModel":
        return x, np.array(atts)
    h = ln(gelu_erf(lin(x, "cls.predictions.transform.dense")), "cls.predictions.transform.LayerNorm")
    return h @ w[p + "embeddings.word_embeddings.weight"].T + w["cls.predictions.bias"], np.array(atts)


# Gemma2Config's and Gemma3TextConfig's defaults for what a config.json may leave out.
GEMMA_DEFAULTS = {
    "gemma2": {"num_key_value_heads": 4, "head_dim": 256, "hidden_activation": "gelu_pytorch_tanh", "rms_norm_eps": 1e-6,
               "rope_theta": 10000.0, "query_pre_attn_scalar": 256, "sliding_window": 4096, "final_logit_softcapping": 30.0,
               "attn_logit_softcapping": 50.0},
    "gemma3_text": {"num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "rms_norm_eps": 1e-6,
                    "hidden_activation": "gelu_pytorch_tanh", "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
                    "query_pre_attn_scalar": 256, "sliding_window": 4096, "sliding_window_pattern": 6,
                    "final_logit_softcapping": None, "attn_logit_softcapping": None},
}


def gemma_text_config(c):
    """The text model's config, defaults filled in, and the prefix of its weights."""
    nested = "text_config" in c
    t = dict(c["text_config"]) if nested else dict(c)
    kind = "gemma2" if c["architectures"][0] == "Gemma2ForCausalLM" else "gemma3_text"
    t = {**GEMMA_DEFAULTS[kind], **t}
    if "layer_types" not in t:  # Gemma 2: every other layer from the first; Gemma 3: all but every pattern-th
        n = 2 if kind == "gemma2" else t["sliding_window_pattern"]
        t["layer_types"] = ["sliding_attention" if (l + 1) % n else "full_attention" for l in range(t["num_hidden_layers"])]
    return kind, t, "language_model.model." if nested else "model."


def gemma_norm(x, w, eps):
    """Gemma's RMSNorm: scales by (1 + weight)."""
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * (1 + w)


def softcap(x, cap):
    return cap * np.tanh(x / cap) if cap else x


def gemma_forward(c, w, ids, ablate=(), mode="zero"):
    kind, c, p = gemma_text_config(c)
    H, KV, dh, eps, t = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"], c["rms_norm_eps"], len(ids)
    lin = lambda x, name: x @ w[name + ".weight"].T
    rope_global = rope_inv_freq(c, dh)
    if c.get("rope_scaling") and c["rope_scaling"].get("rope_type", c["rope_scaling"].get("type")) == "linear":
        rope_global = rope_global / c["rope_scaling"]["factor"]
    rope_local = rope_inv_freq({"rope_theta": c.get("rope_local_base_freq")}, dh) if kind == "gemma3_text" else rope_global
    attn_cap = c["attn_logit_softcapping"] if kind == "gemma2" else None  # Gemma 3 does not soft-cap attention
    i, j = np.indices((t, t))
    x = w[p + "embed_tokens.weight"][ids] * float(np.float32(math.sqrt(c["hidden_size"])))
    atts = []
    for l in range(c["num_hidden_layers"]):
        q_ = f"{p}layers.{l}."
        sliding = c["layer_types"][l] == "sliding_attention"
        mask = (j <= i) & ((i - j < c["sliding_window"]) if sliding else True)
        a = gemma_norm(x, w[q_ + "input_layernorm.weight"], eps)
        q, k, v = heads(lin(a, q_ + "self_attn.q_proj"), H), heads(lin(a, q_ + "self_attn.k_proj"), KV), heads(lin(a, q_ + "self_attn.v_proj"), KV)
        if kind == "gemma3_text":
            q, k = gemma_norm(q, w[q_ + "self_attn.q_norm.weight"], eps), gemma_norm(k, w[q_ + "self_attn.k_norm.weight"], eps)
        inv = rope_local if sliding else rope_global
        q, k = rope(q, inv), rope(k, inv)
        k, v = np.repeat(k, H // KV, axis=0), np.repeat(v, H // KV, axis=0)
        scores = softcap(q @ k.transpose(0, 2, 1) * c["query_pre_attn_scalar"] ** -0.5, attn_cap)
        att = softmax(np.where(mask, scores, -np.inf))
        atts.append(att)
        o = ablated(att @ v, l, ablate, mode)
        x = x + gemma_norm(lin(o.transpose(1, 0, 2).reshape(t, -1), q_ + "self_attn.o_proj"), w[q_ + "post_attention_layernorm.weight"], eps)
        a = gemma_norm(x, w[q_ + "pre_feedforward_layernorm.weight"], eps)
        m = lin(gelu_tanh(lin(a, q_ + "mlp.gate_proj")) * lin(a, q_ + "mlp.up_proj"), q_ + "mlp.down_proj")
        x = x + gemma_norm(m, w[q_ + "post_feedforward_layernorm.weight"], eps)
    x = gemma_norm(x, w[p + "norm.weight"], eps)
    return softcap(x @ w[p + "embed_tokens.weight"].T, c["final_logit_softcapping"]), np.array(atts)


def reference(d, ids, ablate=(), mode="zero"):
    """logits (or hidden states) and attention (L, H, t, t) of the model in `d`, with the heads
    (layer, head) of `ablate` (from 0) set to zero or their mean before the output projection."""
    c = json.load(open(os.path.join(d, "config.json")))
    arch = c["architectures"][0]
    forward = (gpt2_forward if arch.startswith("GPT2") else bert_forward if arch.startswith("Bert") else
               gemma_forward if arch.startswith("Gemma") else llama_forward)
    return forward(c, read_weights(d), list(ids), ablate, mode)


# ---- running attnviz -----------------------------------------------------------------------------

def run(*args):
    return subprocess.run([attnviz, *args], capture_output=True, text=True)


def close(name, ours, theirs, rel=1e-4):
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    if ours.shape != theirs.shape:
        fail(f"{name}: shape {theirs.shape}, the reference has {ours.shape}")
        return
    err = np.abs(ours - theirs).max() / max(np.abs(ours).max(), 1e-30)
    if not err <= rel:
        fail(f"{name}: largest difference {err:.3g} of the largest value (tolerance {rel})")


def forward_json(name, ids):
    """attnviz --forward's JSON for fixture `name` on `ids`; None after a failure, said."""
    r = run("--forward", os.path.join(workdir, name), "--sequence", " ".join(map(str, ids)))
    if r.returncode != 0:
        fail(f"{name}: --forward exited {r.returncode}: {r.stderr.strip()}")
        return None
    return json.loads(r.stdout)


def check_forward(name, ids):
    out = forward_json(name, ids)
    if out is None:
        return
    logits, att = reference(os.path.join(workdir, name), ids)
    key = "hidden" if "hidden" in out else "logits"
    close(f"{name} {key}", logits, out[key])
    close(f"{name} attention", att, out["attention"])
    if out["ids"] != list(ids):
        fail(f"{name}: ids {out['ids']}, asked for {list(ids)}")


def check_generate(name, prompt, count):
    """Greedy decoding with the KV cache equals a full recompute at every step."""
    d = os.path.join(workdir, name)
    r = run("--generate", d, "--sequence", " ".join(map(str, prompt)), "--tokens", str(count))
    if r.returncode != 0:
        return fail(f"{name}: --generate exited {r.returncode}: {r.stderr.strip()}")
    made = json.loads(r.stdout)["ids"]
    eos = json.load(open(os.path.join(d, "config.json"))).get("eos_token_id")
    eos = set(eos if isinstance(eos, list) else [] if eos is None else [eos])
    ids = list(prompt)
    for step in range(count):
        logits, _ = reference(d, ids)
        top = np.sort(logits[-1])[::-1]
        if top[0] - top[1] < 1e-4:
            return  # a near tie: float32 may fairly pick either; the steps so far agreed
        ids.append(int(np.argmax(logits[-1])))
        if ids[-1] in eos:
            break  # transformers' generate stops after an end-of-text id, and keeps it
    if made != ids[len(prompt):]:
        fail(f"{name}: --generate gave {made}, a full recompute at each step gives {ids[len(prompt):]}")


def check_generate_eos(name, prompt):
    """With an end-of-text id on the greedy path, --generate stops after it, as transformers' generate does."""
    d = os.path.join(workdir, name)
    ids = list(prompt)
    for _ in range(6):
        ids.append(int(np.argmax(reference(d, ids)[0][-1])))
    made = ids[len(prompt):]
    k = next((i for i in range(1, len(made)) if made[i] not in made[:i]), None)
    if k is None:
        return fail(f"{name}: the greedy path {made} repeats one id; pick another prompt for the end-of-text check")
    e = os.path.join(workdir, name + "_eos")
    shutil.copytree(d, e, dirs_exist_ok=True)  # a rerun in the same build finds it there
    config = json.load(open(os.path.join(e, "config.json")))
    config["eos_token_id"] = [made[k]]
    json.dump(config, open(os.path.join(e, "config.json"), "w"))
    r = run("--generate", e, "--sequence", " ".join(map(str, prompt)), "--tokens", "6")
    got = json.loads(r.stdout)["ids"] if r.returncode == 0 else r.stderr.strip()
    if got != made[:k + 1]:
        fail(f"{name}: --generate with end of text {made[k]} gave {got}, the reference stops at {made[:k + 1]}")


def check_export(name, ids):
    d = os.path.join(workdir, name)
    path = os.path.join(workdir, name + "-att.safetensors")
    r = run("--export-attention", d, "--sequence", " ".join(map(str, ids)), "--out", path)
    if r.returncode != 0:
        return fail(f"{name}: --export-attention exited {r.returncode}: {r.stderr.strip()}")
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    tokens = json.loads(header["__metadata__"]["tokens"])
    if len(tokens) != len(ids):
        fail(f"{name}: the export names {len(tokens)} tokens for {len(ids)} ids")
    close(f"{name} exported attention", reference(d, ids)[1], read_safetensors(path)["attentions"])


# ---- mixtures of experts -------------------------------------------------------------------------

def moe_reference(name, ids, knocked=()):
    """logits and routing [(layer, probabilities, chosen, weights)] of a Qwen3 MoE fixture."""
    d = os.path.join(workdir, name)
    routing = []
    logits, _ = llama_forward(json.load(open(os.path.join(d, "config.json"))), read_weights(d), list(ids), knocked=knocked, routing=routing)
    return logits, routing


def check_routing(label, routing, experts):
    """--forward's `experts` against the reference's routing: the layers and ids from 1, the weights;
    a position whose k-th and (k+1)-th probabilities nearly tie may fairly choose either."""
    if [e["layer"] for e in experts] != [layer + 1 for layer, *_ in routing]:
        return fail(f"{label}: experts of layers {[e['layer'] for e in experts]}, the reference routes layers {[r[0] + 1 for r in routing]}")
    for e, (layer, probs, chosen, weights) in zip(experts, routing):
        ranked = np.sort(probs, -1)[:, ::-1]
        k = chosen.shape[1]
        clear = ranked[:, k - 1] - ranked[:, k] > 1e-5 if k < probs.shape[1] else np.ones(len(probs), bool)
        if not clear.any():
            fail(f"{label}: every position of layer {layer + 1} nearly ties; pick other ids")
        ids = np.array(e["ids"])
        if ids.shape != chosen.shape or not np.array_equal(ids[clear], chosen[clear] + 1):
            fail(f"{label}: layer {layer + 1} chose {e['ids']}, the reference {(chosen + 1).tolist()}")
            continue
        close(f"{label} layer {layer + 1} weights", weights[clear], np.array(e["weights"])[clear])


def check_moe_forward(name, ids):
    """--forward's logits and `experts` against the reference."""
    out = forward_json(name, ids)
    if out is None:
        return
    logits, routing = moe_reference(name, ids)
    close(f"{name} logits", logits, out["logits"])
    check_routing(name, routing, out.get("experts", []))


def check_gpt_oss(name, ids):
    """--forward on a gpt-oss fixture past its window: logits, attention, each query's sink share and the
    routing against the reference; the sinks, the window and the SwiGLU's clamp must each bite."""
    d = os.path.join(workdir, name)
    r = run("--forward", d, "--sequence", " ".join(map(str, ids)))
    if r.returncode != 0:
        return fail(f"{name}: --forward exited {r.returncode}: {r.stderr.strip()}")
    out = json.loads(r.stdout)
    c = json.load(open(os.path.join(d, "config.json")))
    routing, sinks, clamped = [], [], []
    logits, att = llama_forward(c, read_weights(d), list(ids), routing=routing, sinks=sinks, clamped=clamped)
    close(f"{name} logits", logits, out["logits"])
    close(f"{name} attention", att, out["attention"])
    close(f"{name} sink shares", np.array(sinks), np.array(out.get("sink", [])))
    check_routing(name, routing, out.get("experts", []))
    if np.array(sinks).max() < 0.05:
        fail(f"{name}: the sinks take at most {np.array(sinks).max():.3g} of a row; the fixture does not test them")
    if sum(clamped) == 0:
        fail(f"{name}: no expert value passes swiglu_limit; the fixture does not test the clamp")
    full = np.asarray(out["attention"])[1, :, -1, :len(ids) - c["sliding_window"]]
    if np.abs(full).max() == 0:
        fail(f"{name}: layer 2 (full attention) gives no weight past the window; the window does not bite")


def check_ablate_expert(name, ids):
    """--ablate-expert L.E (from 1) of an expert the first position chose in the last layer: the
    reference with it dropped, and not the intact logits."""
    d = os.path.join(workdir, name)
    intact, routing = moe_reference(name, ids)
    layer, _, chosen, _ = routing[-1]
    knocked = [(layer, int(chosen[0, 0]))]
    r = run("--forward", d, "--sequence", " ".join(map(str, ids)), "--ablate-expert", f"{layer + 1}.{knocked[0][1] + 1}")
    if r.returncode != 0:
        return fail(f"{name}: --ablate-expert exited {r.returncode}: {r.stderr.strip()}")
    out = json.loads(r.stdout)
    logits, routing = moe_reference(name, ids, knocked)
    close(f"{name} --ablate-expert logits", logits, out["logits"])
    check_routing(f"{name} --ablate-expert", routing, out["experts"])
    if np.abs(np.asarray(out["logits"]) - intact).max() < 1e-3:
        fail(f"{name}: --ablate-expert {layer + 1}.{knocked[0][1] + 1} left the logits as they were")


def prompt_loss(logits, ids):
    """The mean next-token cross-entropy over the positions that have a next token."""
    z = logits[:-1] - logits[:-1].max(-1, keepdims=True)
    return float((np.log(np.exp(z).sum(-1)) - z[np.arange(len(ids) - 1), ids[1:]]).mean())


def check_expert_importance(name, ids):
    r = run("--expert-importance", os.path.join(workdir, name), "--sequence", " ".join(map(str, ids)))
    if r.returncode != 0:
        return fail(f"{name}: --expert-importance exited {r.returncode}: {r.stderr.strip()}")
    rows = json.loads(r.stdout)
    intact, routing = moe_reference(name, ids)
    base = prompt_loss(intact, ids)
    want = [(layer + 1, e + 1, prompt_loss(moe_reference(name, ids, [(layer, e)])[0], ids) - base)
            for layer, probs, _, _ in routing for e in range(probs.shape[1])]
    if [(x["layer"], x["expert"]) for x in rows] != [(l, e) for l, e, _ in want]:
        return fail(f"{name}: --expert-importance rows {[(x['layer'], x['expert']) for x in rows]}")
    close(f"{name} --expert-importance", [d for _, _, d in want], [x["delta_loss"] for x in rows], rel=1e-3)


# ---- bad input -----------------------------------------------------------------------------------

def copy_of(name, new):
    dst = os.path.join(workdir, "bad", new)
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.join(workdir, name), dst)
    return dst


def edit_json(path, change):
    value = json.load(open(path))
    change(value)
    json.dump(value, open(path, "w"))


def refusal_problems(what, r, names):
    """What keeps the finished run r from being a refusal: exit 2, nothing on stdout, one line on
    stderr that names each of `names`."""
    lines = r.stderr.strip().split("\n")
    if r.returncode != 2 or len(lines) != 1 or r.stdout:
        return [f"{what}: exit {r.returncode}, stderr {r.stderr!r} (want exit 2 and one line)"]
    return [f"{what}: the message does not name {n!r}: {lines[0]}" for n in names if n not in lines[0]]


def refused(what, d, names, extra=("--sequence", "1 2 3")):
    for problem in refusal_problems(what, run("--forward", d, *extra), names):
        fail(problem)


def check_bad_inputs():
    d = copy_of("gpt2", "no_config")
    os.remove(os.path.join(d, "config.json"))
    refused("no config.json", d, ["config.json"])

    d = copy_of("gpt2", "unknown_arch")
    edit_json(os.path.join(d, "config.json"), lambda c: c.update(architectures=["MambaForCausalLM"]))
    refused("an unknown architecture", d, ["config.json", "MambaForCausalLM", "GPT2LMHeadModel", "LlamaForCausalLM", "BertModel"])

    d = copy_of("gpt2", "missing_tensor")
    w = read_safetensors(os.path.join(d, "model.safetensors"))
    del w["h.1.mlp.c_fc.weight"]
    rewrite(d, w, "F32")
    refused("a missing tensor", d, ["model.safetensors", "h.1.mlp.c_fc.weight"])

    d = copy_of("gpt2", "wrong_shape")
    w = read_safetensors(os.path.join(d, "model.safetensors"))
    w["h.0.attn.c_proj.weight"] = w["h.0.attn.c_proj.weight"][:, :8]
    rewrite(d, w, "F32")
    refused("a wrong shape", d, ["model.safetensors", "h.0.attn.c_proj.weight"])

    d = copy_of("bert", "bad_dtype")
    patch_dtype(os.path.join(d, "model.safetensors"), "bert.embeddings.position_embeddings.weight", "I32")
    refused("an unsupported dtype", d, ["model.safetensors", "bert.embeddings.position_embeddings.weight"])

    d = copy_of("qwen2", "truncated")
    path = os.path.join(d, "model.safetensors")
    raw = open(path, "rb").read()
    open(path, "wb").write(raw[:len(raw) - 100])
    refused("a truncated safetensors file", d, ["model.safetensors", "truncated"])

    d = copy_of("llama_sharded", "missing_shard")
    os.remove(os.path.join(d, "model-00002-of-00002.safetensors"))
    refused("a shard index naming a missing file", d, ["model.safetensors.index.json", "model-00002-of-00002.safetensors"])

    d = copy_of("gpt2", "bad_tokenizer")
    open(os.path.join(d, "tokenizer.json"), "w").write('{"model": {"type": "Unigram", "vocab": []}}')
    refused("a tokenizer.json of a kind not supported", d, ["tokenizer.json", "Unigram"], ("--text", "hello"))
    open(os.path.join(d, "tokenizer.json"), "w").write('{"model": ')
    refused("an invalid tokenizer.json", d, ["tokenizer.json"], ("--text", "hello"))

    d = copy_of("olmo3", "short_layer_types")
    edit_json(os.path.join(d, "config.json"), lambda c: c.update(layer_types=["sliding_attention"] * 3))
    refused("layer_types of the wrong length", d, ["config.json", "layer_types", "4"])
    d = copy_of("smollm3", "short_no_rope_layers")
    edit_json(os.path.join(d, "config.json"), lambda c: c.update(no_rope_layers=[1, 0]))
    refused("no_rope_layers of the wrong length", d, ["config.json", "no_rope_layers", "4"])
    d = copy_of("qwen3_yarn", "yarn_without_factor")
    edit_json(os.path.join(d, "config.json"), lambda c: c["rope_scaling"].pop("factor"))
    refused("YaRN without a factor", d, ["config.json", "rope_scaling", "factor"])

    d = os.path.join(workdir, "gpt2")
    refused("invalid UTF-8", d, ["UTF-8", "byte 2"], ("--text", b"ab\xffc"))
    refused("a text longer than the context", d, [d, "32"], ("--text", "a" + " a" * 32))
    refused("a sequence longer than the context", d, ["32"], ("--sequence", " ".join(["5"] * 33)))
    r = run("--generate", d, "--sequence", " ".join(["5"] * 30), "--tokens", "2")
    if r.returncode != 0:
        fail(f"--generate up to the context's end: exit {r.returncode}: {r.stderr.strip()}")
    check_bad_moe()
    check_bad_gpt_oss()
    r = run("--generate", os.path.join(workdir, "bert"), "--sequence", "2 4 3", "--tokens", "2")
    if r.returncode != 2 or "BertForMaskedLM" not in r.stderr:
        fail(f"--generate on BERT: exit {r.returncode}, {r.stderr!r}")


def refused_after(fixture, name, what, edit, expected):
    """`fixture` copied as `name`, its tensors changed by edit(w) and written back: attnviz must refuse
    it (`what`) in one line naming model.safetensors and each of `expected`."""
    d = copy_of(fixture, name)
    w = read_safetensors(os.path.join(d, "model.safetensors"))
    edit(w)
    rewrite(d, w, "F32")
    refused(what, d, ["model.safetensors"] + expected)


def narrowed(w, name):
    """w's tensor `name` cut to its first 16 columns: a router of the wrong shape."""
    w[name] = w[name][:, :16]


def check_bad_moe():
    refused_after("qwen3_moe_unnormed", "missing_expert", "a missing expert tensor",
                  lambda w: w.pop("model.layers.1.mlp.experts.3.up_proj.weight"), ["model.layers.1.mlp.experts.3.up_proj.weight"])

    d = copy_of("qwen3_moe_unnormed", "more_experts")
    edit_json(os.path.join(d, "config.json"), lambda c: c.update(num_experts=9))
    refused("num_experts past the file's experts", d, ["model.safetensors", "model.layers.0.mlp.gate.weight", "(9, 32)"])

    d = copy_of("qwen3_moe_unnormed", "fewer_experts")
    w = read_safetensors(os.path.join(d, "model.safetensors"))
    w = {n: (a[:7] if n.endswith("mlp.gate.weight") else a) for n, a in w.items()}
    rewrite(d, w, "F32")
    edit_json(os.path.join(d, "config.json"), lambda c: c.update(num_experts=7))
    refused("an expert past num_experts", d, ["model.safetensors", "model.layers.0.mlp.experts.7.gate_proj.weight", "num_experts"])

    refused_after("qwen3_moe_unnormed", "router_shape", "a router of the wrong shape",
                  lambda w: narrowed(w, "model.layers.1.mlp.gate.weight"), ["model.layers.1.mlp.gate.weight", "(8, 16)"])

    r = run("--forward", os.path.join(workdir, "qwen3_moe"), "--sequence", "1 2 3", "--ablate-expert", "1.2")
    if r.returncode != 2 or "layer 1" not in r.stderr or "dense" not in r.stderr:
        fail(f"--ablate-expert on qwen3_moe's dense layer 1: exit {r.returncode}, {r.stderr!r}")
    r = run("--forward", os.path.join(workdir, "qwen3_moe"), "--sequence", "1 2 3", "--ablate-expert", "2.9")
    if r.returncode != 2 or "8 experts per layer" not in r.stderr:
        fail(f"--ablate-expert past the experts: exit {r.returncode}, {r.stderr!r}")


def check_bad_gpt_oss():
    """gpt-oss's bad input: a missing expert tensor (dequantized and MXFP4), an expert count the file
    contradicts, a router of the wrong shape, layer_types of the wrong length."""
    refused_after("gpt_oss", "gpt_oss_missing_experts", "a missing expert tensor",
                  lambda w: w.pop("model.layers.1.mlp.experts.down_proj"), ["model.layers.1.mlp.experts.down_proj"])
    refused_after("gpt_oss_mxfp4", "gpt_oss_missing_scales", "missing MXFP4 scales",
                  lambda w: w.pop("model.layers.2.mlp.experts.gate_up_proj_scales"), ["model.layers.2.mlp.experts.gate_up_proj_scales"])

    d = copy_of("gpt_oss", "gpt_oss_more_experts")
    edit_json(os.path.join(d, "config.json"), lambda c: c.update(num_local_experts=9))
    refused("num_local_experts past the file's experts", d, ["model.safetensors", "model.layers.0.mlp.router.weight", "(9, 32)"])

    refused_after("gpt_oss", "gpt_oss_router_shape", "a router of the wrong shape",
                  lambda w: narrowed(w, "model.layers.1.mlp.router.weight"), ["model.layers.1.mlp.router.weight", "(8, 16)"])

    d = copy_of("gpt_oss", "gpt_oss_layer_types")
    edit_json(os.path.join(d, "config.json"), lambda c: c.update(layer_types=c["layer_types"][:3]))
    refused("layer_types of the wrong length", d, ["config.json", "layer_types"])


def rewrite(d, w, dtype):
    sys.path.insert(0, os.path.join(here, "fixtures"))
    import make_checkpoints
    make_checkpoints.write_safetensors(os.path.join(d, "model.safetensors"),
                                       {k: v if v.dtype == np.uint8 else v.astype(np.float32) for k, v in w.items()}, dtype)


def patch_dtype(path, name, dtype):
    """Relabels one F32 tensor as a 4-byte dtype attnviz does not run (the header keeps its length)."""
    raw = bytearray(open(path, "rb").read())
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    header[name]["dtype"] = dtype
    text = json.dumps(header).encode()
    text += b" " * (n - len(text))
    open(path, "wb").write(bytes(raw[:8]) + text + bytes(raw[8 + n:]))


def main():
    subprocess.run(["/usr/bin/python3", os.path.join(here, "fixtures", "make_checkpoints.py"), workdir], check=True)
    rng = np.random.default_rng(5)
    for name in ("gpt2", "gpt2_prefixed", "llama_gqa", "qwen2", "llama_sharded", "mistral", "bert", "bert_base", "gemma2",
                 "gemma3_text", "gemma3", "qwen3", "qwen3_sliding", "phi3", "phi4_mini", "llama32", "smollm2", "qwen25",
                 "tinyllama", "qwen3_moe", "qwen3_moe_unnormed"):
        config = json.load(open(os.path.join(workdir, name, "config.json")))
        vocab = config.get("text_config", config)["vocab_size"]
        check_forward(name, rng.integers(0, vocab, 7).tolist())
        if not name.startswith("bert"):
            check_generate(name, rng.integers(0, vocab, 4).tolist(), 6)
    check_forward("gpt2", [5])
    for name in ("gemma2", "gemma3_text", "gemma3"):  # sliding windows of 3 on 20 positions
        check_forward(name, rng.integers(0, 300, 20).tolist())
    for name in ("qwen3_sliding", "phi3"):  # 12 positions, past their windows of 3 and 4
        vocab = json.load(open(os.path.join(workdir, name, "config.json")))["vocab_size"]
        check_forward(name, rng.integers(0, vocab, 12).tolist())
    check_generate_eos("llama_gqa", [10, 20, 30, 40])
    for name in ("qwen3_yarn", "qwen3_yarn_exact", "smollm3", "olmo2", "olmo3"):  # 12 positions: past OLMo 3's window of 3
        vocab = json.load(open(os.path.join(workdir, name, "config.json")))["vocab_size"]
        check_forward(name, rng.integers(0, vocab, 12).tolist())
        check_generate(name, rng.integers(0, vocab, 4).tolist(), 6)
    for name in ("qwen3_moe", "qwen3_moe_unnormed"):
        vocab = json.load(open(os.path.join(workdir, name, "config.json")))["vocab_size"]
        check_moe_forward(name, rng.integers(0, vocab, 9).tolist())
        check_ablate_expert(name, rng.integers(0, vocab, 6).tolist())
        if name == "qwen3_moe_unnormed":
            check_expert_importance(name, rng.integers(0, vocab, 5).tolist())
    for name in ("gpt_oss", "gpt_oss_mxfp4"):  # 12 positions, past the window of 4
        vocab = json.load(open(os.path.join(workdir, name, "config.json")))["vocab_size"]
        check_gpt_oss(name, rng.integers(0, vocab, 12).tolist())
        check_generate(name, rng.integers(0, vocab, 4).tolist(), 6)
        check_ablate_expert(name, rng.integers(0, vocab, 6).tolist())
    check_expert_importance("gpt_oss_mxfp4", rng.integers(0, vocab, 5).tolist())
    r = run("--forward", os.path.join(workdir, "gpt2"), "--text", "Hello world")
    if r.returncode != 0 or json.loads(r.stdout)["ids"] != [15496, 995]:  # GPT-2's own ids for the text
        fail(f"--forward --text through GPT-2's tokenizer: exit {r.returncode}, {r.stdout[:80]!r} {r.stderr!r}")
    check_export("llama_gqa", rng.integers(0, 300, 5).tolist())
    check_bad_inputs()
    if failures:
        sys.exit(f"model_numpy_test: {len(failures)} failures")
    print("model_numpy_test: every fixture matches the NumPy reference; generation and bad inputs as expected")


if __name__ == "__main__":
    main()
