#!/usr/bin/env bash
# bench/bench_patching.sh — the head patching map (attnviz --patch --by head) at t = 64 on a checkpoint:
# one patch per head, each a rerun of the corrupted prompt from its layer on, after one clean and one
# corrupted run. Prints the wall time of the whole command (the checkpoint's loading included), of a
# --forward of the same prompt for scale, and the reruns' product FLOPs at the bound of this run
# (bench/bound.sh): what the issue's "≤ 1.5× the product bound of those reruns" divides by.
#
#   bench/bench_patching.sh [ATTNVIZ [REPS]]     defaults: build/attnviz, 3 (the best is printed)
#
# The checkpoint is $BENCH_MODEL_DIR (default /tmp/attnviz-gpt2-small, written once by
# bench/make_gpt2_small.py); a Llama-1B-sized one (bench/make_llama_1b.py) has no tokenizer, so its
# prompts are 64 ids written out.
set -euo pipefail
cd "$(dirname "$0")/.."
attnviz=${1:-build/attnviz}
reps=${2:-3}
model=${BENCH_MODEL_DIR:-/tmp/attnviz-gpt2-small}
py=/usr/bin/python3
[ -f "$model/model.safetensors" ] || $py bench/make_gpt2_small.py "$model"
source bench/bound.sh
if [ -f "$model/tokenizer.json" ] || [ -f "$model/vocab.json" ]; then
  # 64 words that are one GPT-2 token each (with their space); the corrupted prompt changes the 10th.
  words="the a of to and in is it for on was he with as his at by from they we"
  clean=$($py -c "import sys; w = sys.argv[1].split(); print(' '.join(w[i % len(w)] for i in range(64)))" "$words")
  corrupt=$($py -c "import sys; w = sys.argv[1].split(); w[9] = 'cat'; print(' '.join(w))" "$clean")
  prompt=(--text "$clean")
else
  clean=$($py -c "print(' '.join(str(100 + i) for i in range(64)))")
  corrupt=$($py -c "import sys; w = sys.argv[1].split(); w[9] = '5000'; print(' '.join(w))" "$clean")
  prompt=(--sequence "$clean")
fi
best() { # the best wall time of $reps runs of the command, in seconds
  $py - "$reps" "$@" <<'PY'
import subprocess, sys, time
reps, cmd = int(sys.argv[1]), sys.argv[2:]
times = []
for _ in range(reps):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    times.append(time.perf_counter() - t)
print(f"{min(times):.2f}")
PY
}
# The reruns' products: the patches of layer l (one per head) rerun layers l … L−1 at t positions, each
# layer 2·t·D·(Q + 2·KV) (q, k, v) + 2·t·Q·D (o) + 2·t·D·F per MLP matrix (2 for GPT-2, 3 for Llama).
reruns() {
  $py - "$model/config.json" "$1" <<'PY'
import json, sys
c = json.load(open(sys.argv[1])); t = int(sys.argv[2])
g = lambda *k, default=None: next((c[x] for x in k if x in c), default)
D, L, H = g('n_embd', 'hidden_size'), g('n_layer', 'num_hidden_layers'), g('n_head', 'num_attention_heads')
F = g('n_inner', 'intermediate_size', default=4 * D) or 4 * D
dh = g('head_dim', default=D // H)
KV = g('num_key_value_heads', default=H) * dh
mlp = 3 if 'intermediate_size' in c else 2
layer = 2 * t * D * (H * dh + 2 * KV) + 2 * t * H * dh * D + mlp * 2 * t * D * F
print(H * L, sum(H * (L - l) * layer for l in range(L)))
PY
}
tokens=$(wc -w <<<"$clean")
read -r patches flops < <(reruns "$tokens")
echo "bench_patching: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), $(basename "$model"), t=$tokens"
echo "bench_patching: float32 product rate: NumPy (kernel ${numpy#* }) ${numpy_rate} GFLOP/s, attnviz ${ours_rate} GFLOP/s; bound at ${rate}"
patch=$(best "$attnviz" --patch "$model" --clean "$clean" --corrupt "$corrupt" --answer "#262" --vs "#257" --by head)
forward=$(best "$attnviz" --forward "$model" "${prompt[@]}")
bound=$($py -c "print(round($flops / ($rate * 1e9), 1))")
echo "head patching map ($patches patches, $($py -c "print(round($flops / 1e12, 1))") TFLOP of reruns) ${patch} s, $($py -c "print(round($patch / $bound, 2))")x the bound ${bound} s   one --forward ${forward} s"
