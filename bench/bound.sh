# bench/bound.sh — sourced by the benchmarks: the bounds of this run. Needs $attnviz and $py; sets
#   rate        the best float32 product rate this CPU runs correctly, GFLOP/s: the faster of NumPy on
#               OpenBLAS (numpy_rate; its kernel in ${numpy#* }) and attnviz's own product (ours_rate,
#               attnviz_bench_products), both at GPT-2 small's MLP shape (1024, 768) · (768, 3072), 2 threads
#   bandwidth   memory read, GiB/s (attnviz_bench_products' memory/read, 2 threads)
#   level, anchor  as bench/anchor.sh sets them: OpenBLAS's kernels of attnviz's level for the anchors
source "$(dirname "${BASH_SOURCE[0]}")/anchor.sh"
products=$(dirname "$attnviz")/attnviz_bench_products
[ -x "$products" ] || { echo "bench: $products is missing (it is built where libbenchmark-dev is installed)" >&2; exit 1; }

# One counter of one attnviz_bench_products benchmark (the best of 5 repetitions).
counter() {
  "$products" --benchmark_filter="^$1\$" --benchmark_repetitions=5 --benchmark_format=json 2>/dev/null |
    $py -c "import json,sys; print(round(max(b['$2'] for b in json.load(sys.stdin)['benchmarks'] if b.get('run_type') == 'iteration') / 1e9, 1))"
}
numpy=$("${anchor[@]}" $py -c "
import ctypes, time, numpy as np
a = np.random.rand(1024, 768).astype(np.float32); b = np.random.rand(768, 3072).astype(np.float32)
best = 1e9
for _ in range(11):
    t = time.perf_counter(); a @ b; best = min(best, time.perf_counter() - t)
core = '?'
for lib in {l.split()[-1] for l in open('/proc/self/maps') if 'openblas' in l.split()[-1]}:
    f = ctypes.CDLL(lib).openblas_get_corename; f.restype = ctypes.c_char_p; core = f().decode()
print(round(2 * 1024 * 768 * 3072 / best / 1e9, 1), core)")
numpy_rate=${numpy% *}
# Without OpenBLAS, NumPy runs the reference BLAS on one core: no anchor at all.
if [ "${numpy#* }" = "?" ]; then
  echo "bench: NumPy is not on OpenBLAS (Debian: libopenblas0-pthread), so its products are no anchor" >&2
  exit 1
fi
ours_rate=$(counter 'forward/gpt2/mlp.c_fc/1024/real_time' FLOPS)
rate=$($py -c "print(max($numpy_rate, $ours_rate))")
bandwidth=$(counter 'memory/read/real_time' bytes_per_second) # GiB/s
