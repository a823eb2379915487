#!/usr/bin/python3
"""Head probes of real checkpoints against NumPy: `attnviz --heads`, `--rollout`, `--head-importance`
and `--forward` / `--generate` with `--ablate`, on the fixtures of tests/fixtures/make_checkpoints.py.

The model is the NumPy reference forward of model_numpy_test.py (written from transformers' modeling
files, sharing no code with attnviz), with heads ablated before the output projection; the scores,
the rollout and the loss are written here from their definitions.
usage: probes_numpy_test.py ATTNVIZ WORKDIR"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_numpy_test as ref  # noqa: E402
from cli_numpy import close, fail, finish, output_of, run, vocab_size, workdir, write_fixtures  # noqa: E402


# ---- the definitions -----------------------------------------------------------------------------

def scores(A, ids):
    """previous, duplicate, induction, entropy and sink of one head A (t, t) on ids; None where no row qualifies."""
    t = len(ids)
    previous = np.mean([A[i, i - 1] for i in range(1, t)]) if t > 1 else None
    dup = [A[i, [j for j in range(i) if ids[j] == ids[i]]].sum() for i in range(t) if ids[i] in ids[:i]]
    ind = []
    for i in range(t):
        keys = [j for j in range(1, i) if ids[j - 1] == ids[i]]
        if keys:
            ind.append(A[i, keys].sum())
    safe = np.where(A > 0, A, 1.0)
    entropy = -(A * np.log(safe)).sum(axis=1).mean()
    sink = np.mean([A[i, 0] for i in range(1, t)]) if t > 1 else None  # the share on the first position
    return [previous, np.mean(dup) if dup else None, np.mean(ind) if ind else None, entropy, sink]


def rollout(att):
    """att (L, H, t, t) -> (t, t)."""
    t = att.shape[-1]
    R = np.eye(t)
    for layer in att:
        hat = layer.mean(axis=0) + np.eye(t)
        R = (hat / hat.sum(axis=1, keepdims=True)) @ R
    return R


def loss(logits, ids):
    z = logits[:-1]
    top = z.max(axis=1, keepdims=True)
    lse = top[:, 0] + np.log(np.exp(z - top).sum(axis=1))
    return float(np.mean(lse - z[np.arange(len(ids) - 1), ids[1:]]))


def probe(m, seed, vocab, exclude, bos):
    rng = np.random.default_rng(seed)
    p = [i for i in range(vocab) if i not in exclude]
    for k in range(m):
        j = k + int(rng.random() * (len(p) - k))
        p[k], p[j] = p[j], p[k]
    return ([bos] if bos is not None else []) + p[:m] + p[:m]


def reference(d, ids, ablate=(), mode="zero"):
    return ref.reference(d, ids, ablate, mode)


# ---- the checks ----------------------------------------------------------------------------------

def check_heads(name, ids, got, what=""):
    _, att = reference(os.path.join(workdir, name), ids)
    name += what
    L, H = att.shape[:2]
    if got is None or len(got) != L * H:
        return fail(f"{name} --heads: {None if got is None else len(got)} rows for {L} × {H} heads")
    for row in got:
        l, h = row["layer"], row["head"]
        want = scores(att[l - 1, h - 1], list(ids))
        for key, w in zip(("previous", "duplicate", "induction", "entropy", "sink"), want):
            if (w is None) != (row[key] is None) or (w is not None and abs(row[key] - w) > 1e-4 * max(1.0, abs(w))):
                fail(f"{name} --heads layer {l} head {h} {key}: {row[key]}, the reference gives {w}")


def check_probe(name, m, seed):
    d = os.path.join(workdir, name)
    c = json.load(open(os.path.join(d, "config.json")))
    tok = json.load(open(os.path.join(d, "tokenizer.json")))
    specials = {a["id"] for a in tok.get("added_tokens", []) if a.get("special")}
    ids = probe(m, seed, c["vocab_size"], specials, c.get("bos_token_id"))
    check_heads(name, ids, output_of("--heads", d, "--probe", str(m), "--seed", str(seed)), " (probe)")


def check_ablated_forward(name, ids, heads, mode):
    d = os.path.join(workdir, name)
    spec = ",".join(f"{l}.{h}" for l, h in heads)
    out = output_of("--forward", d, "--sequence", " ".join(map(str, ids)), "--ablate", spec, "--ablate-mode", mode)
    if out is None:
        return
    logits, att = reference(d, ids, [(l - 1, h - 1) for l, h in heads], mode)
    intact, _ = reference(d, ids)
    key = "hidden" if "hidden" in out else "logits"
    close(f"{name} --ablate {spec} ({mode}) {key}", out[key], logits)
    close(f"{name} --ablate {spec} ({mode}) attention", out["attention"], att)
    if np.abs(logits - intact).max() < 1e-3:
        fail(f"{name} --ablate {spec} ({mode}): the reference barely changes; the check proves nothing")


def check_ablated_generate(name, prompt, count, heads):
    d = os.path.join(workdir, name)
    spec = ",".join(f"{l}.{h}" for l, h in heads)
    out = output_of("--generate", d, "--sequence", " ".join(map(str, prompt)), "--tokens", str(count), "--ablate", spec)
    if out is None:
        return
    ids = list(prompt)
    for _ in range(count):
        logits, _ = reference(d, ids, [(l - 1, h - 1) for l, h in heads])
        top = np.sort(logits[-1])[::-1]
        if top[0] - top[1] < 1e-4:
            return  # a near tie: float32 may fairly pick either
        ids.append(int(np.argmax(logits[-1])))
    if out["ids"] != ids[len(prompt):]:
        fail(f"{name} --generate --ablate {spec}: {out['ids']}, the reference gives {ids[len(prompt):]}")


def check_rollout(name, ids):
    d = os.path.join(workdir, name)
    out = output_of("--rollout", d, "--sequence", " ".join(map(str, ids)))
    if out is not None:
        close(f"{name} --rollout", out["rollout"], rollout(reference(d, ids)[1]))


def check_importance(name, ids):
    d = os.path.join(workdir, name)
    out = output_of("--head-importance", d, "--sequence", " ".join(map(str, ids)))
    if out is None:
        return
    logits, att = reference(d, ids)
    base = loss(logits, np.array(ids))
    L, H = att.shape[:2]
    if len(out) != L * H:
        return fail(f"{name} --head-importance: {len(out)} rows for {L} × {H} heads")
    for row in out:
        l, h = row["layer"], row["head"]
        want = loss(reference(d, ids, [(l - 1, h - 1)])[0], np.array(ids)) - base
        if abs(row["delta_loss"] - want) > 1e-4 * max(1.0, base):
            fail(f"{name} --head-importance layer {l} head {h}: {row['delta_loss']}, the reference gives {want}")


def check_bad_ablate():
    d = os.path.join(workdir, "gpt2")
    for spec, words in (("3.1", ["3.1", "2 layers"]), ("1.3", ["1.3", "2 heads"]), ("0.1", ["0.1"]), ("a.b", ["a.b"]),
                        ("1.2,", ["--ablate"]), ("1-2", ["1-2"]), ("", ["--ablate"])):
        r = run("--forward", d, "--sequence", "1 2 3", "--ablate", spec)
        lines = r.stderr.strip().split("\n")
        if r.returncode != 2 or len(lines) != 1 or r.stdout or not all(w in lines[0] for w in words):
            fail(f"--ablate {spec!r}: exit {r.returncode}, stderr {r.stderr!r} (want exit 2 and one line naming {words})")
    r = run("--forward", d, "--sequence", "1 2 3", "--ablate", "1.1", "--ablate-mode", "median")
    if r.returncode != 2 or "median" not in r.stderr:
        fail(f"--ablate-mode median: exit {r.returncode}, {r.stderr!r}")
    r = run("--head-importance", os.path.join(workdir, "bert"), "--sequence", "2 4 3")
    if r.returncode != 2 or "next-token" not in r.stderr:
        fail(f"--head-importance on BERT: exit {r.returncode}, {r.stderr!r}")


def main():
    write_fixtures()
    rng = np.random.default_rng(8)
    for name in ("gpt2", "llama_gqa", "bert", "gemma2", "gemma3_text", "gemma3", "qwen3", "phi3", "qwen3_yarn", "smollm3", "olmo2",
                 "olmo3", "gpt_oss"):
        ids = rng.integers(3, min(vocab_size(name), 40), 9).tolist()
        ids[5:8] = ids[1:4]  # a repeat: duplicate and induction rows
        check_heads(name, ids, output_of("--heads", os.path.join(workdir, name), "--sequence", " ".join(map(str, ids))))
        check_rollout(name, ids)
        for mode in ("zero", "mean"):
            check_ablated_forward(name, ids, [(1, 2), (2, 1)], mode)
        if name != "bert":
            check_importance(name, ids)
            check_ablated_generate(name, ids[:4], 5, [(2, 2)])
    check_probe("gpt2", 6, 3)
    check_probe("llama_gqa", 5, 1)
    check_probe("gemma2", 5, 2)
    check_bad_ablate()
    finish("scores, rollout, ablations and head importance match the NumPy reference")


main()
