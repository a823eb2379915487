#!/usr/bin/python3
"""GGUF files against NumPy: the fixtures of make_checkpoints.py written by make_gguf.py in every
tensor type (F32, F16, BF16, Q8_0, Q4_0, Q4_1, Q5_0, Q5_1, Q2_K … Q6_K, IQ4_NL, IQ4_XS, MXFP4, and a
file mixing them per tensor), read back here with a GGUF reader and dequantizer of this file's own (from
the format: ggml-common.h's blocks, ggml-quants.c's dequantize_row_*), then

- each weight attnviz reads (`attnviz --tensor`) equals this dequantizer's, bit for bit, in
  transformers' layout (Llama's q/k rows unpermuted, GPT-2's matrices transposed back, Gemma's
  norms less one);
- `attnviz --forward` on each file equals model_numpy_test.py's NumPy forward of those weights to
  1e-4, with llama.cpp's constants where its files carry no key (Gemma 2's score scale), and
  `--text` goes through the tokenizer inside the file (GPT-2's);
- on F32 files every model tool (--forward, --generate, --heads, --head-importance, --rollout,
  --export-attention) gives the same numbers as on the safetensors checkpoint, to 1e-4;
- bad files (truncated, bad magic, version, architecture, tensor type — I8, and IQ2_XXS, which
  attnviz does not read —, missing tensor, a shape the metadata contradicts; for qwen3moe an
  expert_count its experts contradict, a missing expert tensor, a router of the wrong shape; the same
  for gpt-oss) exit 2
  with one line naming the file.
usage: gguf_numpy_test.py ATTNVIZ WORKDIR"""
import concurrent.futures
import json
import math
import os
import struct
import subprocess
import sys

import numpy as np

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
sys.path.insert(0, os.path.join(here, "fixtures"))
import make_gguf  # noqa: E402  the fixtures' writer: names and layouts only, never its blocks
import model_numpy_test as ref  # noqa: E402  the NumPy forward passes

attnviz, workdir = sys.argv[1], sys.argv[2]
failures = []


def fail(message):
    failures.append(message)
    print("gguf_numpy_test: FAIL " + message, file=sys.stderr)


# ---- a GGUF reader and ggml's dequantizers -------------------------------------------------------

SCALAR = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}


def read_value(raw, pos, kind):
    if kind == 8:
        n = struct.unpack_from("<Q", raw, pos)[0]
        return raw[pos + 8:pos + 8 + n].decode(), pos + 8 + n
    if kind == 9:
        item, n = struct.unpack_from("<IQ", raw, pos)
        pos += 12
        out = []
        for _ in range(n):
            v, pos = read_value(raw, pos, item)
            out.append(v)
        return out, pos
    fmt = SCALAR[kind]
    return struct.unpack_from(fmt, raw, pos)[0], pos + struct.calcsize(fmt)


def read_gguf(path):
    """metadata, {name: (shape outermost first, ggml type, bytes)}"""
    raw = open(path, "rb").read()
    version, tensors, keys = struct.unpack_from("<IQQ", raw, 4)
    pos, meta = 24, {}
    for _ in range(keys):
        key, pos = read_value(raw, pos, 8)
        kind = struct.unpack_from("<I", raw, pos)[0]
        meta[key], pos = read_value(raw, pos + 4, kind)
    table = []
    for _ in range(tensors):
        name, pos = read_value(raw, pos, 8)
        dims = struct.unpack_from("<I", raw, pos)[0]
        ne = struct.unpack_from(f"<{dims}Q", raw, pos + 4)
        kind, offset = struct.unpack_from("<IQ", raw, pos + 4 + 8 * dims)
        pos += 4 + 8 * dims + 12
        table.append((name, tuple(reversed(ne)), kind, offset))
    align = meta.get("general.alignment", 32)
    start = pos + (-pos) % align
    return meta, {n: (shape, kind, raw[start + off:]) for n, shape, kind, off in table}


def half(b):
    return np.frombuffer(b, "<f2").astype(np.float32)


def k_scale_min(s):
    """(8 scales, 8 mins) of a K-quant's 12 bytes: j < 4 the low 6 bits of bytes j and j + 4; else the
    nibbles of byte j + 4 with the top 2 bits of bytes j − 4 and j."""
    sc, m = np.zeros(8, np.float32), np.zeros(8, np.float32)
    for j in range(8):
        if j < 4:
            sc[j], m[j] = s[j] & 63, s[j + 4] & 63
        else:
            sc[j] = (s[j + 4] & 15) | ((s[j - 4] >> 6) << 4)
            m[j] = (s[j + 4] >> 4) | ((s[j] >> 6) << 4)
    return sc, m


