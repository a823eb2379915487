#!/usr/bin/env bash
# bench/bench_gguf.sh — GGUF files in attnviz and in llama.cpp, in the same run:
#   1. a GPT-2-small-sized Q8_0 file at t = 128 and 1024: attnviz's forward with every map kept
#      (--bench-model's forward_ms), exact and --fast (int8 activations, AVX512-VNNI), against
#      llama.cpp's prompt prefill of the same file (bench/llama_cpp_prefill.mjs, node-llama-cpp's
#      prebuilt libraries, the better of 1 and 2 threads), which computes no logits; then the window's
#      whole run (median_ms: the forward and every position's top 10 over the vocabulary);
#   2. a Llama-3.2-1B-sized file in Q4_K_M against the same in F16 at t = 128: time (exact and
#      --fast, which takes F16 in bf16 on AMX and leaves the K-quants exact) and peak RSS against the
#      file's size.
#
#   NODE_PATH=/path/to/node_modules bench/bench_gguf.sh [ATTNVIZ [REPS]]     defaults: build/attnviz, 5
#
# With ATTNVIZ_KERNELS=x86-64-v3 (or on a CPU without AVX-512) attnviz runs its AVX2 kernels and
# llama.cpp its Haswell build, each on its own AVX2 path.
#
# node-llama-cpp is for this benchmark only (`npm install node-llama-cpp` in a scratch folder; never a
# dependency of attnviz); without NODE_PATH, part 1 prints attnviz's figures alone. The checkpoints
# (bench/make_gpt2_small.py, bench/make_llama_1b.py) and their GGUF files (bench/make_gguf_bench.py)
# are written once under $BENCH_MODEL_DIR (default /tmp/attnviz-gpt2-small) and $BENCH_1B_DIR
# (default /tmp/attnviz-llama-1b): about 0.6 GB and 5.7 GB.
set -euo pipefail
cd "$(dirname "$0")/.."
attnviz=${1:-build/attnviz}
reps=${2:-5}
py=/usr/bin/python3
small=${BENCH_MODEL_DIR:-/tmp/attnviz-gpt2-small}
big=${BENCH_1B_DIR:-/tmp/attnviz-llama-1b}
[ -f "$small/model.safetensors" ] || $py bench/make_gpt2_small.py "$small"
[ -f "$small/q8_0.gguf" ] || $py bench/make_gguf_bench.py "$small" "$small/q8_0.gguf" Q8_0
source bench/llama_cpp_level.sh
echo "bench_gguf: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), attnviz's kernels $level"
for t in 128 1024; do
  ours=$("$attnviz" --bench-model "$small/q8_0.gguf" --tokens "$t" --reps "$reps")
  fast=$("$attnviz" --bench-model "$small/q8_0.gguf" --tokens "$t" --reps "$reps" --fast)
  line="GPT-2-small Q8_0 t=$t (load $(cut -d' ' -f1 /proc/loadavg))  attnviz forward, every map kept: exact $(field "$ours" forward_ms) ms, fast $(field "$fast" forward_ms) ms"
  if [ -n "${NODE_PATH:-}" ]; then
    best=
    while read -r json; do
      ms=$(field "$json" median_ms)
      line="$line  llama.cpp $(field "$json" threads) thread(s) $ms ms"
      best=$($py -c "print(min(float('${best:-inf}'), $ms))")
    done < <(node bench/llama_cpp_prefill.mjs "$small/q8_0.gguf" "$t" "$reps" 1 2 2>/dev/null)
    line="$line  (llama.cpp's best / attnviz: exact $($py -c "print(round($best / $(field "$ours" forward_ms), 2))"), fast $($py -c "print(round($best / $(field "$fast" forward_ms), 2))"))"
  fi
  echo "$line"
  echo "    the window's whole run (and every position's top 10 over the vocabulary): exact $(field "$ours" median_ms) ms, fast $(field "$fast" median_ms) ms (fast mode on: $(field "$fast" fast))"
done
[ -f "$big/model.safetensors" ] || $py bench/make_llama_1b.py "$big"
for kind in F16 Q4_K_M; do
  file="$big/$(echo "$kind" | tr 'A-Z' 'a-z').gguf"
  [ -f "$file" ] || $py bench/make_gguf_bench.py "$big" "$file" "$kind"
  ours=$("$attnviz" --bench-model "$file" --tokens 128 --reps 3)
  fast=$("$attnviz" --bench-model "$file" --tokens 128 --reps 3 --fast) # F16 in bf16 on AMX; the K-quants stay exact
  echo "Llama-1B-sized $kind t=128 (load $(cut -d' ' -f1 /proc/loadavg))  forward $(field "$ours" forward_ms) ms, fast $(field "$fast" forward_ms) ms; with the top 10: $(field "$ours" median_ms) ms  peak RSS $(field "$ours" rss_mb) MB  file $(( $(stat -c %s "$file") / 1000000 )) MB"
done
