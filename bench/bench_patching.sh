#!/usr/bin/env bash
# bench/bench_patching.sh — the head patching map (attnviz --patch --by head) on the GPT-2-small-sized
# checkpoint at t = 64: 144 patches, each a rerun of the corrupted prompt from its layer on (about
# 0.86 TFLOP of products in all), after one clean and one corrupted run. Prints the wall time of the
# whole command (the checkpoint's loading included) and of a --forward of the same prompt, for scale.
#
#   bench/bench_patching.sh [ATTNVIZ [REPS]]     defaults: build/attnviz, 3 (the best is printed)
#
# The checkpoint (about 500 MB, bench/make_gpt2_small.py) is written once to $BENCH_MODEL_DIR
# (default /tmp/attnviz-gpt2-small).
set -euo pipefail
cd "$(dirname "$0")/.."
attnviz=${1:-build/attnviz}
reps=${2:-3}
model=${BENCH_MODEL_DIR:-/tmp/attnviz-gpt2-small}
py=/usr/bin/python3
[ -f "$model/model.safetensors" ] || $py bench/make_gpt2_small.py "$model"
# 64 words that are one GPT-2 token each (with their space); the corrupted prompt changes the 10th.
words="the a of to and in is it for on was he with as his at by from they we"
clean=$($py -c "import sys; w = sys.argv[1].split(); print(' '.join(w[i % len(w)] for i in range(64)))" "$words")
corrupt=$($py -c "import sys; w = sys.argv[1].split(); w[9] = 'cat'; print(' '.join(w))" "$clean")
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
tokens=$("$attnviz" --tokenize "$model" --text "$clean" | $py -c "import json,sys; print(len(json.load(sys.stdin)['ids']))")
echo "bench_patching: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), t=$tokens"
patch=$(best "$attnviz" --patch "$model" --clean "$clean" --corrupt "$corrupt" --answer "#262" --vs "#257" --by head)
forward=$(best "$attnviz" --forward "$model" --text "$clean")
patches=$($py -c "import json,sys; c = json.load(open(sys.argv[1])); g = lambda *k: next(c[x] for x in k if x in c); print(g('n_layer', 'num_hidden_layers') * g('n_head', 'num_attention_heads'))" "$model/config.json")
echo "head patching map ($patches patches) ${patch} s   one --forward ${forward} s"
