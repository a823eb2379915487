#!/usr/bin/python3
"""Why heads attend where they do, against NumPy: `attnviz --composition` and `--qk` on every
fixture of tests/fixtures/make_checkpoints.py.

The composition scores are written here from their definition (Elhage et al., 2021), with the full
d_model × d_model matrices, row-vector convention: W_QK = W_Q W_Kᵀ, W_OV = W_V W_O, the preceding
norm's γ multiplied into the rows of W_Q, W_K and W_V; K-composition ‖W_OV¹ W_QK²ᵀ‖ / (‖W_OV¹‖ ‖W_QK²‖),
Q-composition with W_QK², V-composition with W_OV². The weights are read with model_numpy_test.py's
safetensors reader, which shares no code with attnviz.

QK attribution: the softmax of a row of attributed scores (soft-capped where the head caps, beside the
learned sink's logit where the head has one) is the head's row of the NumPy reference forward and of
--forward; Σ pairs + bias is the score; and on the
first layer every pair, the bias and the score are those of a NumPy decomposition of the embeddings
through the frozen norms, W_Q / W_K, the q/k norms and RoPE, written here from the definitions.
usage: qk_numpy_test.py ATTNVIZ WORKDIR"""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import model_numpy_test as ref  # noqa: E402
from cli_numpy import fail, finish, output_of, run, vocab_size, workdir, write_fixtures  # noqa: E402

FIXTURES = ("gpt2", "gpt2_prefixed", "llama_gqa", "qwen2", "llama_sharded", "mistral", "bert", "bert_base", "gemma2",
            "gemma3_text", "gemma3", "qwen3", "qwen3_sliding", "phi3", "phi4_mini", "llama32", "smollm2", "qwen25", "tinyllama",
            "qwen3_yarn", "smollm3", "olmo2", "olmo3", "gpt_oss")


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
        g = w.get(f"{prefix}layers.{l}.input_layernorm.weight", np.ones(c["hidden_size"]))  # OLMo 2: no norm before attention
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


# ---- QK attribution ------------------------------------------------------------------------------

