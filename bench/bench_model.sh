#!/usr/bin/env bash
# bench/bench_model.sh — a GPT-2-small-sized forward with attentions: attnviz --bench-model against
# PyTorch's float32 forward (bench/torch_gpt2.py, 2 threads) in the same run, where python3-torch is
# installed, at t = 128, 512 and 1024; and both as a multiple of the float32 matrix products' bound.
#
#   bench/bench_model.sh [ATTNVIZ [REPS [GFLOPS]]]     defaults: build/attnviz, 5, measured
#
# GFLOPS is the machine's float32 matmul rate; by default NumPy's, measured at the start of the run
# (the best of 11 products of GPT-2 small's MLP shape, (1024, 768) x (768, 3072), 2 FLOPs a multiply-add).
# The checkpoint (about 500 MB, bench/make_gpt2_small.py) is written once to $BENCH_MODEL_DIR
# (default /tmp/attnviz-gpt2-small). PyTorch needs OpenBLAS behind Debian's libblas.so.3
# (libopenblas0-pthread): on the reference BLAS it is about 15x slower, and the script says so.
set -euo pipefail
cd "$(dirname "$0")/.."
attnviz=${1:-build/attnviz}
reps=${2:-5}
model=${BENCH_MODEL_DIR:-/tmp/attnviz-gpt2-small}
py=/usr/bin/python3
gflops=${3:-$($py -c "
import time, numpy as np
a = np.random.rand(1024, 768).astype(np.float32); b = np.random.rand(768, 3072).astype(np.float32)
best = 1e9
for _ in range(11):
    t = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t)
print(round(2 * 1024 * 768 * 3072 / best / 1e9))")}
[ -f "$model/model.safetensors" ] || $py bench/make_gpt2_small.py "$model"
torch=0
$py -c 'import torch' 2>/dev/null && torch=1
echo "bench_model: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), float32 matmul ${gflops} GFLOP/s"
for t in 128 512 1024; do
  # FLOPs of the products: per layer 24·t·D² (c_attn, c_proj, the MLP) + 4·t²·D (scores and A·V,
  # the full square as PyTorch computes it), then 2·t·D·V for the logits.
  bound_ms=$($py -c "t=$t; D=768; L=12; V=50257; print(round((L*(24*t*D*D + 4*t*t*D) + 2*t*D*V) / ($gflops*1e9) * 1000, 1))")
  ours=$("$attnviz" --bench-model "$model" --tokens "$t" --reps "$reps")
  ours_ms=$($py -c "import json,sys; print(json.loads(sys.argv[1])['median_ms'])" "$ours")
  line="t=$t bound ${bound_ms} ms  attnviz $ours  ($($py -c "print(round($ours_ms / $bound_ms, 2))")x the bound)"
  if ((torch)); then
    theirs=$($py bench/torch_gpt2.py "$model" "$t" "$reps")
    theirs_ms=$($py -c "import json,sys; print(json.loads(sys.argv[1])['median_ms'])" "$theirs")
    if [ "$($py -c "import json,sys; print(json.loads(sys.argv[1])['blas'])" "$theirs")" = reference ]; then
      echo "bench_model: WARNING: PyTorch ran on the reference BLAS; install libopenblas0-pthread for a fair anchor" >&2
    fi
    line="$line  pytorch $theirs  (attnviz $($py -c "print(round($theirs_ms / $ours_ms, 2))")x faster)"
  fi
  echo "$line"
done
