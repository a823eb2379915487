#!/usr/bin/python3
"""Circuits of real checkpoints against NumPy: `attnviz --logit-lens`, `--attribute` and `--patch` on
the fixtures of tests/fixtures/make_checkpoints.py.

The model is the NumPy reference forward of model_numpy_test.py (written from transformers' modeling
files, sharing no code with attnviz). The lens's layer l is that forward cut to its first l layers;
the attributions sum to its logit and, for GPT-2, each head's is its write through ln_f frozen at the
run's scale; a head's patch replaces that head's output before the output projection.
usage: circuits_numpy_test.py ATTNVIZ WORKDIR"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_numpy_test as ref  # noqa: E402
from cli_numpy import close, fail, finish, output_of, run, vocab_size, workdir, write_fixtures  # noqa: E402

ARCHITECTURES = ("gpt2", "llama_gqa", "qwen2", "mistral", "qwen3", "phi3", "gemma2", "gemma3_text", "gemma3", "bert", "qwen3_yarn",
                 "smollm3", "olmo2", "olmo3", "gpt_oss")


def forward(name, ids, mode="zero", layers=None):
    """The reference logits of fixture `name` with its first `layers` layers (all: None)."""
    d = os.path.join(workdir, name)
    c = json.load(open(os.path.join(d, "config.json")))
    if layers is not None:
        inner = c.get("text_config", c)
        inner["n_layer" if "n_layer" in inner else "num_hidden_layers"] = layers
    arch = c["architectures"][0]
    f = (ref.gpt2_forward if arch.startswith("GPT2") else ref.bert_forward if arch.startswith("Bert") else
         ref.gemma_forward if arch.startswith("Gemma") else ref.llama_forward)
    return f(c, ref.read_weights(d), list(ids), (), mode)[0]


def layer_count(name):
    c = json.load(open(os.path.join(workdir, name, "config.json")))
    c = c.get("text_config", c)
    return c.get("n_layer", c.get("num_hidden_layers"))


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def check_lens(name, ids):
    out = output_of("--logit-lens", os.path.join(workdir, name), "--sequence", " ".join(map(str, ids)), "--top", "3")
    if out is None:
        return
    L, t = layer_count(name), len(ids)
    p = np.array([softmax(forward(name, ids, layers=l)) for l in range(1, L + 1)])  # (L, t, V)
    top = np.argsort(-p, axis=-1, kind="stable")[..., :3]
    close(f"{name} lens p", out["p"], np.take_along_axis(p, top, -1))
    if out["top"][-1] != top[-1].tolist():
        fail(f"{name} lens: the last layer's top ids {out['top'][-1]}, the model's {top[-1].tolist()}")
    nxt = p[:, np.arange(t - 1), ids[1:]]
    close(f"{name} lens p_next", [row[:-1] for row in out["p_next"]], nxt)
    if any(row[-1] is not None for row in out["p_next"] + out["rank_next"]):
        fail(f"{name} lens: the last position has a next token")
    rank = (p[:, np.arange(t - 1)] > nxt[..., None]).sum(-1) + 1
    if [row[:-1] for row in out["rank_next"]] != rank.tolist():
        fail(f"{name} lens rank_next {out['rank_next']}, the reference {rank.tolist()}")


def check_attribute(name, ids):
    d = os.path.join(workdir, name)
    c = json.load(open(os.path.join(d, "config.json")))
    cap = ref.gemma_text_config(c)[1]["final_logit_softcapping"] if c["architectures"][0].startswith("Gemma") else None
    vs = [] if cap else ["--vs", "#7"]
    out = output_of("--attribute", d, "--sequence", " ".join(map(str, ids)), "--target", "#5", *vs, "--position", "4")
    if out is None:
        return
    terms = [out["embed"], out["bias"], *np.ravel(out["heads"]), *out["mlps"]]
    total = sum(terms)  # to 1e-6 of the terms' magnitudes: each is float32 rounding of the stream's scale
    if not abs(total - out["logit"]) <= 1e-6 * sum(map(abs, terms)):
        fail(f"{name} attribution: the parts sum to {total!r}, the logit is {out['logit']!r}")
    logits = forward(name, ids)
    want = logits[3, 5] - (0 if cap else logits[3, 7])
    close(f"{name} attributed logit", np.tanh(out["logit"] / cap) * cap if cap else out["logit"], want)
    if (out["position"], out["target"], out["vs"]) != (4, 5, None if cap else 7):
        fail(f"{name} attribution: position, target, vs {out['position'], out['target'], out['vs']}")


def gpt2_head_attributions(ids, position, target, vs):
    """GPT-2's per-head direct attributions: each head's write o_h · c_proj's rows of h, through ln_f
    with the run's 1/σ at the position, onto wte[target] − wte[vs]."""
    d = os.path.join(workdir, "gpt2")
    c, w = json.load(open(os.path.join(d, "config.json"))), ref.read_weights(d)
    H, D = c["n_head"], c["n_embd"]
    outputs, normed = [], []
    real = ref.layer_norm  # each norm's input, the last being ln_f's: the stream after the last layer
    ref.layer_norm = lambda x, g, b, eps: normed.append(x) or real(x, g, b, eps)
    try:
        ref.gpt2_forward(c, w, ids, (), lambda o, layer: outputs.append(o.copy()) or o)
    finally:
        ref.layer_norm = real
    stream = normed[-1][position]
    scale = 1 / np.sqrt(stream.var() + c["layer_norm_epsilon"])
    u = w["wte.weight"][target] - w["wte.weight"][vs]
    writes = [[o[h][position] @ w[f"h.{l}.attn.c_proj.weight"].reshape(H, D // H, D)[h] for h in range(H)] for l, o in enumerate(outputs)]
    return np.array([[((v - v.mean()) * scale * w["ln_f.weight"]) @ u for v in row] for row in writes])


def check_gpt2_heads(ids):
    out = output_of("--attribute", os.path.join(workdir, "gpt2"), "--sequence", " ".join(map(str, ids)), "--target", "#5", "--vs", "#7",
               "--position", "4")
    if out is not None:
        close("gpt2 per-head attributions", out["heads"], gpt2_head_attributions(ids, 3, 5, 7))


def ids_of(name, text):
    return output_of("--tokenize", os.path.join(workdir, name), "--text", text)["ids"]


def prompts(name):
    """A clean prompt and a corrupted one of as many tokens in the fixture's small vocabulary: one word
    of the clean prompt replaced."""
    clean = "the cat sat on the mat"
    n = len(ids_of(name, clean))
    for word in ("dog", "hat", "rat", "bat", "mat", "sat", "cut", "on", "the", "a", "at", "c", "t"):
        corrupt = clean.replace("cat", word)
        ids = ids_of(name, corrupt)
        if len(ids) == n and ids != ids_of(name, clean):
            return clean, corrupt
    fail(f"{name}: no corrupted prompt of {n} tokens")
    return clean, clean


def metric(logits, answer, vs):
    return logits[-1, answer] - logits[-1, vs]


def check_patch(name, clean_text, corrupt_text):
    """Each head's recovery against the reference forward with that head's output from the clean run."""
    d = os.path.join(workdir, name)
    out = output_of("--patch", d, "--clean", clean_text, "--corrupt", corrupt_text, "--answer", "#5", "--vs", "#7")
    if out is None:
        return
    clean, corrupt = ids_of(name, clean_text), ids_of(name, corrupt_text)
    if len(clean) != len(corrupt):
        return fail(f"{name}: the prompts tokenize to {len(clean)} and {len(corrupt)} tokens; pick two of one length")
    kept = {}
    m_clean = metric(forward(name, clean, lambda o, layer: kept.setdefault(layer, o.copy())), 5, 7)
    m_corrupt = metric(forward(name, corrupt), 5, 7)
    close(f"{name} patch metrics", [out["clean_metric"], out["corrupt_metric"]], [m_clean, m_corrupt])
    L, H = len(kept), kept[0].shape[0]

    def patched(heads):
        def swap(o, layer):
            o = o.copy()
            for l, h in heads:
                if l == layer:
                    o[h] = kept[layer][h]
            return o
        return (metric(forward(name, corrupt, swap), 5, 7) - m_corrupt) / (m_clean - m_corrupt)

    close(f"{name} head patching", out["recovery"], [[patched([(l, h)]) for h in range(H)] for l in range(L)])
    every = patched([(l, h) for l in range(L) for h in range(H)])
    if not abs(every - 1) < 1e-9:
        fail(f"{name}: the reference itself recovers {every} with every head patched")


def check_bad_inputs():
    d = os.path.join(workdir, "gpt2")
    for args, says in ((["--attribute", d, "--sequence", "1 2", "--target", "#99999"], "--target"),
                       (["--attribute", d, "--sequence", "1 2", "--target", "Hello world"], "not one"),
                       (["--attribute", d, "--sequence", "1 2", "--target", "#3", "--position", "3"], "--position"),
                       (["--patch", d, "--clean", "a b", "--corrupt", "a c", "--answer", "#3"], "--metric loss"),
                       (["--patch", d, "--clean", "a b", "--corrupt", "a b c", "--metric", "loss"], "one length"),
                       (["--patch", d, "--clean", "a b", "--corrupt", "a c", "--metric", "loss", "--by", "layer"], "--by"),
                       (["--logit-lens", d, "--sequence", "1 2", "--top", "0"], "--top"),
                       (["--logit-lens", os.path.join(workdir, "bert_base"), "--sequence", "1 2"], "no LM head"),
                       (["--attribute", os.path.join(workdir, "bert"), "--sequence", "1 2", "--target", "#3"], "not"),
                       (["--logit-lens", d, "--sequence", "1 2", "--vs", "#3"], "unknown option")):
        r = run(*args)
        lines = r.stderr.strip().split("\n")
        if r.returncode != 2 or len(lines) != 1 or says not in lines[0] or r.stdout:
            fail(f"{' '.join(args)}: exit {r.returncode}, stderr {r.stderr!r} (want 2 and one line naming {says!r})")


def main():
    write_fixtures()
    rng = np.random.default_rng(11)
    for name in ARCHITECTURES:
        ids = rng.integers(0, min(300, vocab_size(name)), 6).tolist()
        check_lens(name, ids)
        if name != "bert":  # BERT's MLM head is not linear: check_bad_inputs sees it refused
            check_attribute(name, ids)
        check_patch(name, *prompts(name))
    check_gpt2_heads(rng.integers(0, 300, 6).tolist())
    check_bad_inputs()
    finish("the lens, the attributions and head patching match the NumPy reference on every fixture")


if __name__ == "__main__":
    main()
