#!/usr/bin/python3
"""Qwen3.5 MoE against a NumPy reference: the qwen3_5_moe_multimodal fixture of
tests/fixtures/make_checkpoints.py (Qwen3_5MoeForConditionalGeneration as the Hub holds it: each layer's
experts fused in mlp.experts.gate_up_proj and mlp.experts.down_proj, under "model.language_model.")
and the qwen3_5_moe one (Qwen3_5MoeForCausalLM with each expert's own tensors) through
`attnviz --forward`: logits, every head's attention (M on the linear layers) and each layer's routing.
A reference that swaps gate and up must not match; a fused expert tensor of the wrong shape is refused.
Then Qwen3 MoE and Qwen3-Next with their experts fused as transformers 5 holds them, against the
references of their own layout.

The mixture is written here from transformers' modeling_qwen3_5_moe.py (Qwen3_5MoeTopKRouter: the
softmax over every expert in float, its top k always divided by their sum, the config having no
norm_topk_prob; Qwen3_5MoeExperts: gate, up = (a · gate_up_proj[e]ᵀ).chunk(2), silu(gate) · up ·
down_proj[e]ᵀ; Qwen3_5MoeSparseMoeBlock: plus the shared expert times sigmoid(a · shared_expert_gateᵀ)),
in float64 on the values the file holds. The token mixers are Qwen3.5's own classes there
(Qwen3_5MoeGatedDeltaNet, Qwen3_5MoeAttention): linear_numpy_test.py's reference of them is used.
usage: qwen3_5_moe_numpy_test.py ATTNVIZ WORKDIR"""
import json
import os
import shutil
import sys

import numpy as np

tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, tests)
sys.path.insert(0, os.path.join(tests, "fixtures"))
import linear_numpy_test as hybrid  # noqa: E402  Qwen3.5's Gated DeltaNet and gated attention, float64
import make_checkpoints  # noqa: E402  its writer, for altered copies
from cli_numpy import close, fail, finish, forward_checked, output_of, run, vocab_size, workdir, write_fixtures  # noqa: E402
from model_numpy_test import read_weights  # noqa: E402  the references' own reader, float64


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def expert(w, p, e, a, swapped=False):
    """Expert e of the fused tensors under p on a (n, D): its gate | up halves, or per-expert tensors."""
    if p + "experts.gate_up_proj" in w:
        gate, up = np.split(a @ w[p + "experts.gate_up_proj"][e].T, 2, -1)
        down = w[p + "experts.down_proj"][e]
    else:
        q = f"{p}experts.{e}."
        gate, up, down = a @ w[q + "gate_proj.weight"].T, a @ w[q + "up_proj.weight"].T, w[q + "down_proj.weight"]
    if swapped:
        gate, up = up, gate
    return (hybrid.silu(gate) * up) @ down.T


def sparse_block(c, w, p, a, swapped=False):
    """Qwen3_5MoeSparseMoeBlock on a (t, D): the output and the routing, chosen and weights (t, k),
    with the smallest gap between a position's k-th probability and the next (a choice float32 may
    make otherwise when it is tiny)."""
    probs = softmax(a @ w[p + "gate.weight"].T)  # (t, E)
    k = c["num_experts_per_tok"]
    chosen = np.argsort(-probs, -1, kind="stable")[:, :k]
    ranked = -np.sort(-probs, -1)
    gap = (ranked[:, k - 1] - ranked[:, k]).min()
    weights = np.take_along_axis(probs, chosen, -1)
    weights = weights / weights.sum(-1, keepdims=True)
    out = np.zeros_like(a)
    for i in range(len(a)):
        for e, g in zip(chosen[i], weights[i]):
            out[i] += g * expert(w, p, e, a[i:i + 1], swapped)[0]
    gate = 1 / (1 + np.exp(-(a @ w[p + "shared_expert_gate.weight"].T)))  # (t, 1)
    return out + gate * hybrid.mlp(w, p + "shared_expert.", a), (chosen, weights, gap)


