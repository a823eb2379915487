#!/usr/bin/env bash
# bench/bench_maps.sh — maps on demand at any length: attnviz --bench-model (the forward as the window
# runs it: each layer's queries and keys kept, every head's scores and thumbnails made as it runs, the
# rollout up to 4096 tokens, then each position's top 10) at t = 1, 32, 128, 1024 on the GPT-2-small-sized
# checkpoint and t = 1, 32, 128, 1024, 8192 on the Llama-1B-sized BF16 one: forward time, peak RSS, the
# maps' store and the weights' size; then the Model workspace under Xvfb (--bench-frames) with the
# Llama-1B-sized checkpoint at 128 and 8192 tokens: the first frame, and the frame where every head shows.
#
#   bench/bench_maps.sh [ATTNVIZ [REPS]]     defaults: build/attnviz, 3 (1 at 8192 tokens: a forward is minutes of CPU)
#
# Every line carries the load average: the machine may be shared.
set -euo pipefail
cd "$(dirname "$0")/.."
attnviz=${1:-build/attnviz}
reps=${2:-3}
gpt2=${BENCH_MODEL_DIR:-/tmp/attnviz-gpt2-small}
llama=${BENCH_LLAMA_DIR:-/tmp/attnviz-llama-1b}
py=/usr/bin/python3
[ -f "$gpt2/model.safetensors" ] || $py bench/make_gpt2_small.py "$gpt2"
[ -f "$llama/model.safetensors" ] || $py bench/make_llama_1b.py "$llama"
load() { cut -d' ' -f1-3 /proc/loadavg; }
field() { $py -c "import json,sys; print(json.loads(sys.argv[1])['$2'])" "$1"; }
echo "bench_maps: $(nproc) CPUs, commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"

forward() { # NAME DIR T
  local r=$reps
  [ "$3" -ge 4096 ] && r=1
  local out
  out=$("$attnviz" --bench-model "$2" --tokens "$3" --reps "$r")
  echo "$1 t=$3  forward $(field "$out" forward_ms) ms, with the top 10 $(field "$out" median_ms) ms  peak RSS $(field "$out" rss_mb) MB" \
       "(weights $(field "$out" weights_mb) MB, maps' store $(field "$out" attention_mb) MB)  reps $r  load $(load)"
}
for t in 1 32 128 1024; do forward GPT-2-small "$gpt2" $t; done
for t in 1 32 128 1024 8192; do forward Llama-1B "$llama" $t; done

# A prompt of N − 1 words, each one token of the checkpoint's byte-level BPE, and a possible BOS.
prompt() {
  $py -c "
import random; random.seed(1); w = 'the cat sat on a mat while one dog ran far away from home and back again'.split()
print(' '.join(random.choice(w) for _ in range($1 - 1)))"
}
# The window needs a tokenizer: the Llama-1B-sized checkpoint has none, so it borrows GPT-2's (its
# 50 257 ids are all inside Llama's vocabulary) through a folder of links.
window=$(mktemp -d)
trap 'rm -rf "$window"' EXIT
ln -s "$(realpath "$llama")"/{config.json,model.safetensors} "$window"/
ln -s "$(realpath "$gpt2")/tokenizer.json" "$window"/
for t in 128 8192; do
  text=$(prompt $t)
  out=$(xvfb-run -a -s "-screen 0 1600x1000x24" "$attnviz" --bench-frames 5 --model "$window" --text "$text" 2>&1 | grep '^{' | tail -1)
  echo "Llama-1B window t≈$t  first frame $(field "$out" first_frame_ms) ms, every head shown $(field "$out" model_shown_ms) ms," \
       "peak RSS $(field "$out" rss_mb) MB  load $(load)"
done
