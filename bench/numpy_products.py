#!/usr/bin/python3
"""The matrix products of one forward and nothing else, in NumPy on OpenBLAS: the second bound
bench/bench_model.sh sets beside the rate bound. Each layer has weights of its own (random float32,
(in, out), the layout OpenBLAS multiplies fastest), so they come from memory as in a forward; the
attention's products are the full t × t square per head, as bench_model.sh counts them.

    /usr/bin/python3 bench/numpy_products.py CONFIG_JSON TOKENS,TOKENS,... REPS
        prints one {"tokens", "ms", "gflops", "kernel"} line per length: the best of REPS passes

GPT-2 per layer: c_attn (D, 3D), scores and A·V per head, c_proj (D, D), c_fc (D, 4D), c_proj (4D, D).
Llama per layer: q_proj, o_proj (D, D), k_proj, v_proj (D, KV), scores and A·V per query head,
gate_proj, up_proj (D, F), down_proj (F, D). Then the LM head (D, V) on every position."""
import ctypes
import json
import sys
import time

import numpy as np


def shapes(c):
    """(layers, heads, head_dim, per-layer (in, out) products, (D, V))."""
    if "n_embd" in c:  # GPT-2
        D, L, H = c["n_embd"], c["n_layer"], c["n_head"]
        F = c.get("n_inner") or 4 * D
        return L, H, D // H, [(D, 3 * D), (D, D), (D, F), (F, D)], (D, c["vocab_size"])
    D, L, H = c["hidden_size"], c["num_hidden_layers"], c["num_attention_heads"]
    DH = c.get("head_dim", D // H)
    KV, F = c["num_key_value_heads"] * DH, c["intermediate_size"]
    return L, H, DH, [(D, H * DH), (D, KV), (D, KV), (H * DH, D), (D, F), (D, F), (F, D)], (D, c["vocab_size"])


def kernel():
    for lib in {l.split()[-1] for l in open("/proc/self/maps") if "openblas" in l.split()[-1]}:
        f = ctypes.CDLL(lib).openblas_get_corename
        f.restype = ctypes.c_char_p
        return f().decode()
    return "?"


def main():
    c = json.load(open(sys.argv[1]))
    lengths = [int(t) for t in sys.argv[2].split(",")]
    reps = int(sys.argv[3])
    L, H, DH, products, (D, V) = shapes(c)
    rng = np.random.default_rng(1)
    weights = [[rng.standard_normal(s, dtype=np.float32) * 0.02 for s in products] for _ in range(L)]
    head = rng.standard_normal((D, V), dtype=np.float32) * 0.02
    for t in lengths:
        # Inputs and outputs made before the clock starts: only the products are timed.
        inputs = {n: rng.standard_normal((t, n), dtype=np.float32) for n in {a for a, _ in products} | {D}}
        outputs = {n: np.empty((t, n), np.float32) for n in {b for _, b in products} | {V}}
        q, kt, v = (rng.standard_normal(s, dtype=np.float32) for s in ((H, t, DH), (H, DH, t), (H, t, DH)))
        scores, mixed = np.empty((H, t, t), np.float32), np.empty((H, t, DH), np.float32)
        flops = 2 * t * (L * sum(a * b for a, b in products) + D * V) + L * 4 * t * t * H * DH
        best = 1e9
        for _ in range(reps):
            start = time.perf_counter()
            for layer in weights:
                for w in layer:
                    np.matmul(inputs[w.shape[0]], w, out=outputs[w.shape[1]])
                np.matmul(q, kt, out=scores)
                np.matmul(scores, v, out=mixed)
            np.matmul(inputs[D], head, out=outputs[V])
            best = min(best, time.perf_counter() - start)
        print(json.dumps({"tokens": t, "ms": round(best * 1000, 2), "gflops": round(flops / best / 1e9, 1), "kernel": kernel()}), flush=True)

if __name__ == "__main__":
    main()
