#!/usr/bin/python3
"""Qwen2MoeForCausalLM against a NumPy reference: the qwen2_moe fixture of
tests/fixtures/make_checkpoints.py through `attnviz --forward` (logits, every head's attention, each
sparse layer's routing), with an expert knocked out, and with a tensor missing.

The reference is written from transformers' modeling_qwen2_moe.py (Qwen2MoeAttention,
Qwen2MoeSparseMoeBlock, Qwen2MoeDecoderLayer) and Qwen2MoeConfig's defaults, in float64, reading the
fixture with model_numpy_test.py's reader; it shares no code with attnviz.
usage: qwen2_moe_numpy_test.py ATTNVIZ WORKDIR"""
import json
import os
import shutil
import sys

import numpy as np

tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, tests)
sys.path.insert(0, os.path.join(tests, "fixtures"))
from model_numpy_test import read_weights  # noqa: E402  the references' own reader, float64
import make_checkpoints  # noqa: E402  its writer, for a broken copy
from cli_numpy import close, fail, finish, output_of, run, vocab_size, workdir, write_fixtures  # noqa: E402


def rms_norm(x, w, eps):
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w


def silu(x):
    return x / (1 + np.exp(-x))


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def rope(x, theta):
    """apply_rotary_pos_emb with rotate_half on x (heads, t, dh), positions 0 … t − 1."""
    dh, t = x.shape[-1], x.shape[-2]
    inv = 1.0 / theta ** (np.arange(0, dh, 2) / dh)
    angles = np.arange(t)[:, None] * inv[None, :]
    emb = np.concatenate([angles, angles], -1)  # (t, dh)
    rotated = np.concatenate([-x[..., dh // 2:], x[..., :dh // 2]], -1)
    return x * np.cos(emb) + rotated * np.sin(emb)


def attention(c, w, p, a):
    """Qwen2MoeAttention on a (t, D): q/k/v with biases, RoPE, GQA, causal softmax of q·k/√dh, o_proj
    without bias. Returns the output (t, D) and the weights (H, t, t)."""
    t, D = a.shape
    H, KV = c["num_attention_heads"], c["num_key_value_heads"]
    dh = D // H
    q = (a @ w[p + "q_proj.weight"].T + w[p + "q_proj.bias"]).reshape(t, H, dh).transpose(1, 0, 2)
    k = (a @ w[p + "k_proj.weight"].T + w[p + "k_proj.bias"]).reshape(t, KV, dh).transpose(1, 0, 2)
    v = (a @ w[p + "v_proj.weight"].T + w[p + "v_proj.bias"]).reshape(t, KV, dh).transpose(1, 0, 2)
    q, k = rope(q, c["rope_theta"]), rope(k, c["rope_theta"])
    k, v = np.repeat(k, H // KV, 0), np.repeat(v, H // KV, 0)  # repeat_kv
    scores = q @ k.transpose(0, 2, 1) / np.sqrt(dh) + np.triu(np.full((t, t), -np.inf), 1)
    weights = softmax(scores)
    context = (weights @ v).transpose(1, 0, 2).reshape(t, H * dh)
    return context @ w[p + "o_proj.weight"].T, weights


def mlp(w, p, a):
    """Qwen2MoeMLP: down(silu(gate(a)) · up(a))."""
    return (silu(a @ w[p + "gate_proj.weight"].T) * (a @ w[p + "up_proj.weight"].T)) @ w[p + "down_proj.weight"].T


def sparse_block(c, w, p, a, knocked):
    """Qwen2MoeSparseMoeBlock: the router's softmax, its top k as they are (norm_topk_prob false),
    each chosen expert times its weight, plus the shared expert times sigmoid(shared_expert_gate).
    An expert in `knocked` adds nothing, its weight 0 and the others' as they were. Returns the output
    and (chosen, weights) (t, k) each."""
    probs = softmax(a @ w[p + "gate.weight"].T)  # (t, E)
    k = c["num_experts_per_tok"]
    chosen = np.argsort(-probs, -1, kind="stable")[:, :k]
    weights = np.take_along_axis(probs, chosen, -1)
    if c["norm_topk_prob"]:
        weights = weights / weights.sum(-1, keepdims=True)
    weights = np.where(np.isin(chosen, list(knocked)), 0.0, weights)
    out = np.zeros_like(a)
    for i in range(len(a)):
        for e, g in zip(chosen[i], weights[i]):
            out[i] += g * mlp(w, f"{p}experts.{e}.", a[i:i + 1])[0]
    gate = 1 / (1 + np.exp(-(a @ w[p + "shared_expert_gate.weight"].T)))  # (t, 1)
    return out + gate * mlp(w, p + "shared_expert.", a), (chosen, weights)


def sparse(c, l):
    return l not in c["mlp_only_layers"] and c["num_experts"] > 0 and (l + 1) % c["decoder_sparse_step"] == 0


def forward(d, ids, knocked=None):
    """Qwen2MoeForCausalLM: logits (t, V), attention (L, H, t, t), and each sparse layer's routing."""
    c = json.load(open(os.path.join(d, "config.json")))
    w = read_weights(d)
    eps = c["rms_norm_eps"]
    x = w["model.embed_tokens.weight"][ids]
    attention_maps, routing = [], []
    for l in range(c["num_hidden_layers"]):
        p = f"model.layers.{l}."
        out, weights = attention(c, w, p + "self_attn.", rms_norm(x, w[p + "input_layernorm.weight"], eps))
        x = x + out
        attention_maps.append(weights)
        a = rms_norm(x, w[p + "post_attention_layernorm.weight"], eps)
        if sparse(c, l):
            out, route = sparse_block(c, w, p + "mlp.", a, (knocked or {}).get(l, ()))
            routing.append((l, *route))
        else:
            out = mlp(w, p + "mlp.", a)
        x = x + out
    logits = rms_norm(x, w["model.norm.weight"], eps) @ w["lm_head.weight"].T
    return logits, np.array(attention_maps), routing


def check_routing(label, routing, experts):
    """--forward's `experts` (layers and ids from 1) against the reference's routing."""
    if [e["layer"] for e in experts] != [layer + 1 for layer, *_ in routing]:
        return fail(f"{label}: experts of layers {[e['layer'] for e in experts]}, the reference routes {[r[0] + 1 for r in routing]}")
    for e, (layer, chosen, weights) in zip(experts, routing):
        if np.array(e["ids"]).tolist() != (chosen + 1).tolist():
            fail(f"{label}: layer {layer + 1} chose {e['ids']}, the reference {(chosen + 1).tolist()}")
        close(f"{label} layer {layer + 1} weights", e["weights"], weights)


def forward_json(d, ids, *extra):
    return output_of("--forward", d, "--sequence", " ".join(map(str, ids)), *extra)


def check_forward(d, ids):
    out = forward_json(d, ids)
    if out is None:
        return
    logits, att, routing = forward(d, ids)
    close("logits", out["logits"], logits)
    close("attention", out["attention"], att)
    check_routing("forward", routing, out.get("experts", []))


def check_knocked_expert(d, ids):
    """--ablate-expert L.E of the expert the first position chose first in the last sparse layer."""
    intact, _, routing = forward(d, ids)
    layer, chosen, _ = routing[-1]
    expert = int(chosen[0, 0])
    out = forward_json(d, ids, "--ablate-expert", f"{layer + 1}.{expert + 1}")
    if out is None:
        return
    logits, _, routing = forward(d, ids, {layer: (expert,)})
    close("--ablate-expert logits", out["logits"], logits)
    check_routing("--ablate-expert", routing, out["experts"])
    if np.abs(np.asarray(out["logits"]) - intact).max() < 1e-3:
        fail(f"--ablate-expert {layer + 1}.{expert + 1} left the logits as they were")


def check_missing_shared_gate(d):
    """A checkpoint without a layer's shared_expert_gate: exit 2, one line naming the tensor."""
    broken = os.path.join(workdir, "qwen2_moe_no_shared_gate")
    shutil.rmtree(broken, ignore_errors=True)
    shutil.copytree(d, broken)
    w = read_weights(broken)
    del w["model.layers.2.mlp.shared_expert_gate.weight"]
    make_checkpoints.write_safetensors(os.path.join(broken, "model.safetensors"), {k: v.astype(np.float32) for k, v in w.items()}, "F32")
    r = run("--forward", broken, "--sequence", "1 2 3")
    if r.returncode != 2 or r.stdout or r.stderr.count("\n") != 1 or "model.layers.2.mlp.shared_expert_gate.weight" not in r.stderr:
        fail(f"a missing shared_expert_gate: exit {r.returncode}, {r.stderr!r}")


def main():
    write_fixtures()
    d = os.path.join(workdir, "qwen2_moe")
    vocab = vocab_size("qwen2_moe")
    rng = np.random.default_rng(57)
    ids = rng.integers(0, vocab, 9).tolist()
    check_forward(d, ids)
    check_knocked_expert(d, ids)
    check_missing_shared_gate(d)
    finish("logits, attention and routing match the reference, with and without an expert knocked out; "
           "a missing shared_expert_gate refused")


if __name__ == "__main__":
    main()