def forward(c, w, ids, swapped=False):
    """Qwen3_5MoeTextModel and its lm_head on names under "model.": logits (t, V), the maps (L, H, t, t)
    and each layer's routing."""
    eps = c["rms_norm_eps"]
    x = w["model.embed_tokens.weight"][ids]
    maps, routing = [], []
    for l, kind in enumerate(c["layer_types"]):
        p = f"model.layers.{l}."
        a = hybrid.rms_norm_plus_one(x, w[p + "input_layernorm.weight"], eps)
        if kind == "linear_attention":
            q, k, v, z, beta, g = hybrid.delta_inputs(c, w, p + "linear_attn.", a)
            o = hybrid.recurrent(q, k, v, beta, g)
            heads = o / np.sqrt((o * o).mean(-1, keepdims=True) + eps) * w[p + "linear_attn.norm.weight"] * hybrid.silu(z)
            x = x + heads.reshape(len(ids), -1) @ w[p + "linear_attn.out_proj.weight"].T
            M = hybrid.matrix(q, k, beta, g)
            maps.append(np.vstack([M, np.zeros((c["num_attention_heads"] - len(M),) + M.shape[1:])]))
        else:
            heads, m = hybrid.gated_attention(c, w, p + "self_attn.", a)
            x = x + heads.reshape(len(ids), -1) @ w[p + "self_attn.o_proj.weight"].T
            maps.append(m)
        out, route = sparse_block(c, w, p + "mlp.", hybrid.rms_norm_plus_one(x, w[p + "post_attention_layernorm.weight"], eps), swapped)
        x = x + out
        routing.append((l, *route))
    return hybrid.lm_head(c, w, x), np.array(maps), routing


def text_model(d):
    """The config and weights of a directory's text model, its names as Qwen3_5MoeForCausalLM's."""
    c = json.load(open(os.path.join(d, "config.json")))
    w = read_weights(d)
    if "text_config" not in c:
        return c, w
    return c["text_config"], {n.replace("model.language_model.", "model.", 1): a for n, a in w.items() if n.startswith(("model.language_model.", "lm_head."))}


def check_routing(label, routing, experts):
    """--forward's `experts` (layers and ids from 1) against the reference's routing."""
    if [e["layer"] for e in experts] != [layer + 1 for layer, *_ in routing]:
        return fail(f"{label}: experts of layers {[e['layer'] for e in experts]}, the reference routes {[r[0] + 1 for r in routing]}")
    for e, (layer, chosen, weights, _) in zip(experts, routing):
        if np.array(e["ids"]).tolist() != (chosen + 1).tolist():
            fail(f"{label}: layer {layer + 1} chose {e['ids']}, the reference {(chosen + 1).tolist()}")
        close(f"{label} layer {layer + 1} weights", e["weights"], weights)


def check_forward(name, t, rng, multimodal):
    """t random ids, drawn again while the reference routes any position by a gap under 1e-5."""
    d = os.path.join(workdir, name)
    c, w = text_model(d)
    while True:
        ids = rng.integers(0, c["vocab_size"], t).tolist()
        logits, maps, routing = forward(c, w, ids)
        if min(gap for *_, gap in routing) > 1e-5:
            break
    out, stderr = forward_checked(name, d, ids, logits, maps)
    if out is None:
        return
    check_routing(name, routing, out.get("experts", []))
    swapped = forward(c, w, ids, swapped=True)[0]
    if hybrid.error(out["logits"], swapped) <= 1e-2:
        fail(f"{name}: a reference with gate and up swapped matches attnviz's logits too")
    said = stderr.count("\n") == 1 and "vision tower is not shown" in stderr and name in stderr
    if multimodal and not said:
        fail(f"{name}: stderr {stderr!r}, want one line naming it and saying the vision tower is not shown")
    if not multimodal and stderr:
        fail(f"{name}: stderr {stderr!r}, want none")


