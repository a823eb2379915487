#!/usr/bin/python3
"""Why heads attend where they do, against NumPy: `attnviz --composition` on every fixture of
tests/fixtures/make_checkpoints.py, from the checkpoint's own weights.

The composition scores are written here from their definition (Elhage et al., 2021), with the full
d_model × d_model matrices, row-vector convention: W_QK = W_Q W_Kᵀ, W_OV = W_V W_O, the preceding
norm's γ multiplied into the rows of W_Q, W_K and W_V; K-composition ‖W_OV¹ W_QK²ᵀ‖ / (‖W_OV¹‖ ‖W_QK²‖),
Q-composition with W_QK², V-composition with W_OV². The weights are read with model_numpy_test.py's
safetensors reader, which shares no code with attnviz.
usage: qk_numpy_test.py ATTNVIZ WORKDIR"""
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_numpy_test as ref  # noqa: E402

attnviz, workdir = sys.argv[1:3]
failures = []
FIXTURES = ("gpt2", "gpt2_prefixed", "llama_gqa", "qwen2", "llama_sharded", "mistral", "bert", "bert_base", "gemma2",
            "gemma3_text", "gemma3", "qwen3", "qwen3_sliding", "phi3", "phi4_mini", "llama32", "smollm2", "qwen25", "tinyllama")


def fail(message):
    failures.append(message)
    print("qk_numpy_test: FAIL " + message, file=sys.stderr)


def output_of(*args):
    r = subprocess.run([attnviz, *args], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(args[:2])}: exit {r.returncode}: {r.stderr.strip()}")
        return None
    return json.loads(r.stdout)


# ---- each head's weights -------------------------------------------------------------------------

def split_heads(W, first, n, dh):
    """W (D, outs): the n heads of dh columns from column `first`, each (D, dh)."""
    return [W[:, first + h * dh:first + (h + 1) * dh] for h in range(n)]


def gpt2_layers(c, w):
    p = "transformer." if "transformer.wte.weight" in w else ""
    D, H = c["n_embd"], c["n_head"]
    dh = D // H
    for l in range(c["n_layer"]):
        b = f"{p}h.{l}."
        A, P = w[b + "attn.c_attn.weight"], w[b + "attn.c_proj.weight"]  # Conv1D: (in, out)
        yield (w[b + "ln_1.weight"], split_heads(A, 0, H, dh), split_heads(A, D, H, dh), split_heads(A, 2 * D, H, dh),
               [P[h * dh:(h + 1) * dh] for h in range(H)])


def linear_heads(W, first, n, dh):
    """nn.Linear weight (outs, D): the n heads of dh outputs from `first`, each (D, dh)."""
    return split_heads(W.T, first, n, dh)


