#!/usr/bin/python3
"""The step-by-step article's NumPy attention, timed, as the yardstick for `attnviz --bench-core`.

The same work as one core::compute_into of a random single-head scenario with
d_model = d_k = d_v = D: Q, K, V = X @ W three times, then the seed's `attention`
function, word for word. float64 throughout, like attnviz.

    /usr/bin/python3 bench/numpy_reference.py [--tokens 1024] [--dim 64] [--reps 20]

prints one JSON line {"tokens", "dim", "median_ms", "min_ms", "blas"}.
Run it with Debian's /usr/bin/python3 and python3-numpy (BLAS: OpenBLAS when
libopenblas0-pthread is installed, else the reference BLAS; "blas" says which, and
OpenBLAS's kernel: OPENBLAS_CORETYPE=Haswell for the AVX2 path, as bench/compare.sh sets it).
"""
import argparse
import json
import statistics
import time

import numpy as np


# The step-by-step article's code, verbatim.
def attention(Q, K, V):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    scores -= scores.max(axis=-1, keepdims=True)  # numerical stability
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights


def full(X, W_Q, W_K, W_V):
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
    return attention(Q, K, V)


def openblas_core(path):
    """The kernel OpenBLAS chose (OPENBLAS_CORETYPE, or its reading of the CPU)."""
    try:
        import ctypes
        core = ctypes.CDLL(path).openblas_get_corename
        core.restype = ctypes.c_char_p
        return core().decode()
    except (OSError, AttributeError):
        return "?"


def blas_name():
    try:
        import threadpoolctl  # not needed; only used when present
        for info in threadpoolctl.threadpool_info():
            if info.get("user_api") == "blas":
                return f'{info.get("internal_api", "?")} {info.get("architecture", "?")}'.strip()
    except ImportError:
        pass
    # Which libblas the dynamic linker gave this process.
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                if "blas" in line and ".so" in line:
                    path = line.split()[-1]
                    if "openblas" in path:
                        return "openblas " + openblas_core(path)
                    if "blis" in path:
                        return "blis"
                    if "atlas" in path:
                        return "atlas"
            return "reference"
    except OSError:
        return "?"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--tokens", type=int, default=1024)
    p.add_argument("--dim", type=int, default=64)
    p.add_argument("--reps", type=int, default=20)
    a = p.parse_args()
    n, d = a.tokens, a.dim
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    W_Q, W_K, W_V = (rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(3))
    full(X, W_Q, W_K, W_V)  # warm-up
    times = []
    for _ in range(a.reps):
        t0 = time.perf_counter()
        full(X, W_Q, W_K, W_V)
        times.append((time.perf_counter() - t0) * 1e3)
    print(json.dumps({"tokens": n, "dim": d, "median_ms": round(statistics.median(times), 4),
                      "min_ms": round(min(times), 4), "blas": blas_name()}))


if __name__ == "__main__":
    main()