def nibbles_k(qs):
    """qs[128] → 256 levels: 64-value chunk c is qs[32c:32c+32]'s low nibbles, then its high ones."""
    return np.concatenate([np.concatenate([qs[32 * c:32 * c + 32] & 15, qs[32 * c:32 * c + 32] >> 4]) for c in range(4)])


IQ4NL = np.array([-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113], np.float32)  # kvalues_iq4nl
MXFP4_VALUES = np.array([0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12], np.float32)  # E2M1, doubled


def split_nibbles(qs):
    """16 bytes → 32 nibbles: the low nibbles (values 0 … 15), then the high ones."""
    return np.concatenate([qs & 15, qs >> 4])


def bit_planes(qs, h):
    """The 2-bit values 128h … 128h + 127 of Q2_K / Q3_K: bits 2r of qs[32h:32h+32], r = 0 … 3."""
    return np.concatenate([(qs[32 * h:32 * h + 32] >> (2 * r)) & 3 for r in range(4)])


def dequant_legacy(kind, b):
    """Q4_1 (d, m, qs[16]), Q5_0 (d, qh u32, qs[16]), Q5_1 (d, m, qh, qs), IQ4_NL (d, qs[16]),
    MXFP4 (e, qs[16]); each 32 values, qh's bit j the fifth bit of value j."""
    if kind == 39:
        e = int(b[0])
        d = np.array([2.0 ** (e - 128)], np.float32)[0]  # E8M0 halved: the values are doubled
        return MXFP4_VALUES[split_nibbles(np.frombuffer(b[1:17], np.uint8))] * d
    if kind == 20:
        return half(b[:2])[0] * IQ4NL[split_nibbles(np.frombuffer(b[2:18], np.uint8))]
    with_min, five = kind in (3, 7), kind in (6, 7)
    d = half(b[:2])[0]
    at = 4 if with_min else 2
    q = split_nibbles(np.frombuffer(b[at + 4 * five:at + 4 * five + 16], np.uint8)).astype(np.int32)
    if five:
        qh = struct.unpack_from("<I", b, at)[0]
        q |= np.array([(qh >> j) & 1 for j in range(32)], np.int32) << 4
    if with_min:
        return q.astype(np.float32) * d + half(b[2:4])[0]
    return (q - 16).astype(np.float32) * d