def altered_copy(src, new, change):
    """WORKDIR/new: a copy of fixture `src` whose weights (float32) went through change(w)."""
    d = os.path.join(workdir, new)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(os.path.join(workdir, src), d)
    w = {n: a.astype(np.float32) for n, a in read_weights(d).items()}
    change(w)
    make_checkpoints.write_safetensors(os.path.join(d, "model.safetensors"), dict(sorted(w.items())), "F32")
    return d


def check_wrong_fused_shape():
    """A gate_up_proj of 2F − 1 rows a expert: exit 2, one line naming the file and the tensor."""
    name = "model.language_model.layers.2.mlp.experts.gate_up_proj"
    d = altered_copy("qwen3_5_moe_multimodal", "qwen3_5_moe_short_gate_up", lambda w: w.update({name: w[name][:, 1:]}))
    r = run("--forward", d, "--sequence", "1 2 3")
    if r.returncode != 2 or r.stdout or r.stderr.count("\n") != 1 or name not in r.stderr or "model.safetensors" not in r.stderr:
        fail(f"a fused expert tensor of the wrong shape: exit {r.returncode}, {r.stderr!r}")


def fused(w):
    """Every layer's per-expert tensors replaced by transformers 5's fused gate_up_proj (E, 2F, D),
    gate | up, and down_proj (E, D, F) (its MergeModulelist then Concatenate on dim 1)."""
    for p in sorted({n[:n.index("experts.")] for n in w if ".mlp.experts.0.gate_proj" in n}):
        E = len([n for n in w if n.startswith(p + "experts.") and n.endswith(".gate_proj.weight")])
        gate = [w.pop(f"{p}experts.{e}.gate_proj.weight") for e in range(E)]
        up = [w.pop(f"{p}experts.{e}.up_proj.weight") for e in range(E)]
        w[p + "experts.gate_up_proj"] = np.concatenate([np.stack(gate), np.stack(up)], 1)
        w[p + "experts.down_proj"] = np.stack([w.pop(f"{p}experts.{e}.down_proj.weight") for e in range(E)])


def check_fused_layout(src, ids):
    """Fixture `src` with its experts fused gives the logits and routing its own layout gives: the
    reference's for Qwen3-Next (linear_numpy_test.py's), attnviz's own run of the original for Qwen3 MoE
    (whose reference model_numpy_test.py checks)."""
    d = altered_copy(src, src + "_fused", fused)
    ours = output_of("--forward", d, "--sequence", " ".join(map(str, ids)))
    if ours is None:
        return
    if src.startswith("qwen3_next"):
        want = hybrid.forward(json.load(open(os.path.join(d, "config.json"))), read_weights(os.path.join(workdir, src)), ids, hybrid.recurrent)[0]
    else:
        original = output_of("--forward", os.path.join(workdir, src), "--sequence", " ".join(map(str, ids)))
        if original is None:
            return
        want = original["logits"]
        if [e["ids"] for e in ours["experts"]] != [e["ids"] for e in original["experts"]]:
            fail(f"{src} with fused experts: its experts chosen differ from the per-expert layout's")
    close(f"{src} with fused experts: logits", ours["logits"], want)


def main():
    write_fixtures()
    rng = np.random.default_rng(3552)
    for name, multimodal in (("qwen3_5_moe_multimodal", True), ("qwen3_5_moe", False)):
        check_forward(name, 9, rng, multimodal)
        check_forward(name, 70, rng, multimodal)  # past attnviz's chunks of 64
    check_wrong_fused_shape()
    check_fused_layout("qwen3_next", rng.integers(0, vocab_size("qwen3_next"), 9).tolist())
    check_fused_layout("qwen3_moe_unnormed", rng.integers(0, vocab_size("qwen3_moe_unnormed"), 9).tolist())
    finish("Qwen3.5 MoE's fused and per-expert layouts match the reference's logits, attention and routing, and a "
           "gate/up swap does not; a fused tensor of the wrong shape refused; Qwen3-Next and Qwen3 MoE read fused")


if __name__ == "__main__":
    main()