def rotate_rows(x, p, inv, scale):
    dim = 2 * len(inv)
    cos, sin = np.cos(np.concatenate([p * inv, p * inv])) * scale, np.sin(np.concatenate([p * inv, p * inv])) * scale
    r, rest = x[:, :dim], x[:, dim:]
    rotated = np.concatenate([-r[:, dim // 2:], r[:, :dim // 2]], -1)
    return np.concatenate([r * cos + rotated * sin, rest], -1)


def frozen(parts, p, kind, g, b, eps):
    """Row p of each part (dict name -> (t, D)) through a norm frozen at their sum's scale; β into "biases"."""
    rows = {n: v[p].copy() for n, v in parts.items()}
    if kind is None:
        return rows
    x = sum(rows.values())
    mean = x.mean() if kind == "layer" else 0.0
    inverse = 1 / np.sqrt(((x - mean) ** 2).mean() + eps)
    rows = {n: ((v - v.mean()) if kind == "layer" else v) * inverse * g for n, v in rows.items()}
    if b is not None:
        rows["biases"] = rows.get("biases", 0) + b
    return rows


def first_layer(d, ids):
    """What layer 1's heads read, in NumPy: the stream's parts (t, D) at its input, the norm before the
    attention, and per head (W_Q, b_Q, W_K, b_K (kv head's), q/k norm γ, eps), the rotation and the scale."""
    c = json.load(open(os.path.join(d, "config.json")))
    w = ref.read_weights(d)
    arch, t = c["architectures"][0], len(ids)
    if arch.startswith("GPT2"):
        p = "transformer." if "transformer.wte.weight" in w else ""
        D, H = c["n_embd"], c["n_head"]
        dh = D // H
        A, B = w[p + "h.0.attn.c_attn.weight"], w[p + "h.0.attn.c_attn.bias"]
        heads = [(A[:, h * dh:(h + 1) * dh], B[h * dh:(h + 1) * dh], A[:, D + h * dh:D + (h + 1) * dh], B[D + h * dh:D + (h + 1) * dh], None)
                 for h in range(H)]
        parts = {"token embedding": w[p + "wte.weight"][ids], "position embedding": w[p + "wpe.weight"][:t]}
        return parts, ("layer", w[p + "h.0.ln_1.weight"], w[p + "h.0.ln_1.bias"], c["layer_norm_epsilon"]), heads, None, 1.0, dh ** -0.5
    if arch.startswith("Bert"):
        w = {k.replace("LayerNorm.gamma", "LayerNorm.weight").replace("LayerNorm.beta", "LayerNorm.bias"): v for k, v in w.items()}
        p = "bert." if "bert.embeddings.word_embeddings.weight" in w else ""
        e, H, D = p + "embeddings.", c["num_attention_heads"], c["hidden_size"]
        dh = D // H
        raw = {"token embedding": w[e + "word_embeddings.weight"][ids], "position embedding": w[e + "position_embeddings.weight"][:t],
               "biases": np.tile(w[e + "token_type_embeddings.weight"][0], (t, 1))}
        rows = [frozen(raw, i, "layer", w[e + "LayerNorm.weight"], w[e + "LayerNorm.bias"], c["layer_norm_eps"]) for i in range(t)]
        parts = {n: np.array([r[n] for r in rows]) for n in raw}
        s = p + "encoder.layer.0.attention.self."
        heads = [(w[s + "query.weight"][h * dh:(h + 1) * dh].T, w[s + "query.bias"][h * dh:(h + 1) * dh],
                  w[s + "key.weight"][h * dh:(h + 1) * dh].T, w[s + "key.bias"][h * dh:(h + 1) * dh], None) for h in range(H)]
        return parts, (None, None, None, 0), heads, None, 1.0, dh ** -0.5
    gemma = arch.startswith("Gemma")
    prefix = "model."
    if gemma:
        kind, c, prefix = ref.gemma_text_config(c)
        if prefix == "language_model.model." and "model.language_model.embed_tokens.weight" in w:
            prefix = "model.language_model."
    H = c["num_attention_heads"]
    KV = c.get("num_key_value_heads", H)
    dh = c.get("head_dim") or c["hidden_size"] // H
    b = prefix + "layers.0.self_attn."
    lin = {}
    if b + "qkv_proj.weight" in w:
        F = w[b + "qkv_proj.weight"]
        lin["q"], lin["k"] = F[:H * dh], F[H * dh:(H + KV) * dh]
    else:
        lin["q"], lin["k"] = w[b + "q_proj.weight"], w[b + "k_proj.weight"]
    bias = {n: w.get(b + n + "_proj.bias", np.zeros(lin[n].shape[0])) for n in ("q", "k")}
    one = 1.0 if gemma else 0.0
    qk_norm = (one + w[b + "q_norm.weight"], one + w[b + "k_norm.weight"]) if b + "q_norm.weight" in w else None
    eps = c["rms_norm_eps"]
    whole = qk_norm is not None and len(qk_norm[0]) == H * dh and H > 1  # OLMo 2: over the whole projection
    heads = []
    for h in range(H):
        g = h // (H // KV)
        norms = None
        if whole:  # each side's γ of its head, and the whole projection the RMS runs over
            norms = ((qk_norm[0][h * dh:(h + 1) * dh], eps, lin["q"].T, bias["q"], h * dh),
                     (qk_norm[1][g * dh:(g + 1) * dh], eps, lin["k"].T, bias["k"], g * dh))
        elif qk_norm is not None:
            norms = ((qk_norm[0], eps), (qk_norm[1], eps))
        heads.append((lin["q"][h * dh:(h + 1) * dh].T, bias["q"][h * dh:(h + 1) * dh], lin["k"][g * dh:(g + 1) * dh].T,
                      bias["k"][g * dh:(g + 1) * dh], norms))
    embed = w[prefix + "embed_tokens.weight"][ids]
    if gemma:
        embed = embed * float(np.float32(np.sqrt(c["hidden_size"])))
        sliding = c["layer_types"][0] == "sliding_attention"
        theta = c.get("rope_local_base_freq") if kind == "gemma3_text" and sliding else c["rope_theta"]
        inv = ref.rope_inv_freq({"rope_theta": theta, "rope_scaling": None if sliding and kind == "gemma3_text" else c.get("rope_scaling")}, dh)
        scale, rope_scale = c["query_pre_attn_scalar"] ** -0.5, 1.0
    else:
        inv, rope_scale = ref.rope_inv_freq(c, int(dh * c.get("partial_rotary_factor", 1.0))), ref.rope_attention_factor(c)
        scale = dh ** -0.5
    if prefix + "layers.0.input_layernorm.weight" not in w:  # OLMo 2: the stream straight into the projections
        return {"token embedding": embed}, (None, None, None, 0), heads, inv, rope_scale, scale
    g = w[prefix + "layers.0.input_layernorm.weight"]
    return {"token embedding": embed}, ("rms", one + g, None, eps), heads, inv, rope_scale, scale


def side(parts, p, norm, W, b, qk_norm, inv, rope_scale):
    """Each component's q (or k) at position p and the bias's, after the frozen norms and the rotation."""
    rows = frozen(parts, p, *norm)
    names = list(rows)
    Q, qb = np.array([rows[n] @ W for n in names]), b.copy()
    if qk_norm is not None and len(qk_norm) == 2:
        g, eps = qk_norm
        r = np.sqrt(((Q.sum(0) + qb) ** 2).mean() + eps)
        Q, qb = Q * g / r, qb * g / r
    elif qk_norm is not None:  # the RMS over every head's values of the real q (or k)
        g, eps, W_all, b_all, _ = qk_norm
        r = np.sqrt(((sum(rows.values()) @ W_all + b_all) ** 2).mean() + eps)
        Q, qb = Q * g / r, qb * g / r
    if inv is not None:
        Q, qb = rotate_rows(Q, p, inv, rope_scale), rotate_rows(qb[None], p, inv, rope_scale)[0]
    return names, Q, qb


def qk_reference(d, ids, h, i, j):
    """Layer 1, head h (from 0): {name: {name: pair}}, bias and score of query i, key j (from 0)."""
    parts, norm, heads, inv, rope_scale, scale = first_layer(d, ids)
    Wq, bq, Wk, bk, qk = heads[h]
    names, Q, qb = side(parts, i, norm, Wq, bq, qk and qk[0], inv, rope_scale)
    _, K, kb = side(parts, j, norm, Wk, bk, qk and qk[1], inv, rope_scale)
    pairs = scale * Q @ K.T
    bias = scale * (qb @ K.sum(0) + Q.sum(0) @ kb + qb @ kb)
    return names, pairs, bias, pairs.sum() + bias


def softcap_of(d):
    c = json.load(open(os.path.join(d, "config.json")))
    return ref.gemma_text_config(c)[1]["attn_logit_softcapping"] if c["architectures"][0] == "Gemma2ForCausalLM" else None


def check_pairs(name, d, seq, ids, head, i, j, row_score):
    """--key j: Σ pairs + bias is the score and the row's; on layer 1 each pair is NumPy's."""
    got = output_of("--qk", d, "--sequence", seq, "--head", head, "--query", str(i + 1), "--key", str(j + 1))
    if got is None:
        return
    pairs, where = np.array(got["pairs"], np.float64), f"{name} --qk --head {head} --query {i + 1} --key {j + 1}"
    size = max(np.abs(pairs).max(), abs(got["score"]), 1e-30)
    if not abs(pairs.sum() + got["bias"] - got["score"]) <= 1e-6 * size or not abs(got["score"] - row_score) <= 1e-6 * size:
        fail(f"{where}: Σ pairs + bias = {pairs.sum() + got['bias']}, score {got['score']}, the row's {row_score}")
    if not got["top"] or " × key's " not in got["top"][0]:
        fail(f"{where}: top pairs {got['top']!r}")
    if head.split(".")[0] != "1":
        return
    names, theirs, bias, score = qk_reference(d, ids, int(head.split(".")[1]) - 1, i, j)
    order = [got["components"].index(n) if n in got["components"] else -1 for n in names]
    if -1 in order or len(got["components"]) != len(names):
        return fail(f"{where}: components {got['components']}, the reference has {names}")
    ours = pairs[np.ix_(order, order)]
    scale = max(np.abs(theirs).max(), abs(score))
    err = max(np.abs(ours - theirs).max(), abs(got["bias"] - bias), abs(got["score"] - score)) / scale
    if not err <= 1e-4:
        fail(f"{where}: pairs, bias or score {err:.3g} of the largest from NumPy's")


def check_qk(name, ids):
    """Each row of a few heads: the visible keys, and the softmax of the attributed scores is the head's row."""
    d, seq = os.path.join(workdir, name), " ".join(map(str, ids))
    _, att = ref.reference(d, ids)
    ours = output_of("--forward", d, "--sequence", seq)
    if ours is None:
        return
    L, H, t, cap = att.shape[0], att.shape[1], len(ids), softcap_of(d)
    for l, h in ((1, 1), (L, H)):
        for i in (t - 1, t // 2):
            head = f"{l}.{h}"
            row = output_of("--qk", d, "--sequence", seq, "--head", head, "--query", str(i + 1))
            if row is None:
                continue
            keys, visible = [j - 1 for j in row["keys"]], [j for j in range(t) if att[l - 1, h - 1, i, j] > 0]
            if keys != visible or row["head"] != head or row["query"] != i + 1:
                fail(f"{name} --qk --head {head} --query {i + 1}: keys {keys}, the head sees {visible}")
                continue
            s = np.array(row["scores"], np.float64)
            a = ref.softmax(ref.softcap(s, cap))
            if "sink" in row:  # a learned sink's logit joins the softmax and passes no value
                a = ref.softmax(np.append(s, row["sink"]))[:-1]
            for what, theirs, rel in (("NumPy's", att[l - 1, h - 1, i, keys], 1e-4),
                                      ("--forward's", np.array(ours["attention"][l - 1][h - 1][i])[keys], 1e-5)):
                err = np.abs(a - theirs).max()
                if not err <= rel:
                    fail(f"{name} --qk --head {head} --query {i + 1}: softmax of the scores differs from {what} row by {err:.3g}")
            for j in sorted({keys[0], keys[len(keys) // 2], keys[-1]}):
                check_pairs(name, d, seq, ids, head, i, j, row["scores"][keys.index(j)])


def refused(args, words):
    """attnviz ARGS exits 2 after one line that has each of `words`."""
    r = run(*args)
    lines = r.stderr.strip().splitlines()
    if r.returncode != 2 or len(lines) != 1 or not all(w in r.stderr for w in words):
        fail(f"{' '.join(args)}: exit {r.returncode}, {r.stderr!r}; wanted exit 2 and one line with {words}")


def check_bad_inputs():
    gpt2 = os.path.join(workdir, "gpt2")
    refused(["--composition", gpt2, "--kind", "x"], ["--kind", "q, k or v"])
    refused(["--composition", os.path.join(workdir, "none")], ["none"])
    refused(["--composition", gpt2, "--top", "3"], ["--top"])
    refused(["--composition"], ["--composition needs a value"])
    qk = ["--qk", gpt2, "--sequence", "5 6 7 8"]
    refused(qk + ["--head", "3.1", "--query", "2"], ["--head", "3.1"])
    refused(qk + ["--head", "1.1", "--query", "5"], ["--query", "from 1 to 4", "\"5\""])
    refused(qk + ["--head", "1.1", "--query", "2", "--key", "3"], ["--key 3", "does not see"])
    refused(qk + ["--head", "1.1"], ["--query"])
    refused(qk + ["--head", "1.1", "--query", "0"], ["--query"])
    refused(qk + ["--head", "1.1", "--query", "1", "--kind", "k"], ["--kind"])
    refused(["--qk", gpt2, "--head", "1.1", "--query", "1"], ["--text", "--sequence"])


def main():
    write_fixtures()
    rng = np.random.default_rng(32)
    for name in FIXTURES:
        check_composition(name)
        check_qk(name, rng.integers(3, min(vocab_size(name), 300), 10).tolist())
    check_bad_inputs()
    finish("composition scores and QK attributions match the NumPy reference on every fixture")


main()
