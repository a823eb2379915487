#!/usr/bin/python3
"""PyTorch's float32 forward of a GPT-2 checkpoint with every attention map kept (as transformers'
output_attentions=True does), on 2 threads: the reference bench/bench_model.sh times attnviz against.

    /usr/bin/python3 bench/torch_gpt2.py MODEL_DIR TOKENS REPS      prints {"median_ms", "tokens", "blas", ...}

Debian's python3-torch and python3-numpy multiply through the system's libblas.so.3. With only the
reference BLAS (libblas3) behind it, PyTorch is about 15x slower than with OpenBLAS; the figures of
the README need libopenblas0-pthread installed (it becomes the libblas.so.3 alternative). "blas"
names the library this process mapped, "blas_kernel" OpenBLAS's kernels for this CPU (bench_model.sh
sets OPENBLAS_CORETYPE=SkylakeX), and a warning goes to stderr when it is the reference one.

Written here from modeling_gpt2.py's equations (not transformers itself, which Debian does not
ship): Conv1D weights (in, out), pre-LN, gelu_new, causal softmax(q kᵀ / √d_head), lm_head = wteᵀ."""
import ctypes
import json
import math
import resource
import statistics
import sys
import time

import numpy as np
import torch


def load(path):
    raw = bytearray(open(path, "rb").read())  # writable, as torch.from_numpy wants
    n = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + n])
    return {k: torch.from_numpy(np.frombuffer(raw, "<f4", (e["data_offsets"][1] - e["data_offsets"][0]) // 4,
                                              8 + n + e["data_offsets"][0]).reshape(e["shape"]))
            for k, e in header.items() if k != "__metadata__"}


def blas_in_use():
    """The BLAS libraries this process has mapped: 'openblas', 'reference' or what else it found."""
    libs = {line.split()[-1] for line in open("/proc/self/maps") if "blas" in line.split()[-1].lower()}
    if any("openblas" in lib for lib in libs):
        return "openblas"
    if any("/blas/libblas.so" in lib for lib in libs):
        return "reference"
    return ", ".join(sorted(libs)) or "none mapped"


def openblas_kernel():
    """The kernels OpenBLAS chose for this CPU (openblas_get_corename; OPENBLAS_CORETYPE overrides it)."""
    for lib in sorted({line.split()[-1] for line in open("/proc/self/maps") if "openblas" in line.split()[-1]}):
        name = ctypes.CDLL(lib).openblas_get_corename
        name.restype = ctypes.c_char_p
        return name().decode()
    return "none"


def forward(w, c, ids):
    t, D, H = ids.shape[0], c["n_embd"], c["n_head"]
    eps = c["layer_norm_epsilon"]
    x = w["wte.weight"][ids] + w["wpe.weight"][:t]
    mask = torch.full((t, t), float("-inf")).triu(1)
    attentions = []
    for l in range(c["n_layer"]):
        p = f"h.{l}."
        a = torch.nn.functional.layer_norm(x, (D,), w[p + "ln_1.weight"], w[p + "ln_1.bias"], eps)
        q, k, v = torch.addmm(w[p + "attn.c_attn.bias"], a, w[p + "attn.c_attn.weight"]).split(D, dim=1)
        q, k, v = (z.view(t, H, D // H).transpose(0, 1) for z in (q, k, v))
        att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(D // H) + mask, dim=-1)
        attentions.append(att)
        y = (att @ v).transpose(0, 1).reshape(t, D)
        x = x + torch.addmm(w[p + "attn.c_proj.bias"], y, w[p + "attn.c_proj.weight"])
        a = torch.nn.functional.layer_norm(x, (D,), w[p + "ln_2.weight"], w[p + "ln_2.bias"], eps)
        h = torch.nn.functional.gelu(torch.addmm(w[p + "mlp.c_fc.bias"], a, w[p + "mlp.c_fc.weight"]), approximate="tanh")
        x = x + torch.addmm(w[p + "mlp.c_proj.bias"], h, w[p + "mlp.c_proj.weight"])
    x = torch.nn.functional.layer_norm(x, (D,), w["ln_f.weight"], w["ln_f.bias"], eps)
    return x @ w["wte.weight"].T, torch.stack(attentions)


def time_forward(model, tokens, reps, load, forward, script):
    """`reps` timed runs of forward(weights, config, ids) on `tokens` random ids after a warm-up, as JSON."""
    torch.set_num_threads(2)
    c = json.load(open(model + "/config.json"))
    w = load(model + "/model.safetensors")
    ids = torch.from_numpy(np.random.default_rng(1).integers(0, c["vocab_size"], tokens))
    ms = []
    with torch.no_grad():
        forward(w, c, ids)  # warm-up
        for _ in range(reps):
            t0 = time.perf_counter()
            forward(w, c, ids)
            ms.append((time.perf_counter() - t0) * 1000)
    blas = blas_in_use()
    if blas == "reference":
        print(script + ": WARNING: PyTorch runs on the REFERENCE BLAS (libblas3), about 15x slower than on "
              "OpenBLAS: its figures mean nothing. Install libopenblas0-pthread (apt-get install libopenblas0-pthread).",
              file=sys.stderr)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"median_ms": round(statistics.median(ms), 2), "min_ms": round(min(ms), 2), "tokens": tokens, "reps": reps,
                      "threads": torch.get_num_threads(), "rss_mb": round(rss, 1), "blas": blas,
                      "blas_kernel": openblas_kernel()}))


if __name__ == "__main__":
    time_forward(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), load, forward, "torch_gpt2.py")
