#!/usr/bin/python3
"""Linear attention against a NumPy reference: the qwen3_5 and qwen3_next fixtures of
tests/fixtures/make_checkpoints.py (three Gated DeltaNet layers and one gated full-attention layer;
Qwen3-Next's with fused projections and mixtures with a shared expert) through `attnviz --forward`,
and the bad inputs of a hybrid model.

The reference is written from transformers' modeling_qwen3_5.py and modeling_qwen3_next.py in float64, reading the fixtures
with model_numpy_test.py's reader, and shares no code with attnviz: the gated delta rule one position at a time
(torch_recurrent_gated_delta_rule) and, separately, by chunks through the UT system
(torch_chunk_gated_delta_rule). Each linear head's matrix M is worked out here in the closed form
    M = ((Q Kᵀ) ⊙ Γ, s ≤ t) · (I + diag(β) ((K Kᵀ) ⊙ Γ, s < t))⁻¹ · diag(β),   Γ[t, s] = exp(Σ_{s<r≤t} g_r)
(attnviz carries the state's columns through the recurrence instead), and M · v must equal the rule's
output for every head; an M with a wrong β or a decay applied once too often must fail that check.
Then, on the qwen3_5 fixture: `--activations L` of every layer against the reference's q, k, v, β and g;
the linear heads' previous-token, duplicate and induction scores on M; a linear head knocked out
(`--ablate`, its output zeroed before out_proj) and every head's importance; the logit lens through
every layer, each head's direct attribution and head patching, all against this reference.
The same for llama.cpp's files (make_gguf.py's qwen35, qwen35moe and qwen3next of those fixtures) against
a reference written from llama.cpp's graph, with their bad inputs; a multimodal Qwen3.5 directory's
text model; --generate on a hybrid's cache against greedy decoding by whole forwards.
usage: linear_numpy_test.py ATTNVIZ WORKDIR"""
import json
import os
import shutil
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_numpy import close, fail, failures, forward_checked, run, workdir  # noqa: E402  what the NumPy tests of the command line share
from model_numpy_test import read_safetensors, refusal_problems  # noqa: E402  the references' own reader, float64; what a refusal must be

here = os.path.dirname(os.path.abspath(__file__))