def llama_layers(c, w, prefix="model.", gemma=False):
    H = c["num_attention_heads"]
    KV = c.get("num_key_value_heads", H)
    dh = c.get("head_dim") or c["hidden_size"] // H
    for l in range(c["num_hidden_layers"]):
        b = f"{prefix}layers.{l}.self_attn."
        if b + "qkv_proj.weight" in w:
            F = w[b + "qkv_proj.weight"]
            q, k, v = linear_heads(F, 0, H, dh), linear_heads(F, H * dh, KV, dh), linear_heads(F, (H + KV) * dh, KV, dh)
        else:
            q, k, v = (linear_heads(w[b + n + "_proj.weight"], 0, m, dh) for n, m in (("q", H), ("k", KV), ("v", KV)))
        O = w[b + "o_proj.weight"]  # (D, H·dh)
        g = w[f"{prefix}layers.{l}.input_layernorm.weight"]
        group = H // KV
        yield (1 + g if gemma else g, q, [k[h // group] for h in range(H)], [v[h // group] for h in range(H)],
               [O[:, h * dh:(h + 1) * dh].T for h in range(H)])


def bert_layers(c, w):
    w = {k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias"): v for k, v in w.items()}
    p = "bert." if "bert.embeddings.word_embeddings.weight" in w else ""
    H, D = c["num_attention_heads"], c["hidden_size"]
    dh = D // H
    for l in range(c["num_hidden_layers"]):
        b = f"{p}encoder.layer.{l}."
        before = f"{p}encoder.layer.{l - 1}.output.LayerNorm.weight" if l else f"{p}embeddings.LayerNorm.weight"  # post-LN
        q, k, v = (linear_heads(w[b + "attention.self." + n + ".weight"], 0, H, dh) for n in ("query", "key", "value"))
        O = w[b + "attention.output.dense.weight"]
        yield w[before], q, k, v, [O[:, h * dh:(h + 1) * dh].T for h in range(H)]


def head_layers(d):
    """Per layer: (γ (D), W_Q, W_K, W_V: H × (D, dh), W_O: H × (dh, D))."""
    c = json.load(open(os.path.join(d, "config.json")))
    w = ref.read_weights(d)
    arch = c["architectures"][0]
    if arch.startswith("GPT2"):
        return list(gpt2_layers(c, w))
    if arch.startswith("Bert"):
        return list(bert_layers(c, w))
    if arch.startswith("Gemma"):
        _, t, prefix = ref.gemma_text_config(c)
        if prefix == "language_model.model." and "model.language_model.embed_tokens.weight" in w:
            prefix = "model.language_model."
        return list(llama_layers(t, w, prefix, gemma=True))
    return list(llama_layers(c, w))


# ---- composition ---------------------------------------------------------------------------------

def composition(layers, kind):
    """(L, H, L, H), NaN unless l1 < l2."""
    L, H = len(layers), len(layers[0][1])
    QK, OV = [], []
    for g, q, k, v, o in layers:
        QK.append([(g[:, None] * q[h]) @ (g[:, None] * k[h]).T for h in range(H)])
        OV.append([(g[:, None] * v[h]) @ o[h] for h in range(H)])
    norm = np.linalg.norm
    out = np.full((L, H, L, H), np.nan)
    for l1 in range(L):
        for l2 in range(l1 + 1, L):
            for h1 in range(H):
                for h2 in range(H):
                    A = OV[l1][h1]
                    B = {"k": QK[l2][h2].T, "q": QK[l2][h2], "v": OV[l2][h2]}[kind]
                    out[l1, h1, l2, h2] = norm(A @ B) / (norm(A) * norm(B))
    return out


def check_composition(name):
    layers = head_layers(os.path.join(workdir, name))
    for kind in ("q", "k", "v"):
        got = output_of("--composition", os.path.join(workdir, name), "--kind", kind)
        if got is None:
            continue
        if got["kind"] != kind:
            fail(f"{name} --kind {kind}: kind {got['kind']!r}")
        ours = np.array([[[[np.nan if s is None else s for s in h2] for h2 in l2] for l2 in h1] for h1 in got["scores"]], np.float64)
        theirs = composition(layers, kind)
        if ours.shape != theirs.shape:
            fail(f"{name} --kind {kind}: shape {ours.shape}, the reference has {theirs.shape}")
            continue
        if not np.array_equal(np.isnan(ours), np.isnan(theirs)):
            fail(f"{name} --kind {kind}: null where the reference has a score, or the other way")
        err = np.nanmax(np.abs(ours - theirs)) / np.nanmax(np.abs(theirs))
        if not err <= 1e-5:
            fail(f"{name} --kind {kind}: largest difference {err:.3g} of the largest score")


def refused(args, words):
    """attnviz ARGS exits 2 after one line that has each of `words`."""
    r = subprocess.run([attnviz, *args], capture_output=True, text=True)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or len(lines) != 1 or not all(w in r.stderr for w in words):
        fail(f"{' '.join(args)}: exit {r.returncode}, {r.stderr!r}; wanted exit 2 and one line with {words}")


def check_bad_inputs():
    gpt2 = os.path.join(workdir, "gpt2")
    refused(["--composition", gpt2, "--kind", "x"], ["--kind", "q, k or v"])
    refused(["--composition", os.path.join(workdir, "none")], ["none"])
    refused(["--composition", gpt2, "--top", "3"], ["--top"])
    refused(["--composition"], ["--composition needs a value"])


def main():
    subprocess.run(["/usr/bin/python3", os.path.join(ref.here, "fixtures", "make_checkpoints.py"), workdir], check=True)
    for name in FIXTURES:
        check_composition(name)
    check_bad_inputs()
    if failures:
        sys.exit(f"qk_numpy_test: {len(failures)} failures")
    print("qk_numpy_test: composition scores match the NumPy reference on every fixture")


main()