def dequant_k_low(kind, b):
    """Q2_K (scales[16], qs[64], d, dmin) and Q3_K (hmask[32], qs[64], scales[12], d): 16 sub-blocks
    of 16, dl = d · scale per sub-block, then dl · q (− dmin · min for Q2_K)."""
    out = np.zeros(256, np.float32)
    if kind == 10:
        sc, qs = np.frombuffer(b[:16], np.uint8), np.frombuffer(b[16:80], np.uint8)
        d, dmin = half(b[80:82])[0], half(b[82:84])[0]
        q = np.concatenate([bit_planes(qs, 0), bit_planes(qs, 1)]).astype(np.float32)
        for s in range(16):
            out[16 * s:16 * s + 16] = d * np.float32(sc[s] & 15) * q[16 * s:16 * s + 16] - dmin * np.float32(sc[s] >> 4)
        return out
    hmask, qs, raw = np.frombuffer(b[:32], np.uint8), np.frombuffer(b[32:96], np.uint8), np.frombuffer(b[96:108], np.uint8)
    d = half(b[108:110])[0]
    q = np.concatenate([bit_planes(qs, 0), bit_planes(qs, 1)]).astype(np.int32)
    high = np.array([(hmask[v % 32] >> (v // 32)) & 1 for v in range(256)], np.int32)
    q = q - 4 * (1 - high)  # a clear high bit: less 4
    for s in range(16):
        low = raw[s] & 15 if s < 8 else raw[s - 8] >> 4
        scale = int(low | (((raw[8 + s % 4] >> (2 * (s // 4))) & 3) << 4)) - 32
        out[16 * s:16 * s + 16] = (d * np.float32(scale)) * q[16 * s:16 * s + 16].astype(np.float32)
    return out


def dequant_iq4_xs(b):
    """d, scales_h (u16), scales_l[4], qs[128]: 8 sub-blocks of 32, each scale 6 bits less 32."""
    d, high = half(b[:2])[0], struct.unpack_from("<H", b, 2)[0]
    low, qs = np.frombuffer(b[4:8], np.uint8), np.frombuffer(b[8:136], np.uint8)
    out = np.zeros(256, np.float32)
    for i in range(8):
        scale = int(((low[i // 2] >> (4 * (i % 2))) & 15) | (((high >> (2 * i)) & 3) << 4)) - 32
        out[32 * i:32 * i + 32] = (d * np.float32(scale)) * IQ4NL[split_nibbles(qs[16 * i:16 * i + 16])]
    return out


def dequant_block(kind, b):
    if kind == 8:  # Q8_0: d, 32 int8
        return half(b[:2]) * np.frombuffer(b[2:34], np.int8).astype(np.float32)
    if kind == 2:  # Q4_0: d, 16 bytes, low nibbles first
        q = np.frombuffer(b[2:18], np.uint8)
        return half(b[:2]) * (np.concatenate([q & 15, q >> 4]).astype(np.float32) - 8)
    if kind in (12, 13):  # Q4_K / Q5_K: d, dmin, scales[12], (qh[32],) qs[128]
        d, dmin = half(b[:2])[0], half(b[2:4])[0]
        sc, m = k_scale_min(np.frombuffer(b[4:16], np.uint8))
        qh = np.frombuffer(b[16:48], np.uint8) if kind == 13 else None
        q = nibbles_k(np.frombuffer(b[48:176] if kind == 13 else b[16:144], np.uint8)).astype(np.float32)
        if kind == 13:
            q += 16 * np.concatenate([(qh >> s) & 1 for s in range(8)]).astype(np.float32)
        return np.concatenate([d * sc[s] * q[32 * s:32 * s + 32] - dmin * m[s] for s in range(8)]).astype(np.float32)
    if kind == 14:  # Q6_K: ql[128], qh[64], scales int8[16], d
        ql, qh = np.frombuffer(b[:128], np.uint8), np.frombuffer(b[128:192], np.uint8)
        sc, d = np.frombuffer(b[192:208], np.int8).astype(np.float32), half(b[208:210])[0]
        out = np.zeros(256, np.float32)
        for h in range(2):
            l, hi = ql[64 * h:64 * h + 64], qh[32 * h:32 * h + 32]
            parts = [(l[:32] & 15), (l[32:] & 15), (l[:32] >> 4), (l[32:] >> 4)]
            for k in range(4):
                q = (parts[k] | (((hi >> (2 * k)) & 3) << 4)).astype(np.float32) - 32
                idx = 128 * h + 32 * k + np.arange(32)
                out[idx] = d * sc[idx // 16] * q
        return out
    if kind in (3, 6, 7, 20, 39):
        return dequant_legacy(kind, b)
    if kind in (10, 11):
        return dequant_k_low(kind, b)
    if kind == 23:
        return dequant_iq4_xs(b)
    raise ValueError(kind)


BLOCK = {8: (32, 34), 2: (32, 18), 12: (256, 144), 13: (256, 176), 14: (256, 210), 3: (32, 20), 6: (32, 22), 7: (32, 24),
         10: (256, 84), 11: (256, 110), 20: (32, 18), 23: (256, 136), 39: (32, 17)}


def dequantize(shape, kind, data):
    n = int(np.prod(shape))
    if kind == 0:
        a = np.frombuffer(data[:4 * n], "<f4").astype(np.float32)
    elif kind == 1:
        a = np.frombuffer(data[:2 * n], "<f2").astype(np.float32)
    elif kind == 30:
        a = (np.frombuffer(data[:2 * n], "<u2").astype(np.uint32) << 16).view(np.float32)
    else:
        values, size = BLOCK[kind]
        a = np.concatenate([dequant_block(kind, data[i * size:(i + 1) * size]) for i in range(n // values)])
    return a.reshape(shape)


def unpermute(w, heads):
    """The inverse of LlamaModel.permute: each head's rows (dh/2, 2) back to (2, dh/2)."""
    return w.reshape(heads, w.shape[0] // heads // 2, 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def transformers_weights(c, hf_names, gguf_path):
    """The fixture's weights as the GGUF file holds them, dequantized here: (held, w), held in
    transformers' row order (as attnviz holds them), w also in transformers' layout."""
    arch = make_gguf.ARCHS[c["architectures"][0]]
    H = c.get("num_attention_heads", c.get("n_head"))
    KV = c.get("num_key_value_heads", H)
    _, tensors = read_gguf(gguf_path)
    held, w = {}, {}
    for name in hf_names:
        g = make_gguf.gguf_name(name, arch)
        if g is None:
            continue
        t = dequantize(*tensors[g]).astype(np.float64)
        if arch in ("llama", "smollm3") and (".attn_q." in g or ".attn_k." in g):
            t = unpermute(t, H if ".attn_q." in g else KV)
        held[name + ".weight" if g.endswith("attn_sinks.weight") else name] = t  # attnviz's name of a GGUF sink
        if arch == "gpt2" and t.ndim == 2 and not g.startswith(("token_embd", "position_embd")):
            t = t.T
        if arch.startswith("gemma") and g.endswith("norm.weight"):
            t = t - 1  # in float64: exact for these values
        w[name] = t
    if arch == "qwen3moe":
        unstack_experts(c, tensors, held, w)
    if arch == "gpt-oss":
        gpt_oss_experts(c, tensors, held, w)
    return held, w


def gpt_oss_experts(c, tensors, held, w):
    """gpt-oss's ffn_{gate,up,down}_exps (experts, out, in) and their (experts, out) biases under the names
    attnviz reads them by, which the reference's gpt_oss_experts also takes."""
    for l in range(c["num_hidden_layers"]):
        for name, g in (("gate_proj", "ffn_gate_exps"), ("up_proj", "ffn_up_exps"), ("down_proj", "ffn_down_exps")):
            for suffix in ("weight", "bias"):
                t = dequantize(*tensors[f"blk.{l}.{g}.{suffix}"]).astype(np.float64)
                held[f"model.layers.{l}.mlp.experts.{name}.{suffix}"] = w[f"model.layers.{l}.mlp.experts.{name}.{suffix}"] = t


def unstack_experts(c, tensors, held, w):
    """Each layer's stacked ffn_{gate,up,down}_exps (experts, out, in): held whole under the name attnviz
    reads it by, and expert e's matrix under transformers' per-expert name."""
    for l in range(c["num_hidden_layers"]):
        for name, g in (("gate_proj", "ffn_gate_exps"), ("up_proj", "ffn_up_exps"), ("down_proj", "ffn_down_exps")):
            t = dequantize(*tensors[f"blk.{l}.{g}.weight"]).astype(np.float64)
            held[f"model.layers.{l}.mlp.experts.{name}.weight"] = t
            for e in range(c["num_experts"]):
                w[f"model.layers.{l}.mlp.experts.{e}.{name}.weight"] = t[e]


# ---- the checks ----------------------------------------------------------------------------------

def run(*args):
    return subprocess.run([attnviz, *args], capture_output=True, text=True)


def check_tensors(label, path, w):
    """attnviz's view of every weight of layer 0 and outside the layers equals ours, bit for bit:
    one `--tensor` run for them all, a JSON line each in the order asked."""
    names = [n for n in w if not (".layers.1." in n or ".h.1." in n or n.startswith("h.1."))]
    r = run("--tensor", path, *names)
    if r.returncode != 0:
        return fail(f"{label}: --tensor exited {r.returncode}: {r.stderr.strip()}")
    lines = r.stdout.splitlines()
    if len(lines) != len(names):
        return fail(f"{label}: --tensor printed {len(lines)} lines for {len(names)} names")
    for name, line in zip(names, lines):
        got, ours = json.loads(line), w[name]
        if got["name"] != name:
            fail(f"{label}: --tensor printed {got['name']} where {name} was asked")
            continue
        theirs = np.array(got["values"], np.float32).reshape(got["shape"])
        if theirs.shape != ours.shape or not np.array_equal(theirs, ours.astype(np.float32)):
            bad = np.argwhere(theirs != ours.astype(np.float32))[:1] if theirs.shape == ours.shape else "shape"
            fail(f"{label}: {name} ({got['type']}) differs from the NumPy dequantizer, first at {bad}")


# The fast products' difference from the exact run always allowed (check_fast): the fixtures' random
# weights give peaked attention that small changes move far; measured with AVX512-BF16 and AMX up to
# 0.13 for attention and 0.04 for probabilities (tinyllama and phi3 Q4_0), more only where the
# weights' own rounding moves them more than half as much. The products' arithmetic itself is
# checked to the bit in tests/test_fast_products.cpp.
FAST_BOUND = 0.2


def reference_config(c):
    """The config whose transformers forward a llama.cpp file runs: Gemma 2's score scale is
    1/√head_dim there (its files carry no query_pre_attn_scalar)."""
    c = dict(c)
    if c["architectures"][0] == "Gemma2ForCausalLM":
        c["query_pre_attn_scalar"] = c["head_dim"]
    s = c.get("rope_scaling") or {}
    if s.get("rope_type") == "yarn":  # ggml always rounds the correction range; llama.cpp's cos and sin take
        # 0.1 ln factor + 1 times the file's rope.scaling.attn_factor
        given = s.get("attention_factor", 1.0)
        c["rope_scaling"] = dict({k: v for k, v in s.items() if k != "truncate"}, attention_factor=(0.1 * math.log(s["factor"]) + 1) * given)
    if c["architectures"][0] == "Qwen3MoeForCausalLM":  # llama.cpp's qwen3moe renormalises the chosen weights always
        c["norm_topk_prob"] = True
    if c["architectures"][0] == "GptOssForCausalLM":  # llama.cpp: the window on the even layers, the clamp 7
        c["layer_types"] = ["sliding_attention" if l % 2 == 0 else "full_attention" for l in range(c["num_hidden_layers"])]
        c["swiglu_limit"] = 7.0
    return c


def forward_of(c, w, ids):
    arch = c["architectures"][0]
    forward = ref.gpt2_forward if arch.startswith("GPT2") else ref.gemma_forward if arch.startswith("Gemma") else ref.llama_forward
    return forward(reference_config(c), w, list(ids))


def check_forward(label, path, c, w, ids):
    r = run("--forward", path, "--sequence", " ".join(map(str, ids)))
    if r.returncode != 0:
        return fail(f"{label}: --forward exited {r.returncode}: {r.stderr.strip()}")
    out = json.loads(r.stdout)
    logits, att = forward_of(c, w, ids)
    ref.close(f"{label} logits", logits, out["logits"])
    ref.close(f"{label} attention", att, out["attention"])
    if "num_experts" in c or "num_local_experts" in c:
        routing, sinks = [], []
        ref.llama_forward(reference_config(c), w, list(ids), routing=routing, sinks=sinks)
        ref.check_routing(label, routing, out.get("experts", []))
        if sinks:  # gpt-oss
            ref.close(f"{label} sink shares", np.array(sinks), np.array(out.get("sink", [])))
    collect()


def collect():
    """The failures model_numpy_test's close() recorded, as ours."""
    failures.extend(ref.failures)
    del ref.failures[:]


def same_output(label, gguf, checkpoint, args, keys):
    a, b = run(*args[0], gguf, *args[1]), run(*args[0], checkpoint, *args[1])
    if a.returncode != 0 or b.returncode != 0:
        return fail(f"{label} {args[0][0]}: exit {a.returncode} / {b.returncode}: {a.stderr.strip()} {b.stderr.strip()}")
    x, y = json.loads(a.stdout), json.loads(b.stdout)
    for key in keys:
        ref.close(f"{label} {args[0][0]} {key}", np.asarray(y[key], np.float64), np.asarray(x[key], np.float64))
    collect()


def check_tools(name, gguf, checkpoint, ids):
    seq = ("--sequence", " ".join(map(str, ids)))
    same_output(name, gguf, checkpoint, (("--forward",), seq), ("logits", "attention"))
    same_output(name, gguf, checkpoint, (("--forward",), seq + ("--ablate", "1.1")), ("logits", "attention"))
    same_output(name, gguf, checkpoint, (("--generate",), seq + ("--tokens", "4")), ("ids",))
    same_output(name, gguf, checkpoint, (("--rollout",), seq), ("rollout",))
    for flag in ("--heads", "--head-importance"):
        a, b = run(flag, gguf, *seq), run(flag, checkpoint, *seq)
        if a.returncode or b.returncode or not np.allclose(json_numbers(a.stdout), json_numbers(b.stdout), rtol=1e-4, atol=1e-6):
            fail(f"{name} {flag}: the GGUF file's {a.stdout[:80]!r} against {b.stdout[:80]!r} {a.stderr} {b.stderr}")
    outs = [os.path.join(workdir, f"{name}_{k}.safetensors") for k in ("gguf", "st")]
    for model, out in zip((gguf, checkpoint), outs):
        r = run("--export-attention", model, *seq, "--out", out)
        if r.returncode:
            return fail(f"{name} --export-attention: {r.stderr.strip()}")
    a, b = ref.read_safetensors(outs[0]), ref.read_safetensors(outs[1])
    for key in b:
        ref.close(f"{name} --export-attention {key}", b[key], a[key])
    collect()


def softmax(x):
    x = np.asarray(x, np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def differences(a, b):
    """The largest differences of two --forward outputs' attention and next-token probabilities."""
    att = np.abs(np.asarray(a["attention"]) - np.asarray(b["attention"])).max()
    return att, np.abs(softmax(a["logits"]) - softmax(b["logits"])).max()


def check_fast(label, path, ids):
    """--forward --fast (int8 activations against the Q8_0 and Q4_0 weights, bf16 against the others) against
    the exact run: where the CPU runs the fast products, not equal to it when the file has a matrix
    they take (a Q8_0 or Q4_0 one with rows of whole blocks; with AVX512-BF16 any F32, F16 or BF16 one), and within FAST_BOUND or twice what the weights' own rounding moves
    (this file's exact run against its F32 file's); elsewhere one line says so and the run is exact."""
    seq = ("--sequence", " ".join(map(str, ids)))
    exact, fast, f32 = run("--forward", path, *seq), run("--forward", path, *seq, "--fast"), run("--forward", path[:path.rindex("_Q")] + "_F32.gguf", *seq)
    if exact.returncode or fast.returncode or f32.returncode:
        return fail(f"{label} --fast: exit {exact.returncode} / {fast.returncode} / {f32.returncode}: {fast.stderr.strip()}")
    x, y = json.loads(exact.stdout), json.loads(fast.stdout)
    att, prob = differences(x, y)
    if "the products run exact" in fast.stderr:
        if "--fast" not in fast.stderr or fast.stderr.count("\n") != 1 or att or prob:
            fail(f"{label} --fast without the instructions: {fast.stderr!r}, differences {att} {prob}")
        return
    bound = np.maximum(FAST_BOUND, 2 * np.asarray(differences(x, json.loads(f32.stdout))))
    # What --fast does on this CPU at the kernel level in use (ATTNVIZ_KERNELS), as --version says it.
    bf16 = "weights in bf16 on" in run("--version").stdout  # then F32, F16 and BF16 matrices run in bf16
    has_wide = any(len(shape) == 2 and kind in (0, 1, 30) for shape, kind, _ in read_gguf(path)[1].values())
    said = "attnviz: --fast: F32, F16 and BF16 weights need AVX512-BF16 for a fast product"
    if fast.stderr != "" if bf16 or not has_wide else not (fast.stderr.startswith(said) and fast.stderr.count("\n") == 1):
        fail(f"{label} --fast: {fast.stderr!r} on stderr (bf16 products here: {bf16}, F32/F16/BF16 matrices: {has_wide})")
    covered = any(len(shape) == 2 and (kind in (2, 8) and shape[-1] % 32 == 0 or bf16 and kind in (0, 1, 30))
                  for shape, kind, _ in read_gguf(path)[1].values())
    if (att > 0) != covered or (prob > 0) != covered or att > bound[0] or prob > bound[1]:
        fail(f"{label} --fast: attention differs from the exact run by {att}, probabilities by {prob} (bounds {bound}, Q8_0 matrices: {covered})")


def json_numbers(text):
    """Every number of a JSON document, in order."""
    out = []
    def walk(v):
        if isinstance(v, bool) or v is None:
            return
        if isinstance(v, (int, float)):
            out.append(float(v))
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
    walk(json.loads(text))
    return np.array(out)


def refused(label, path, expect):
    r = run("--forward", path, "--sequence", "1 2 3")
    line = r.stderr.strip()
    if r.returncode != 2 or "\n" in line or path not in line or expect not in line:
        fail(f"{label}: exit {r.returncode}, {line!r} (wanted one line naming {path} and {expect!r})")


def check_bad_files(good):
    raw = open(good, "rb").read()
    meta, tensors = read_gguf(good)
    def variant(name, data):
        p = os.path.join(workdir, name + ".gguf")
        open(p, "wb").write(data)
        return p
    refused("truncated", variant("truncated", raw[:len(raw) - 100]), "truncated")
    refused("bad magic", variant("magic", b"GGUX" + raw[4:]), "not a GGUF file: it does not begin with")
    refused("bad version", variant("version", raw[:4] + struct.pack("<I", 7) + raw[8:]), "version 7")
    at = raw.index(b"llama", 24)
    refused("unknown architecture", variant("arch", raw[:at] + b"mamba" + raw[at + 5:]), "architecture \"mamba\"")
    name = b"blk.0.attn_q.weight"
    at = raw.index(name) + len(name) + 4 + 16  # n_dims, two dims: then the type
    refused("unknown tensor type", variant("type", raw[:at] + struct.pack("<I", 24) + raw[at + 4:]), "type I8")
    at = raw.index(b"blk.0.attn_v.weight")
    refused("missing tensor", variant("missing", raw[:at] + b"blk.0.attn_x.weight" + raw[at + 19:]), "v_proj")
    key = b"llama.feed_forward_length"
    at = raw.index(key) + len(key) + 4
    refused("shape against the metadata", variant("shape", raw[:at] + struct.pack("<I", 41) + raw[at + 4:]), "needs (41, 24)")
    # The file's own names read the same tensors as transformers' names, q unpermuted as attnviz reads it.
    own = ["blk.0.attn_q.weight", "blk.0.ffn_down.weight", "output_norm.weight"]
    hub = ["model.layers.0.self_attn.q_proj.weight", "model.layers.0.mlp.down_proj.weight", "model.norm.weight"]
    a, b = run("--tensor", good, *own), run("--tensor", good, *hub)
    la, lb = [json.loads(x) for x in a.stdout.splitlines()], [json.loads(x) for x in b.stdout.splitlines()]
    if a.returncode or len(la) != 3 or [x["name"] for x in la] != own or [x.get("as") for x in la] != hub or \
            [x["values"] for x in la] != [x["values"] for x in lb] or any("as" in x for x in lb):
        fail(f"--tensor with GGUF's own names: exit {a.returncode} {a.stderr.strip()!r}, "
             f"{[(x['name'], x.get('as')) for x in la]} (wanted the values of {hub})")
    r = run("--tensor", good, "model.norm.weight", "model.layers.0.self_attn.x_proj.weight")
    line = r.stderr.strip()
    if r.returncode != 2 or r.stdout or "\n" in line or good not in line or "x_proj" not in line:
        fail(f"--tensor with a missing name: exit {r.returncode}, {len(r.stdout)} bytes out, {line!r} (wanted nothing out, one line naming it)")


def check_mixed(name, path):
    """The mixed file's matrices (llama_wide's rows of 256 values) are of every type of make_gguf.MIXED."""
    kinds = {kind for shape, kind, _ in read_gguf(path)[1].values() if len(shape) == 2}
    want = {make_gguf.TYPES[t][0] for t in make_gguf.MIXED}
    if kinds != want:
        fail(f"{name} MIXED: its matrices are of types {sorted(kinds)}, not {sorted(want)}")


def broken_mixtures(good, arch, missing):
    """Three variants of a mixture-of-experts GGUF file's bytes: its expert_count 6, its tensor
    `missing` renamed away, blk.0's router one column short."""
    raw = open(good, "rb").read()
    key = f"{arch}.expert_count".encode()
    at = raw.index(key) + len(key) + 4
    count = raw[:at] + struct.pack("<I", 6) + raw[at + 4:]
    name = missing.encode()
    at = raw.index(name)
    gone = raw[:at] + name[:-1] + b"X" + raw[at + len(name):]
    name = b"blk.0.ffn_gate_inp.weight"
    at = raw.index(name) + len(name)
    ne = struct.unpack_from("<IQQ", raw, at)
    router = raw[:at] + struct.pack("<IQQ", 2, ne[1], ne[2] - 1) + raw[at + 20:]
    return count, gone, router


def check_bad_moe(good):
    """A qwen3moe file whose expert_count is not its experts', one without an expert tensor, one whose
    router is of the wrong shape."""
    count, gone, router = broken_mixtures(good, "qwen3moe", "blk.1.ffn_up_exps.weight")
    refused("expert_count against the experts", variant_of(count, "expert_count"), "needs (6, 32)")
    refused("a missing expert tensor", variant_of(gone, "no_experts"), "model.layers.1.mlp.experts.up_proj.weight")
    refused("a router of the wrong shape", variant_of(router, "router"), "model.layers.0.mlp.gate.weight")


def check_bad_gpt_oss(good):
    """The same of a gpt-oss file, its missing tensor an expert bias."""
    count, gone, router = broken_mixtures(good, "gpt-oss", "blk.1.ffn_down_exps.bias")
    refused("gpt-oss expert_count against the experts", variant_of(count, "gpt_oss_count"), "model.layers.0.mlp.router.weight")
    refused("a missing gpt-oss expert tensor", variant_of(gone, "gpt_oss_no_bias"), "model.layers.1.mlp.experts.down_proj.bias")
    refused("a gpt-oss router of the wrong shape", variant_of(router, "gpt_oss_router"), "model.layers.0.mlp.router.weight")


def variant_of(data, name):
    p = os.path.join(workdir, name + ".gguf")
    open(p, "wb").write(data)
    return p


def check_unread_type(good):
    """A ggml type attnviz does not read (IQ2_XXS, rows of whole 256-value blocks) is one line naming the
    tensor and the type, and the file's tensors of the types it reads (a mixed file) are not the cause."""
    raw = open(good, "rb").read()
    name = b"blk.0.attn_q.weight"
    at = raw.index(name) + len(name) + 4 + 16
    path = os.path.join(workdir, "iq2_xxs.gguf")
    open(path, "wb").write(raw[:at] + struct.pack("<I", 16) + raw[at + 4:])
    refused("IQ2_XXS", path, 'tensor "blk.0.attn_q.weight" has type IQ2_XXS, which attnviz does not read')


def checks_fast(name, kind):
    """llama_wide (for the K-quants' layouts) has attention so peaked that its Q8_0 file's exact run
    already lies up to 1.3 from its F32 file's: no bound on --fast there says anything. A mixture's
    router may choose other experts on a small change, so neither does one on Qwen3 MoE."""
    return kind in ("Q8_0", "Q4_0") and name not in ("llama_wide", "qwen3_moe_unnormed")


def write_file(ck, name, kind):
    d, path = os.path.join(ck, name), os.path.join(workdir, f"{name}_{kind}.gguf")
    subprocess.run(["/usr/bin/python3", os.path.join(here, "fixtures", "make_gguf.py"), d, path, kind], check=True)


def check_file(ck, name, kind, ids, fast_ids):
    """One file of the plan: its tensors, its forward on ids and, where fast_ids are given, --fast on
    them against the F32 file's."""
    c, hf = make_gguf.read_checkpoint(os.path.join(ck, name))
    path = os.path.join(workdir, f"{name}_{kind}.gguf")
    held, w = transformers_weights(c, hf, path)
    if kind == "MIXED":
        check_mixed(name, path)
    check_tensors(f"{name} {kind}", path, held)
    check_forward(f"{name} {kind}", path, c, w, ids)
    if fast_ids is not None:
        check_fast(f"{name} {kind}", path, fast_ids)


def main():
    os.makedirs(workdir, exist_ok=True)
    ck = os.path.join(workdir, "checkpoints")
    subprocess.run(["/usr/bin/python3", os.path.join(here, "fixtures", "make_checkpoints.py"), ck], check=True)
    rng = np.random.default_rng(11)
    fast_rng = np.random.default_rng(12)
    small = ("gpt2", "llama_gqa", "qwen2", "llama_sharded", "gemma2", "gemma3_text", "qwen3", "phi3", "phi4_mini",
             "llama32", "smollm2", "qwen25", "tinyllama")
    plan = [(n, t) for n in small for t in ("F32", "F16", "BF16", "Q8_0", "Q4_0")]
    plan += [("qwen3_moe_unnormed", t) for t in ("F32", "F16", "Q8_0")]  # every layer a mixture: llama.cpp's qwen3moe
    # llama_wide's forward is ill-conditioned (attention peaked by logits in the tens): on other random
    # sequences even its F32 file lies up to 2e-4 from the NumPy forward; these draws stay within 1e-4
    # at every kernel level (make_gguf.py's Q2_K rounds its scales up: rounded to nearest, its file lay
    # 1.05e-4 off at the generic level).
    plan += [("llama_wide", t) for t in make_gguf.TYPES]
    plan += [("llama_wide", "MIXED")]  # a type per matrix, in turn, as Unsloth's UD files
    plan += [(n, t) for n in ("qwen3_yarn", "qwen3_yarn_exact", "smollm3", "olmo2", "olmo3") for t in ("F32", "Q8_0")]
    plan += [("gpt_oss", t) for t in ("F32", "MXFP4")]  # MXFP4: every matrix, the experts included
    # The draws in the plan's order; every file written, then checked, two at a time: each one waits on
    # make_gguf.py or attnviz for most of its time, and --fast's check reads the F32 file beside it.
    jobs = []
    for name, kind in plan:
        vocab = json.load(open(os.path.join(ck, name, "config.json")))["vocab_size"]
        ids = rng.integers(0, vocab, 9).tolist()
        jobs.append((ck, name, kind, ids, fast_rng.integers(0, vocab, 9).tolist() if checks_fast(name, kind) else None))
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        list(pool.map(lambda entry: write_file(ck, *entry), plan))  # what a job raised, raised here
        list(pool.map(lambda job: check_file(*job), jobs))
    v2 = os.path.join(workdir, "qwen3_v2.gguf")
    subprocess.run(["/usr/bin/python3", os.path.join(here, "fixtures", "make_gguf.py"), os.path.join(ck, "qwen3"), v2, "Q8_0",
                    "--version", "2"], check=True)
    c, hf = make_gguf.read_checkpoint(os.path.join(ck, "qwen3"))
    check_forward("qwen3 v2", v2, c, transformers_weights(c, hf, v2)[1], [3, 1, 4, 1, 5])
    for name in ("gpt2", "llama_sharded", "gemma3_text", "qwen3", "phi3", "smollm3", "olmo2", "olmo3"):
        check_tools(name, os.path.join(workdir, f"{name}_F32.gguf"), os.path.join(ck, name), [5, 9, 2, 7, 7, 3])
    r = run("--forward", os.path.join(workdir, "gpt2_Q8_0.gguf"), "--text", "Hello world")
    if r.returncode != 0 or json.loads(r.stdout)["ids"] != [15496, 995]:  # GPT-2's own ids, from the file's tokenizer
        fail(f"--forward --text through the GGUF file's tokenizer: exit {r.returncode}, {r.stdout[:80]!r} {r.stderr!r}")
    check_bad_files(os.path.join(workdir, "llama_sharded_F32.gguf"))
    check_unread_type(os.path.join(workdir, "llama_wide_F32.gguf"))
    check_bad_moe(os.path.join(workdir, "qwen3_moe_unnormed_F32.gguf"))
    check_bad_gpt_oss(os.path.join(workdir, "gpt_oss_F32.gguf"))
    if failures:
        sys.exit(f"gguf_numpy_test: {len(failures)} failures")
    print(f"gguf_numpy_test: {len(plan) + 1} GGUF files match the NumPy dequantizer and forward; tools and bad files as expected")


if __name__ == "__main__":
    main()