def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name, a in tensors.items():
        data = np.asarray(a, "<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(np.shape(a)), "data_offsets": [offset, offset + len(data)]}
        offset += len(data)
        blobs.append(data)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    open(path, "wb").write(len(h).to_bytes(8, "little") + h + b"".join(blobs))


# ---- the reference -------------------------------------------------------------------------------

def silu(x):
    return x / (1 + np.exp(-x))


def rms_norm_plus_one(x, w, eps):  # Qwen3_5RMSNorm: x / √(mean(x²) + eps) · (1 + w)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * (1 + w)


def l2_norm(x):
    return x / np.sqrt((x * x).sum(-1, keepdims=True) + 1e-6)


def delta_inputs(c, w, p, a):
    """q, k (t, Hv, dk) repeated to the value heads, v and z (t, Hv, dv), β and g (t, Hv)."""
    t = a.shape[0]
    Hk, Hv, dk, dv = c["linear_num_key_heads"], c["linear_num_value_heads"], c["linear_key_head_dim"], c["linear_value_head_dim"]
    if p + "in_proj_qkvz.weight" in w:  # Qwen3-Next: fix_query_key_value_ordering's groups per key head
        n = Hv // Hk
        qkvz = (a @ w[p + "in_proj_qkvz.weight"].T).reshape(t, Hk, 2 * dk + 2 * n * dv)
        ba = (a @ w[p + "in_proj_ba.weight"].T).reshape(t, Hk, 2 * n)
        q, k = qkvz[..., :dk].reshape(t, -1), qkvz[..., dk:2 * dk].reshape(t, -1)
        v, z = qkvz[..., 2 * dk:2 * dk + n * dv].reshape(t, -1), qkvz[..., 2 * dk + n * dv:].reshape(t, -1)
        b, a_ = ba[..., :n].reshape(t, Hv), ba[..., n:].reshape(t, Hv)
        qkv = np.hstack([q, k, v])
    else:
        qkv, z = a @ w[p + "in_proj_qkv.weight"].T, a @ w[p + "in_proj_z.weight"].T
        b, a_ = a @ w[p + "in_proj_b.weight"].T, a @ w[p + "in_proj_a.weight"].T
    kernel = w[p + "conv1d.weight"][:, 0, :]  # (C, K)
    K = kernel.shape[1]
    padded = np.vstack([np.zeros((K - 1, qkv.shape[1])), qkv])
    conv = silu(sum(kernel[:, j] * padded[j:j + t] for j in range(K)))
    q, k, v = conv[:, :Hk * dk], conv[:, Hk * dk:2 * Hk * dk], conv[:, 2 * Hk * dk:]
    q = np.repeat(l2_norm(q.reshape(t, Hk, dk)), Hv // Hk, axis=1) / np.sqrt(dk)
    k = np.repeat(l2_norm(k.reshape(t, Hk, dk)), Hv // Hk, axis=1)
    beta = 1 / (1 + np.exp(-b))
    g = -np.exp(w[p + "A_log"]) * np.log1p(np.exp(a_ + w[p + "dt_bias"]))
    return q, k, v.reshape(t, Hv, dv), z.reshape(t, Hv, dv), beta, g


def recurrent(q, k, v, beta, g):
    t, H, dk = q.shape
    o = np.zeros(v.shape)
    for h in range(H):
        S = np.zeros((dk, v.shape[2]))
        for i in range(t):
            S = S * np.exp(g[i, h])
            S = S + np.outer(k[i, h], beta[i, h] * (v[i, h] - k[i, h] @ S))
            o[i, h] = q[i, h] @ S
    return o


def chunked(q, k, v, beta, g, size):
    """torch_chunk_gated_delta_rule: within each chunk the UT system, across chunks the state."""
    t, H, dk = q.shape
    o = np.zeros(v.shape)
    for h in range(H):
        S = np.zeros((dk, v.shape[2]))
        for c0 in range(0, t, size):
            sl = slice(c0, min(t, c0 + size))
            qc, kc, vc, bc = q[sl, h], k[sl, h], v[sl, h], beta[sl, h]
            cum = np.cumsum(g[sl, h])
            decay = np.tril(np.exp(cum[:, None] - cum[None, :]))
            system = np.eye(len(cum)) + np.tril((bc[:, None] * kc) @ kc.T * decay, -1)
            new_values = np.linalg.solve(system, bc[:, None] * vc)
            k_cumdecay = np.linalg.solve(system, (bc * np.exp(cum))[:, None] * kc)
            v_new = new_values - k_cumdecay @ S
            o[sl, h] = (np.exp(cum)[:, None] * qc) @ S + ((qc @ kc.T) * decay) @ v_new
            S = S * np.exp(cum[-1]) + (np.exp(cum[-1] - cum)[:, None] * kc).T @ v_new
    return o


def matrix(q, k, beta, g, extra_decay=False):
    """Each head's M (H, t, t) in the closed form; extra_decay sabotages it (one more step's decay)."""
    t, H, _ = q.shape
    M = np.zeros((H, t, t))
    for h in range(H):
        G = np.cumsum(g[:, h])
        gamma = np.tril(np.exp(G[:, None] - G[None, :] + (g[:, h][:, None] if extra_decay else 0)))
        read = (q[:, h] @ k[:, h].T) * gamma
        erase = np.eye(t) + beta[:, h][:, None] * np.tril((k[:, h] @ k[:, h].T) * gamma, -1)
        M[h] = read @ np.linalg.inv(erase) @ np.diag(beta[:, h])
    return M


def causal_softmax(q, k, v):
    """Causal softmax attention of q (t, H, dh) over k and v (t, KV, dh), query heads sharing each
    key head in order: the maps (H, t, t) and the heads' contexts side by side (t, H · dh)."""
    t, H, dh = q.shape
    KV = k.shape[1]
    maps, out = np.zeros((H, t, t)), np.zeros((t, H * dh))
    for h in range(H):
        s = q[:, h] @ k[:, h // (H // KV)].T / np.sqrt(dh) + np.triu(np.full((t, t), -np.inf), 1)
        e = np.exp(s - s.max(-1, keepdims=True))
        maps[h] = e / e.sum(-1, keepdims=True)
        out[:, h * dh:(h + 1) * dh] = maps[h] @ v[:, h // (H // KV)]
    return maps, out


def gated_attention(c, w, p, a):
    """Qwen3_5Attention: q and its gate from q_proj, q/k norms of 1 + w, partial rotary, the context
    times sigmoid(gate) before o_proj. Returns each head's gated context (t, H, dh), what o_proj takes,
    and the maps (H, t, t)."""
    t = a.shape[0]
    H, KV, dh = c["num_attention_heads"], c["num_key_value_heads"], c["head_dim"]
    eps = c["rms_norm_eps"]
    qg = (a @ w[p + "q_proj.weight"].T).reshape(t, H, 2 * dh)
    q, gate = qg[..., :dh], qg[..., dh:].reshape(t, H * dh)
    q = rms_norm_plus_one(q, w[p + "q_norm.weight"], eps)
    k = rms_norm_plus_one((a @ w[p + "k_proj.weight"].T).reshape(t, KV, dh), w[p + "k_norm.weight"], eps)
    v = (a @ w[p + "v_proj.weight"].T).reshape(t, KV, dh)
    rope = c.get("rope_parameters", c)  # Qwen3-Next keeps them on the top level
    dim = int(dh * rope["partial_rotary_factor"])
    inv = 1.0 / rope["rope_theta"] ** (np.arange(0, dim, 2) / dim)
    angle = np.arange(t)[:, None] * inv[None, :]
    cos, sin = np.cos(np.hstack([angle, angle]))[:, None, :], np.sin(np.hstack([angle, angle]))[:, None, :]

    def rotate(x):
        r, rest = x[..., :dim], x[..., dim:]
        half = np.concatenate([-r[..., dim // 2:], r[..., :dim // 2]], -1)
        return np.concatenate([r * cos + half * sin, rest], -1)

    q, k = rotate(q), rotate(k)
    gated_attention.qkv = (q, k, v)  # what --activations gives of a full layer
    maps, out = causal_softmax(q, k, v)
    return (out / (1 + np.exp(-gate))).reshape(t, H, dh), maps


def mlp(w, p, a):
    return (silu(a @ w[p + "gate_proj.weight"].T) * (a @ w[p + "up_proj.weight"].T)) @ w[p + "down_proj.weight"].T


def feed_forward(c, w, p, a):
    """The dense MLP, or Qwen3NextSparseMoeBlock: the router's softmax, its top k (renormalised with
    norm_topk_prob), each chosen expert times its weight, plus the shared expert times
    sigmoid(a · shared_expert_gateᵀ)."""
    if p + "mlp.gate.weight" not in w:
        return mlp(w, p + "mlp.", a)
    logits = a @ w[p + "mlp.gate.weight"].T
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    out = np.zeros_like(a)
    for i in range(a.shape[0]):
        chosen = np.argsort(-probs[i], kind="stable")[:c["num_experts_per_tok"]]
        weights = probs[i, chosen] / (probs[i, chosen].sum() if c["norm_topk_prob"] else 1)
        for e, wt in zip(chosen, weights):
            out[i] += wt * mlp(w, p + f"mlp.experts.{e}.", a[i:i + 1])[0]
    gate = 1 / (1 + np.exp(-(a @ w[p + "mlp.shared_expert_gate.weight"].T)))
    return out + gate * mlp(w, p + "mlp.shared_expert.", a)


def forward(c, w, ids, rule, hook=None, record=None):
    """Logits (t, V), the maps (L, H, t, t) and each layer's activations: a linear layer's (q, k, v, β,
    g, o) of the rule's output, a full layer's (q, k, v); `rule(q, k, v, β, g)` runs the delta rule.
    `hook(l, heads)` may replace layer l's head outputs before its output projection (t, heads, d): a
    linear layer's after the gated norm, a full layer's after the output gate. `record`, a dict, gets
    "writes": each layer's heads' writes to the stream (L, H, t, D), and "streams": the stream after
    each layer (L, t, D)."""
    eps = c["rms_norm_eps"]
    x = w["model.embed_tokens.weight"][ids]
    maps, linear, writes, streams = [], {}, [], []
    for l, kind in enumerate(c["layer_types"]):
        p = f"model.layers.{l}."
        a = rms_norm_plus_one(x, w[p + "input_layernorm.weight"], eps)
        if kind == "linear_attention":
            q, k, v, z, beta, g = delta_inputs(c, w, p + "linear_attn.", a)
            o = rule(q, k, v, beta, g)
            linear[l] = (q, k, v, beta, g, o)
            heads = o / np.sqrt((o * o).mean(-1, keepdims=True) + eps) * w[p + "linear_attn.norm.weight"] * silu(z)
            out_proj = w[p + "linear_attn.out_proj.weight"]
            M = matrix(q, k, beta, g)
            maps.append(np.vstack([M, np.zeros((c["num_attention_heads"] - len(M),) + M.shape[1:])]))
        else:
            heads, m = gated_attention(c, w, p + "self_attn.", a)
            linear[l] = gated_attention.qkv
            out_proj = w[p + "self_attn.o_proj.weight"]
            maps.append(m)
        if hook:
            heads = hook(l, heads.copy())
        n, d = heads.shape[1], heads.shape[2]
        writes.append([heads[:, h] @ out_proj[:, h * d:(h + 1) * d].T for h in range(n)])
        x = x + heads.reshape(len(ids), -1) @ out_proj.T
        a = rms_norm_plus_one(x, w[p + "post_attention_layernorm.weight"], eps)
        x = x + feed_forward(c, w, p, a)
        streams.append(x)
    if record is not None:
        record.update(writes=writes, streams=streams)
    return lm_head(c, w, x), np.array(maps), linear


def lm_head(c, w, x):
    x = rms_norm_plus_one(x, w["model.norm.weight"], c["rms_norm_eps"])
    return x @ w.get("lm_head.weight", w["model.embed_tokens.weight"]).T


# ---- llama.cpp's graph, on its GGUF files ----------------------------------------------------------
# models/qwen35.cpp, qwen35moe.cpp, qwen3next.cpp and delta-net-base.cpp, written here from the graph:
# the norms' weights as the file holds them (1 + w), ssm_a as the decay rate, ggml_l2_norm's
# x / max(‖x‖, eps), q scaled by 1/√dk inside the rule, q and k repeated to the value heads by tiling
# (ggml_repeat: value head h reads key head h mod Hk) in qwen35 and qwen35moe and by interleaving in
# qwen3next, ssm_ba split per key head, every layer of the MoE files a mixture whose chosen weights
# are renormalised, plus the shared expert times sigmoid(a · ffn_gate_inp_shexp).

def read_gguf(path):
    """metadata, {name: float64 array (outermost first)} of a GGUF file of F32 and F16 tensors."""
    raw = open(path, "rb").read()
    count, keys = np.frombuffer(raw[8:24], "<u8")  # after the magic and the version
    pos, meta = 24, {}
    scalar = {0: "<u1", 1: "<i1", 2: "<u2", 3: "<i2", 4: "<u4", 5: "<i4", 6: "<f4", 7: "<u1", 10: "<u8", 11: "<i8", 12: "<f8"}

    def value(pos, kind):
        if kind == 8:
            n = int(np.frombuffer(raw[pos:pos + 8], "<u8")[0])
            return raw[pos + 8:pos + 8 + n].decode(), pos + 8 + n
        if kind == 9:
            item, n = int(np.frombuffer(raw[pos:pos + 4], "<u4")[0]), int(np.frombuffer(raw[pos + 4:pos + 12], "<u8")[0])
            pos, out = pos + 12, []
            for _ in range(n):
                v, pos = value(pos, item)
                out.append(v)
            return out, pos
        size = np.dtype(scalar[kind]).itemsize
        return np.frombuffer(raw[pos:pos + size], scalar[kind])[0].item(), pos + size

    for _ in range(int(keys)):
        key, pos = value(pos, 8)
        meta[key], pos = value(pos + 4, int(np.frombuffer(raw[pos:pos + 4], "<u4")[0]))
    table = []
    for _ in range(int(count)):
        name, pos = value(pos, 8)
        dims = int(np.frombuffer(raw[pos:pos + 4], "<u4")[0])
        ne = np.frombuffer(raw[pos + 4:pos + 4 + 8 * dims], "<u8")
        kind, offset = int(np.frombuffer(raw[pos + 4 + 8 * dims:pos + 8 + 8 * dims], "<u4")[0]), int(np.frombuffer(raw[pos + 8 + 8 * dims:pos + 16 + 8 * dims], "<u8")[0])
        table.append((name, tuple(int(n) for n in reversed(ne)), kind, offset))
        pos += 16 + 8 * dims
    start = pos + (-pos % int(meta.get("general.alignment", 32)))
    tensors = {}
    for name, shape, kind, offset in table:
        dtype = {0: "<f4", 1: "<f2"}[kind]
        n = int(np.prod(shape))
        tensors[name] = np.frombuffer(raw[start + offset:start + offset + n * np.dtype(dtype).itemsize], dtype).astype(np.float64).reshape(shape)
    return meta, tensors


def rms(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def ggml_l2_norm(x, eps):
    return x / np.maximum(np.sqrt((x * x).sum(-1, keepdims=True)), eps)


def gguf_linear(meta, T, p, cur, rule):
    arch = meta["general.architecture"]
    key = lambda k: meta[f"{arch}.{k}"]
    eps = key("attention.layer_norm_rms_epsilon")
    Hk, Hv, dk = key("ssm.group_count"), key("ssm.time_step_rank"), key("ssm.state_size")
    dv, per, t = key("ssm.inner_size") // Hv, Hv // Hk, cur.shape[0]
    qkv, z = cur @ T[p + "attn_qkv.weight"].T, cur @ T[p + "attn_gate.weight"].T
    if p + "ssm_ba.weight" in T:
        ba = (cur @ T[p + "ssm_ba.weight"].T).reshape(t, Hk, 2 * per)
        b, a = ba[..., :per].reshape(t, Hv), ba[..., per:].reshape(t, Hv)
    else:
        b, a = cur @ T[p + "ssm_beta.weight"].T, cur @ T[p + "ssm_alpha.weight"].T
    beta = 1 / (1 + np.exp(-b))
    g = np.log1p(np.exp(a + T[p + "ssm_dt.bias"])) * T[p + "ssm_a"]
    kernel = T[p + "ssm_conv1d.weight"]  # (C, K): ggml_ssm_conv's ne {K, C}
    K = kernel.shape[1]
    padded = np.vstack([np.zeros((K - 1, qkv.shape[1])), qkv])
    conv = silu(np.stack([(padded[i:i + K] * kernel.T).sum(0) for i in range(t)]))
    q = ggml_l2_norm(conv[:, :Hk * dk].reshape(t, Hk, dk), eps)
    k = ggml_l2_norm(conv[:, Hk * dk:2 * Hk * dk].reshape(t, Hk, dk), eps)
    v = conv[:, 2 * Hk * dk:].reshape(t, Hv, dv)
    repeat = (lambda x: np.repeat(x, per, axis=1)) if arch == "qwen3next" else (lambda x: np.tile(x, (1, per, 1)))
    q, k = repeat(q) / np.sqrt(dk), repeat(k)
    o = rule(q, k, v, beta, g)
    out = (rms(o, T[p + "ssm_norm.weight"], eps) * silu(z.reshape(t, Hv, dv))).reshape(t, -1) @ T[p + "ssm_out.weight"].T
    return out, (q, k, v, beta, g, o)


def gguf_attention(meta, T, p, cur):
    arch = meta["general.architecture"]
    key = lambda k: meta[f"{arch}.{k}"]
    eps, t = key("attention.layer_norm_rms_epsilon"), cur.shape[0]
    H, KV, dh, n_rot = key("attention.head_count"), key("attention.head_count_kv"), key("attention.key_length"), key("rope.dimension_count")
    qg = (cur @ T[p + "attn_q.weight"].T).reshape(t, H, 2 * dh)
    q, gate = rms(qg[..., :dh], T[p + "attn_q_norm.weight"], eps), qg[..., dh:].reshape(t, -1)
    k = rms((cur @ T[p + "attn_k.weight"].T).reshape(t, KV, dh), T[p + "attn_k_norm.weight"], eps)
    v = (cur @ T[p + "attn_v.weight"].T).reshape(t, KV, dh)
    theta = np.arange(t)[:, None] * key("rope.freq_base") ** (-np.arange(0, n_rot, 2) / n_rot)[None, :]  # NeoX pairs (i, i + n_rot/2)
    cos, sin = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]

    def rope(x):
        x = x.copy()
        a, b = x[..., :n_rot // 2].copy(), x[..., n_rot // 2:n_rot].copy()
        x[..., :n_rot // 2], x[..., n_rot // 2:n_rot] = a * cos - b * sin, a * sin + b * cos
        return x

    q, k = rope(q), rope(k)
    maps, out = causal_softmax(q, k, v)
    return (out / (1 + np.exp(-gate))) @ T[p + "attn_output.weight"].T, maps


def gguf_feed_forward(meta, T, p, cur):
    swiglu = lambda x, gate, up, down: (silu(x @ gate.T) * (x @ up.T)) @ down.T
    if p + "ffn_gate_inp.weight" not in T:
        return swiglu(cur, T[p + "ffn_gate.weight"], T[p + "ffn_up.weight"], T[p + "ffn_down.weight"])
    top_k = meta[meta["general.architecture"] + ".expert_used_count"]
    logits = cur @ T[p + "ffn_gate_inp.weight"].T
    probs = np.exp(logits - logits.max(-1, keepdims=True))
    probs /= probs.sum(-1, keepdims=True)
    out = np.zeros_like(cur)
    for i in range(cur.shape[0]):
        chosen = np.argsort(-probs[i], kind="stable")[:top_k]
        for e in chosen:
            out[i] += probs[i, e] / probs[i, chosen].sum() * swiglu(cur[i:i + 1], T[p + "ffn_gate_exps.weight"][e], T[p + "ffn_up_exps.weight"][e],
                                                                    T[p + "ffn_down_exps.weight"][e])[0]
    shared = swiglu(cur, T[p + "ffn_gate_shexp.weight"], T[p + "ffn_up_shexp.weight"], T[p + "ffn_down_shexp.weight"])
    return out + shared / (1 + np.exp(-(cur @ T[p + "ffn_gate_inp_shexp.weight"].reshape(-1, 1))))


def gguf_forward(path, ids, rule):
    """Logits, maps (L, H, t, t) and each linear layer's (q, k, v, β, g, o), as llama.cpp's graph runs the file."""
    meta, T = read_gguf(path)
    arch = meta["general.architecture"]
    key = lambda k: meta[f"{arch}.{k}"]
    eps, H, every = key("attention.layer_norm_rms_epsilon"), key("attention.head_count"), meta.get(f"{arch}.full_attention_interval", 4)
    x = T["token_embd.weight"][ids]
    maps, linear = [], {}
    for l in range(key("block_count") - meta.get(f"{arch}.nextn_predict_layers", 0)):
        p = f"blk.{l}."
        cur = rms(x, T[p + "attn_norm.weight"], eps)
        if (l + 1) % every != 0:
            out, linear[l] = gguf_linear(meta, T, p, cur, rule)
            q, k, v, beta, g, o = linear[l]
            M = matrix(q, k, beta, g)
            maps.append(np.vstack([M, np.zeros((H - len(M),) + M.shape[1:])])[:H])
        else:
            out, m = gguf_attention(meta, T, p, cur)
            maps.append(m)
        x = x + out
        x = x + gguf_feed_forward(meta, T, p, rms(x, T[p + "post_attention_norm.weight"], eps))
    x = rms(x, T["output_norm.weight"], eps)
    return x @ T.get("output.weight", T["token_embd.weight"]).T, np.array(maps), linear


def make_gguf(checkpoint, kind, name):
    path = os.path.join(workdir, name + ".gguf")
    subprocess.run(["/usr/bin/python3", os.path.join(here, "fixtures", "make_gguf.py"), checkpoint, path, kind], check=True)
    return path


def check_gguf(path, ids, hub=None):
    """attnviz on a GGUF file against llama.cpp's graph here (the recurrent rule, and the chunked), M · v
    on each linear head; where `hub` (the checkpoint it was written from) is given, the same logits as on it."""
    name = os.path.basename(path)
    logits, maps, linear = gguf_forward(path, ids, recurrent)
    chunk_logits = gguf_forward(path, ids, lambda *x: chunked(*x, 4))[0]
    out = forward_checked(name, path, ids, logits, maps, " against llama.cpp's graph (recurrent; M on the linear layers)")[0]
    if out is None:
        return
    close(f"{name} at {len(ids)} positions: logits against llama.cpp's graph (chunks of 4)", out["logits"], chunk_logits)
    ours = np.array(out["attention"])
    for l, (q, k, v, beta, g, o) in linear.items():
        if not m_times_v_is_output(ours[l, :v.shape[1]], v, o):
            fail(f"{name} layer {l + 1}: attnviz's M · v is not llama.cpp's delta rule output")
    if hub:
        h = run("--forward", hub, "--sequence", " ".join(map(str, ids)))
        if h.returncode == 0:
            close(f"{name}: logits against the Hub checkpoint it was converted from", out["logits"], json.loads(h.stdout)["logits"])


def gguf_variant(path, name, at, old, new):
    """A copy of a GGUF file whose bytes `old` at `at` are `new`, of the same length."""
    raw = open(path, "rb").read()
    assert raw[at:at + len(old)] == old
    dst = os.path.join(workdir, name + ".gguf")
    open(dst, "wb").write(raw[:at] + new + raw[at + len(old):])
    return dst


def check_bad_gguf(good):
    """A missing ssm tensor, a conv kernel of the wrong shape, key heads that do not divide the value heads."""
    raw = open(good, "rb").read()
    named = lambda n: len(n).to_bytes(8, "little") + n  # a GGUF string: its length, then its bytes
    at = raw.index(named(b"blk.1.ssm_a"))
    refused("a GGUF file without ssm_a", gguf_variant(good, "no_ssm_a", at, named(b"blk.1.ssm_a"), named(b"blk.1.ssm_x")),
            ["no_ssm_a.gguf", "model.layers.1.linear_attn.A"])
    at = raw.index(named(b"blk.0.ssm_conv1d.weight")) + len(named(b"blk.0.ssm_conv1d.weight")) + 4  # past n_dims: ne0, the kernel
    refused("a GGUF conv kernel of the wrong shape", gguf_variant(good, "conv_kernel", at, (4).to_bytes(8, "little"), (3).to_bytes(8, "little")),
            ["conv_kernel.gguf", "linear_attn.conv1d.weight"])
    at = raw.index(named(b"qwen35.ssm.group_count")) + len(named(b"qwen35.ssm.group_count")) + 4  # past the value's type
    refused("GGUF key heads that do not divide the value heads", gguf_variant(good, "group_count", at, (2).to_bytes(4, "little"), (3).to_bytes(4, "little")),
            ["group_count.gguf", "qwen35.ssm.group_count", "ssm.time_step_rank"])


# ---- the checks ----------------------------------------------------------------------------------

def error(ours, theirs):
    ours, theirs = np.asarray(ours, np.float64), np.asarray(theirs, np.float64)
    if ours.shape != theirs.shape:
        return np.inf
    return np.abs(ours - theirs).max() / max(np.abs(theirs).max(), 1e-30)


def m_times_v_is_output(M, v, o, rel=1e-4):
    """Each head's M (H, t, t) times its values (t, H, dv) equals the rule's output (t, H, dv)."""
    return all(error(M[h] @ v[:, h], o[:, h]) <= rel for h in range(M.shape[0]))


def check_forward(d, ids):
    c, w = json.load(open(os.path.join(d, "config.json"))), read_weights(d)
    logits, maps, linear = forward(c, w, ids, recurrent)
    chunk_logits, _, chunk_linear = forward(c, w, ids, lambda *x: chunked(*x, 4))
    name = os.path.basename(d)
    out = forward_checked(name, d, ids, logits, maps, " against the recurrent reference (M on the linear layers, softmax on the full one)")[0]
    if out is None:
        return
    close(f"{name} at {len(ids)} positions: logits against the chunked reference (chunks of 4)", out["logits"], chunk_logits)
    want = ["linear · no RoPE" if k == "linear_attention" else "full" for k in c["layer_types"]]
    if out.get("layers") != want:
        fail(f"{name}: \"layers\" is {out.get('layers')}, want {want}")
    ours = np.array(out["attention"])
    check_activations(d, ids, c, linear)
    for l, (q, k, v, beta, g, o) in ((l, x) for l, x in linear.items() if len(x) == 6):
        where = f"{name} layer {l + 1}"
        close(f"{where}: chunked against recurrent", chunk_linear[l][5], o, 1e-9)
        if not m_times_v_is_output(matrix(q, k, beta, g), v, o, 1e-9):
            fail(f"{where}: the reference's M · v is not the delta rule's output")
        if not m_times_v_is_output(ours[l, :v.shape[1]], v, o):
            fail(f"{where}: attnviz's M · v is not the delta rule's output")
        if m_times_v_is_output(matrix(q, k, beta * beta, g), v, o, 1e-2):
            fail(f"{where}: an M with β² in place of β passes the M · v check")
        if m_times_v_is_output(matrix(q, k, beta, g, extra_decay=True), v, o, 1e-2):
            fail(f"{where}: an M with one decay too many passes the M · v check")
        if (ours[l] < 0).sum() == 0:
            fail(f"{where}: no negative entry in M; the delta rule's erase should give some")


def check_activations(d, ids, c, layers):
    """--activations L of every layer: a linear layer's q, k (per key head), v, β and g (per value head)
    as the delta rule reads them, a full layer's q, k and v per head after the norms and rotary."""
    name, H, KV = os.path.basename(d), c["num_attention_heads"], c["num_key_value_heads"]
    group = c["linear_num_value_heads"] // c["linear_num_key_heads"]
    for l, x in layers.items():
        r = run("--forward", d, "--sequence", " ".join(map(str, ids)), "--activations", str(l + 1))
        if r.returncode != 0:
            fail(f"{name}: --activations {l + 1} exited {r.returncode}: {r.stderr.strip()}")
            continue
        out, where = json.loads(r.stdout), f"{name} --activations {l + 1}"
        if out["layer"] != l + 1:
            fail(f"{where}: \"layer\" is {out['layer']}")
        if len(x) == 6:
            q, k, v, beta, g, _ = x
            want = {"q": q[:, ::group].transpose(1, 0, 2), "k": k[:, ::group].transpose(1, 0, 2), "v": v.transpose(1, 0, 2),
                    "beta": beta.T, "g": g.T}
        else:
            q, k, v = x
            heads = [h // (H // KV) for h in range(H)]
            want = {"q": q.transpose(1, 0, 2), "k": k[:, heads].transpose(1, 0, 2), "v": v[:, heads].transpose(1, 0, 2)}
            if "beta" in out or "g" in out:
                fail(f"{where}: a full layer gives β or g")
        for key, value in want.items():
            close(f"{where}: {key}", out.get(key), value)
    for bad in ("0", str(len(c["layer_types"]) + 1), "two"):
        r = run("--forward", d, "--sequence", " ".join(map(str, ids)), "--activations", bad)
        lines = r.stderr.strip().split("\n")
        if r.returncode != 2 or len(lines) != 1 or r.stdout or "--activations" not in lines[0]:
            fail(f"{name}: --activations {bad}: exit {r.returncode}, stderr {r.stderr!r} (want exit 2 and one line naming the flag)")


def check_scores(d, ids):
    """--heads on a linear head: its previous-token, duplicate and induction scores are those of M (the
    forward streams M for the scores; nothing is rebuilt)."""
    c, w = json.load(open(os.path.join(d, "config.json"))), read_weights(d)
    _, maps, linear = forward(c, w, ids, recurrent)
    r = run("--heads", d, "--sequence", " ".join(map(str, ids)))
    if r.returncode != 0:
        return fail(f"{os.path.basename(d)}: --heads exited {r.returncode}: {r.stderr.strip()}")
    t = len(ids)
    for row in json.loads(r.stdout):
        l, h = row["layer"] - 1, row["head"] - 1
        if l in linear and len(linear[l]) == 6:
            M = maps[l, h]
            previous = np.mean([M[i, i - 1] for i in range(1, t)])
            duplicate = np.mean([M[i, [j for j in range(i) if ids[j] == ids[i]]].sum() for i in range(t) if ids[i] in ids[:i]])
            induction = np.mean([M[i, [j for j in range(1, i) if ids[j - 1] == ids[i]]].sum() for i in range(t)
                                 if any(ids[j - 1] == ids[i] for j in range(1, i))])
            close(f"{os.path.basename(d)} head {l + 1}.{h + 1}: previous-token, duplicate and induction scores of M",
                  [row["previous"], row["duplicate"], row["induction"]], [previous, duplicate, induction])


def loss(logits, ids):
    """The mean next-token cross-entropy, nats."""
    z = logits[:-1]
    lse = np.log(np.exp(z - z.max(1, keepdims=True)).sum(1)) + z.max(1)
    return float(np.mean(lse - z[np.arange(len(ids) - 1), ids[1:]]))


def zeroed(*heads):
    def hook(l, out):
        for hl, h in heads:
            if hl == l:
                out[:, h] = 0
        return out
    return hook


def output_json(what, *args):
    r = run(*args)
    if r.returncode != 0:
        fail(f"{what}: exit {r.returncode}: {r.stderr.strip()}")
        return None
    return json.loads(r.stdout)


def check_knockouts(d, ids):
    """--ablate of a linear head (its output zeroed before out_proj) and --head-importance of every head."""
    name, seq = os.path.basename(d), " ".join(map(str, ids))
    c, w = json.load(open(os.path.join(d, "config.json"))), read_weights(d)
    out = output_json(f"{name} --ablate 2.3", "--forward", d, "--sequence", seq, "--ablate", "2.3")
    if out is not None:
        close(f"{name} --ablate 2.3: logits against the reference with linear head 2.3 zeroed", out["logits"],
              forward(c, w, ids, recurrent, zeroed((1, 2)))[0])
        if error(out["logits"], forward(c, w, ids, recurrent)[0]) < 1e-3:
            fail(f"{name} --ablate 2.3: the knock-out changed nothing")
    rows = output_json(f"{name} --head-importance", "--head-importance", d, "--sequence", seq)
    base = loss(forward(c, w, ids, recurrent)[0], np.array(ids))
    for row in rows or []:
        l, h = row["layer"] - 1, row["head"] - 1
        want = loss(forward(c, w, ids, recurrent, zeroed((l, h)))[0], np.array(ids)) - base
        if not abs(row["delta_loss"] - want) <= 1e-4 * max(1.0, base):
            fail(f"{name} --head-importance head {l + 1}.{h + 1}: {row['delta_loss']}, the reference gives {want}")


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def check_circuits(d, ids):
    """The logit lens through every layer, each head's direct attribution (linear heads included) and
    head patching, against the reference."""
    name, seq = os.path.basename(d), " ".join(map(str, ids))
    c, w = json.load(open(os.path.join(d, "config.json"))), read_weights(d)
    record = {}
    logits = forward(c, w, ids, recurrent, record=record)[0]
    lens = output_json(f"{name} --logit-lens", "--logit-lens", d, "--sequence", seq, "--top", "3")
    if lens is not None:
        p = np.array([softmax(lm_head(c, w, x)) for x in record["streams"]])  # (L, t, V)
        top = np.argsort(-p, axis=-1, kind="stable")[..., :3]
        close(f"{name} --logit-lens p", lens["p"], np.take_along_axis(p, top, -1))
        if lens["top"] != top.tolist():
            fail(f"{name} --logit-lens: top ids {lens['top']}, the reference's {top.tolist()}")
    position, target, vs = 4, 5, 7
    att = output_json(f"{name} --attribute", "--attribute", d, "--sequence", seq, "--target", f"#{target}", "--vs", f"#{vs}", "--position", str(position))
    if att is not None:
        x = record["streams"][-1][position - 1]
        scale = (1 + w["model.norm.weight"]) / np.sqrt((x * x).mean() + c["rms_norm_eps"])
        u = w.get("lm_head.weight", w["model.embed_tokens.weight"])
        u = u[target] - u[vs]
        want = [[(head[position - 1] * scale) @ u for head in layer] for layer in record["writes"]]
        close(f"{name} --attribute heads (linear ones included)", att["heads"], want)
        close(f"{name} --attribute logit", [att["logit"]], [logits[position - 1, target] - logits[position - 1, vs]])
        terms = [att["embed"], att["bias"], *np.ravel(att["heads"]), *att["mlps"]]
        if not abs(sum(terms) - att["logit"]) <= 1e-6 * sum(map(abs, terms)):
            fail(f"{name} --attribute: the parts sum to {sum(terms)}, the logit is {att['logit']}")


def ids_of(d, text):
    out = output_json(f"{os.path.basename(d)} --tokenize", "--tokenize", d, "--text", text)
    return out["ids"] if out else []


def check_patching(d, clean_text):
    """Each head's recovery when its output comes from the clean run, linear heads included; the
    corrupted prompt is the clean one with "cat" replaced by a word of as many tokens."""
    name = os.path.basename(d)
    c, w = json.load(open(os.path.join(d, "config.json"))), read_weights(d)
    clean = ids_of(d, clean_text)
    words = [clean_text.replace("cat", word) for word in ("hat", "rat", "bat", "mat", "sat", "on", "the", "a", "at")]
    corrupt_text = next((t for t in words if len(ids_of(d, t)) == len(clean) and ids_of(d, t) != clean), None)
    if corrupt_text is None:
        return fail(f"{name}: no corrupted prompt of {len(clean)} tokens")
    corrupt = ids_of(d, corrupt_text)
    out = output_json(f"{name} --patch", "--patch", d, "--clean", clean_text, "--corrupt", corrupt_text, "--answer", "#5", "--vs", "#7")
    if out is None:
        return
    kept = {}
    metric = lambda logits: logits[-1, 5] - logits[-1, 7]  # noqa: E731
    m_clean = metric(forward(c, w, clean, recurrent, lambda l, o: kept.setdefault(l, o.copy()))[0])
    m_corrupt = metric(forward(c, w, corrupt, recurrent)[0])
    close(f"{name} --patch metrics", [out["clean_metric"], out["corrupt_metric"]], [m_clean, m_corrupt])

    def patched(l, h):
        def swap(layer, o):
            if layer == l:
                o[:, h] = kept[l][:, h]
            return o
        return (metric(forward(c, w, corrupt, recurrent, swap)[0]) - m_corrupt) / (m_clean - m_corrupt)

    H = c["num_attention_heads"]
    close(f"{name} --patch recovery by head", out["recovery"], [[patched(l, h) for h in range(H)] for l in range(len(c["layer_types"]))])


def check_multimodal(d, ids):
    """A Qwen3_5ForConditionalGeneration directory runs its text model (text_config, the tensors under
    model.language_model.) as the reference does, with one line on stderr saying the vision tower is not shown."""
    c = json.load(open(os.path.join(d, "config.json")))["text_config"]
    w = {n.replace("model.language_model.", "model.", 1): a for n, a in read_weights(d).items() if n.startswith(("model.language_model.", "lm_head."))}
    logits, maps, _ = forward(c, w, ids, recurrent)
    r = run("--forward", d, "--sequence", " ".join(map(str, ids)))
    if r.returncode != 0:
        return fail(f"multimodal: --forward exited {r.returncode}: {r.stderr.strip()}")
    out = json.loads(r.stdout)
    close("multimodal Qwen3.5: logits of its text model", out["logits"], logits)
    close("multimodal Qwen3.5: attention of its text model", out["attention"], maps)
    if r.stderr.count("\n") != 1 or "vision tower is not shown" not in r.stderr or os.path.basename(d) not in r.stderr:
        fail(f"multimodal Qwen3.5: stderr {r.stderr!r}, want one line naming the model and saying the vision tower is not shown")


def check_generate(d, ids, count):
    """--generate continues a hybrid on its cache: the tokens greedy decoding of the reference gives,
    each from a whole forward of the longer sequence."""
    c, w = json.load(open(os.path.join(d, "config.json"))), read_weights(d)
    want, seq = [], list(ids)
    for _ in range(count):
        nxt = int(np.argmax(forward(c, w, seq, recurrent)[0][-1]))
        want.append(nxt)
        seq.append(nxt)
    r = run("--generate", d, "--sequence", " ".join(map(str, ids)), "--tokens", str(count))
    if r.returncode != 0 or json.loads(r.stdout)["ids"] != want:
        fail(f"{os.path.basename(d)} --generate: exit {r.returncode}, {r.stdout[:120]!r} {r.stderr.strip()!r}, want ids {want}")


def read_weights(d):
    return read_safetensors(os.path.join(d, "model.safetensors"))


def copy_of(new):
    dst = os.path.join(workdir, "bad", new)
    shutil.rmtree(dst, ignore_errors=True)
    shutil.copytree(os.path.join(workdir, "qwen3_5"), dst)
    return dst


def refused(what, d, names):
    for problem in refusal_problems(what, run("--forward", d, "--sequence", "1 2 3"), names):
        fail(problem)


def edit_config(d, change):
    path = os.path.join(d, "config.json")
    c = json.load(open(path))
    change(c)
    json.dump(c, open(path, "w"))


def edit_weights(d, change):
    path = os.path.join(d, "model.safetensors")
    w = read_safetensors(path)
    change(w)
    write_safetensors(path, w)


def check_bad_inputs():
    d = copy_of("short_layer_types")
    edit_config(d, lambda c: c.update(layer_types=["linear_attention", "full_attention"]))
    refused("layer_types of the wrong length", d, ["config.json", "layer_types", "4"])
    for name in ("A_log", "dt_bias"):
        d = copy_of("no_" + name)
        edit_weights(d, lambda w: w.pop(f"model.layers.1.linear_attn.{name}"))
        refused(f"a missing {name}", d, ["model.safetensors", f"model.layers.1.linear_attn.{name}"])
    d = copy_of("conv_shape")
    edit_weights(d, lambda w: w.update({"model.layers.0.linear_attn.conv1d.weight": w["model.layers.0.linear_attn.conv1d.weight"][:, :, :3]}))
    refused("a conv kernel of the wrong shape", d, ["model.safetensors", "model.layers.0.linear_attn.conv1d.weight"])
    d = copy_of("heads_do_not_divide")
    edit_config(d, lambda c: c.update(linear_num_key_heads=3))
    refused("key heads that do not divide the value heads", d, ["config.json", "linear_num_key_heads", "linear_num_value_heads"])


def main():
    subprocess.run(["/usr/bin/python3", os.path.join(here, "fixtures", "make_checkpoints.py"), workdir], check=True)
    rng = np.random.default_rng(52)
    for name in ("qwen3_5", "qwen3_next"):
        d = os.path.join(workdir, name)
        vocab = json.load(open(os.path.join(d, "config.json")))["vocab_size"]
        check_forward(d, rng.integers(0, vocab, 9).tolist())
        check_forward(d, rng.integers(0, vocab, 70).tolist())  # past attnviz's chunks of 64
    check_scores(os.path.join(workdir, "qwen3_5"), [5, 6, 7, 5, 6, 7, 5, 6])
    check_knockouts(os.path.join(workdir, "qwen3_5"), [5, 6, 7, 5, 6, 7, 5, 6])
    check_circuits(os.path.join(workdir, "qwen3_5"), [5, 6, 7, 5, 6, 7, 5, 6])
    check_patching(os.path.join(workdir, "qwen3_5"), "the cat sat on the mat")
    check_bad_inputs()
    check_multimodal(os.path.join(workdir, "qwen3_5_multimodal"), rng.integers(0, 250, 9).tolist())
    for name in ("qwen3_5", "qwen3_next"):
        check_generate(os.path.join(workdir, name), [5, 9, 2, 7, 7, 3], 5)
    # llama.cpp's files: qwen35 (value heads tiled: 4 value heads on 2 key heads), qwen35moe, qwen3next.
    files = [(make_gguf(os.path.join(workdir, "qwen3_5"), "F32", "qwen35_F32"), os.path.join(workdir, "qwen3_5")),
             (make_gguf(os.path.join(workdir, "qwen3_5"), "F16", "qwen35_F16"), None),
             (make_gguf(os.path.join(workdir, "qwen3_5_moe"), "F32", "qwen35moe_F32"), None),
             (make_gguf(os.path.join(workdir, "qwen3_next_sparse"), "F32", "qwen3next_F32"), os.path.join(workdir, "qwen3_next_sparse"))]
    for path, hub in files:
        vocab = read_gguf(path)[1]["token_embd.weight"].shape[0]
        check_gguf(path, rng.integers(0, vocab, 9).tolist(), hub)
        check_gguf(path, rng.integers(0, vocab, 70).tolist())
    check_bad_gguf(files[0][0])
    if failures:
        sys.exit(f"linear_numpy_test: {len(failures)} failures")
    print("linear_numpy_test: qwen3_5 and qwen3_next match the recurrent and the chunked reference; M · v is each linear head's output, "
          "and a sabotaged M fails; bad inputs refused; --activations, scores, knock-outs, importance, the lens, attribution and "
          "patching of linear heads match; qwen35, qwen35moe and qwen3next files match llama.cpp's graph; the multimodal "
          "directory runs its text model; --generate continues a hybrid")


if __name__ == "__main__":
    main()
