#!/usr/bin/env bash
# bench/bench_moe.sh — mixtures of experts at real shapes, in attnviz and in llama.cpp, in the same run:
# a gpt-oss-20b-sized MXFP4 file and a Qwen3-30B-A3B-sized Q4_K_M one (bench/make_moe_bench.py: random
# blocks, written once under $BENCH_MOE_DIR, default /tmp/attnviz-moe; about 12 and 18.5 GB). For each:
#   - attnviz's forward at t = 128 with every map kept (--bench-model's forward_ms), against
#     llama.cpp's prefill of the same file (bench/llama_cpp_prefill.mjs, its better of 1 and 2 threads);
#   - a decoding step after those 128 tokens, both (step_ms);
#   - attnviz's peak RSS against the file, the maps and the 300 MB the target allows beside them.
#
#   NODE_PATH=/path/to/node_modules bench/bench_moe.sh [ATTNVIZ [REPS]]     defaults: build/attnviz, 3
#
# node-llama-cpp is for this benchmark only (`npm install node-llama-cpp` in a scratch folder); without
# NODE_PATH, attnviz's figures alone. With ATTNVIZ_KERNELS=x86-64-v3 (or on a CPU without AVX-512)
# llama.cpp runs its Haswell build (bench/llama_cpp_level.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
attnviz=${1:-build/attnviz}
reps=${2:-3}
py=/usr/bin/python3
dir=${BENCH_MOE_DIR:-/tmp/attnviz-moe}
source bench/llama_cpp_level.sh
echo "bench_moe: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), attnviz's kernels $level"
mkdir -p "$dir"
for model in gpt-oss-20b qwen3-30b-a3b; do
  file="$dir/$model.gguf"
  [ -f "$file" ] || $py bench/make_moe_bench.py "$model" "$file"
  ours=$("$attnviz" --bench-model "$file" --tokens 128 --reps "$reps")
  mb=$(( $(stat -c %s "$file") >> 20 ))
  line="$model t=128 (load $(cut -d' ' -f1 /proc/loadavg))  attnviz forward, every map kept, $(field "$ours" forward_ms) ms, step $(field "$ours" step_ms) ms"
  if [ -n "${NODE_PATH:-}" ]; then
    while read -r json; do
      line="$line  llama.cpp $(field "$json" threads) thread(s) $(field "$json" median_ms) ms, step $(field "$json" step_ms) ms"
    done < <(VOCAB=151936 node bench/llama_cpp_prefill.mjs "$file" 128 "$reps" 1 2 2>/dev/null)
  fi
  echo "$line"
  echo "    peak RSS $(field "$ours" rss_mb) MB against the file $mb MB + the maps $(field "$ours" attention_mb) MB + 300 MB"
done
