#!/usr/bin/env bash
# bench/bench_qwen35.sh — a hybrid of linear and full attention at real shapes, in attnviz and in
# llama.cpp, in the same run: a Qwen3.5-0.8B-sized qwen35 file (bench/make_qwen35_bench.py: random Q8_0
# blocks, written once under $BENCH_QWEN35_DIR, default /tmp/attnviz-qwen35; about 0.8 GB). Then
#   - at t = 128 and 1024: attnviz's forward with every map kept, the linear layers' M included
#     (--bench-model's forward_ms), against llama.cpp's prefill of the same file (bench/llama_cpp_prefill.mjs,
#     its better of 1 and 2 threads); a decoding step after them, both (step_ms);
#   - at t = 8192: attnviz's peak RSS against the file + 2 GB.
#
#   NODE_PATH=/path/to/node_modules bench/bench_qwen35.sh [ATTNVIZ [REPS]]     defaults: build/attnviz, 3
#
# node-llama-cpp is for this benchmark only; without NODE_PATH, attnviz's figures alone. With
# ATTNVIZ_KERNELS=x86-64-v3 (or on a CPU without AVX-512) llama.cpp runs its Haswell build.
set -euo pipefail
cd "$(dirname "$0")/.."
attnviz=${1:-build/attnviz}
reps=${2:-3}
py=/usr/bin/python3
dir=${BENCH_QWEN35_DIR:-/tmp/attnviz-qwen35}
source bench/llama_cpp_level.sh
echo "bench_qwen35: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?'), attnviz's kernels $level"
mkdir -p "$dir"
file="$dir/qwen3.5-0.8b.gguf"
[ -f "$file" ] || $py bench/make_qwen35_bench.py "$file"
mb=$(( $(stat -c %s "$file") >> 20 ))
for t in 128 1024; do
  ours=$("$attnviz" --bench-model "$file" --tokens "$t" --reps "$reps")
  line="t=$t (load $(cut -d' ' -f1 /proc/loadavg))  attnviz forward, every map kept, $(field "$ours" forward_ms) ms, step $(field "$ours" step_ms) ms"
  if [ -n "${NODE_PATH:-}" ]; then
    while read -r json; do
      line="$line  llama.cpp $(field "$json" threads) thread(s) $(field "$json" median_ms) ms, step $(field "$json" step_ms) ms"
    done < <(VOCAB=248320 node bench/llama_cpp_prefill.mjs "$file" "$t" "$reps" 1 2 2>/dev/null)
  fi
  echo "$line"
done
big=$("$attnviz" --bench-model "$file" --tokens 8192 --reps 1)
echo "t=8192 (load $(cut -d' ' -f1 /proc/loadavg))  attnviz forward $(field "$big" forward_ms) ms, peak RSS $(field "$big" rss_mb) MB against the file $mb MB + 2048 MB"
