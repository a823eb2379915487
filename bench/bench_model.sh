#!/usr/bin/env bash
# bench/bench_model.sh — attnviz --bench-model (the forward with every attention map, the rollout, each
# position's top 10 and the loss) on a GPT-2-small-sized checkpoint and a Llama-1B-sized BF16 one at
# t = 1, 32, 128 and 1024 (and the Llama one at 8192 with BENCH_LLAMA_LONG=1), against PyTorch's float32
# forward with attentions (bench/torch_gpt2.py, bench/torch_llama.py, 2 threads) in the same run; each
# forward also as a multiple of its bounds, measured in this run:
#
#   products  the forward's matrix-product FLOPs at the best float32 rate this CPU runs correctly: the
#             faster of NumPy on OpenBLAS (its SkylakeX AVX-512 kernels) and attnviz's own product
#             (attnviz_bench_products), both at GPT-2 small's MLP shape (1024, 768) · (768, 3072), 2 threads
#   weights   the bytes of the weights read once at the machine's memory bandwidth (attnviz_bench_products'
#             memory/read, 2 threads): what a forward of few tokens cannot beat
#   alone     the same forward's matrix products and nothing else, in NumPy on OpenBLAS's SkylakeX kernels
#             with each layer's own float32 weights (bench/numpy_products.py): the best library at the
#             forward's own shapes, its weights coming from memory (not at 8192, whose 8.6 GB of scores
#             per layer NumPy would hold)
#
#   bench/bench_model.sh [ATTNVIZ [REPS]]     defaults: build/attnviz, 5; attnviz_bench_products beside ATTNVIZ
#
# OPENBLAS_CORETYPE=SkylakeX is set for the anchors' processes only (NumPy, PyTorch), and each prints
# the OpenBLAS kernel that ran: OpenBLAS 0.3.21 may take a newer Xeon for an older core. attnviz itself
# never uses OpenBLAS. The checkpoints are written once to $BENCH_MODEL_DIR (default
# /tmp/attnviz-gpt2-small, bench/make_gpt2_small.py) and $BENCH_LLAMA_DIR (default /tmp/attnviz-llama-1b,
# bench/make_llama_1b.py). PyTorch needs python3-torch and OpenBLAS behind libblas.so.3 (libopenblas0-pthread).
set -euo pipefail
cd "$(dirname "$0")/.."
attnviz=${1:-build/attnviz}
reps=${2:-5}
gpt2=${BENCH_MODEL_DIR:-/tmp/attnviz-gpt2-small}
llama=${BENCH_LLAMA_DIR:-/tmp/attnviz-llama-1b}
py=/usr/bin/python3
[ -f "$gpt2/model.safetensors" ] || $py bench/make_gpt2_small.py "$gpt2"

source bench/bound.sh # rate (GFLOP/s), numpy_rate, ours_rate, numpy (its kernel), bandwidth (GiB/s)
echo "bench_model: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), commit $(git rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "bench_model: float32 product rate: NumPy on OpenBLAS (kernel ${numpy#* }) ${numpy_rate} GFLOP/s, attnviz ${ours_rate} GFLOP/s; bound at ${rate}. Memory read ${bandwidth} GiB/s"

# The bytes of a checkpoint's tensors, from its safetensors header.
weight_bytes() {
  $py -c "
import json, sys
f = open(sys.argv[1] + '/model.safetensors', 'rb'); n = int.from_bytes(f.read(8), 'little')
print(sum(e['data_offsets'][1] - e['data_offsets'][0] for k, e in json.loads(f.read(n)).items() if k != '__metadata__'))" "$1"
}
json() { $py -c "import json,sys; print(json.loads(sys.argv[1])['$1'])" "$2"; }
ratio() { $py -c "print(round($1 / $2, 2))"; }

# attnviz on MODEL at t tokens with FLOPS product FLOPs and BYTES of weights, then PyTorch where asked.
run() {
  local model=$1 t=$2 flops=$3 bytes=$4 torch=$5
  local bound_ms stream_ms ours ours_ms line
  bound_ms=$($py -c "print(round($flops / ($rate * 1e9) * 1000, 1))")
  stream_ms=$($py -c "print(round($bytes / ($bandwidth * 2**30) * 1000, 1))")
  ours=$("$attnviz" --bench-model "$model" --tokens "$t" --reps "$reps")
  ours_ms=$(json median_ms "$ours")
  line="$(basename "$model") t=$t products ${bound_ms} ms, weights ${stream_ms} ms; attnviz $ours  ($(ratio "$ours_ms" "$bound_ms")x the products, $(ratio "$ours_ms" "$stream_ms")x the weights)"
  if [ -n "${alone[$t]:-}" ]; then line="$line  numpy's products alone ${alone[$t]} ms ($(ratio "$ours_ms" "${alone[$t]}")x)"; fi
  if ((torch)); then
    local theirs theirs_ms
    theirs=$("${anchor[@]}" $py "${torch_script:-bench/torch_gpt2.py}" "$model" "$t" "$reps")
    theirs_ms=$(json median_ms "$theirs")
    line="$line  pytorch $theirs  (attnviz $(ratio "$theirs_ms" "$ours_ms")x faster)"
  fi
  echo "$line"
}

# alone[t]: NumPy's time for the products of MODEL's forward at each length t.
declare -A alone
products_alone() {
  local line
  alone=()
  while read -r line; do alone[$(json tokens "$line")]=$(json ms "$line"); done < <("${anchor[@]}" $py bench/numpy_products.py "$1/config.json" 1,32,128,1024 "$reps")
}

torch=0
$py -c 'import torch' 2>/dev/null && torch=1
bytes=$(weight_bytes "$gpt2")
products_alone "$gpt2"
for t in 1 32 128 1024; do
  # GPT-2: per layer 24·t·D² (c_attn, c_proj, the MLP) + 4·t²·D (scores and A·V, the full square as
  # PyTorch computes it), then 2·t·D·V for the logits.
  run "$gpt2" "$t" "$($py -c "t=$t; D=768; L=12; V=50257; print(L*(24*t*D*D + 4*t*t*D) + 2*t*D*V)")" "$bytes" "$torch"
done
if [ -f "$llama/model.safetensors" ]; then
  # Llama: per layer 2·t·D·(2·D + 2·KV) (q, o; k, v) + 6·t·D·F (gate, up, down) + 4·t²·D, then the logits.
  llama_flops() {
    $py -c "
import json; c = json.load(open('$llama/config.json')); t = $1
D, F, L, V = c['hidden_size'], c['intermediate_size'], c['num_hidden_layers'], c['vocab_size']
KV = c['num_key_value_heads'] * c.get('head_dim', D // c['num_attention_heads'])
print(L * (2*t*D*(2*D + 2*KV) + 6*t*D*F + 4*t*t*D) + 2*t*D*V)"
  }
  llama_bytes=$(weight_bytes "$llama")
  products_alone "$llama"
  for t in 1 32 128 1024; do
    torch_script=bench/torch_llama.py run "$llama" "$t" "$(llama_flops "$t")" "$llama_bytes" "$torch"
  done
  # 8192 tokens take minutes a forward; PyTorch cannot keep its 137 GB of maps.
  if [ -n "${BENCH_LLAMA_LONG:-}" ]; then reps=1 run "$llama" 8192 "$(llama_flops 8192)" "$llama_bytes" 0; fi
else
  echo "bench_model: no $llama/model.safetensors (bench/make_llama_1b.py writes it): the Llama-1B-sized forward is left out"
fi
