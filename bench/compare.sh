#!/usr/bin/env bash
# bench/compare.sh — attnviz's full recompute against the step-by-step article's NumPy code, in the same run, and
# against what the machine's GEMM rate allows.
#
#   bench/compare.sh [TOKENS [DIM [ROUNDS]]]        defaults: 1024 64 3
#
# Builds attnviz and attnviz_bench (Release, no window) in $BUILD (default build-bench), then runs
# ROUNDS rounds of: attnviz --bench-core, bench/numpy_reference.py (/usr/bin/python3 with Debian's
# python3-numpy, on OpenBLAS's kernels of attnviz's level: bench/anchor.sh), each REPS (default 50)
# timed runs; then the GEMM benchmarks. Prints every JSON line, the median of the rounds' medians,
# the ratio NumPy / attnviz, the FLOP count and the ratio to the arithmetic bound (FLOPs / the faster
# of the two GEMM rates, same kernels and threads). The machine's load is printed too: on shared
# cores, compare medians taken close together.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1024}
d=${2:-64}
rounds=${3:-3}
reps=${REPS:-50}
build=${BUILD:-build-bench}
py=/usr/bin/python3

# Debian packages: the build's (as ./build.sh) plus Google Benchmark, NumPy and OpenBLAS for NumPy.
packages=(cmake ninja-build g++ pkg-config libimgui-dev libeigen3-dev doctest-dev nlohmann-json3-dev
          libbenchmark-dev python3-numpy libopenblas0-pthread)
missing=()
for p in "${packages[@]}"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
if ((${#missing[@]})); then
  echo "compare.sh: installing ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
fi

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNVIZ_WINDOW=OFF >/dev/null
cmake --build "$build" --target attnviz attnviz_bench >/dev/null
attnviz=$build/attnviz
source bench/anchor.sh # NumPy on OpenBLAS's kernels of attnviz's level

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)  cpus: $(nproc)  $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
results=$(mktemp)
gemm_json=$(mktemp)
trap 'rm -f "$results" "$gemm_json"' EXIT
for ((r = 1; r <= rounds; ++r)); do
  a=$("$build/attnviz" --bench-core --tokens "$n" --dim "$d" --reps "$reps")
  p=$("${anchor[@]}" "$py" bench/numpy_reference.py --tokens "$n" --dim "$d" --reps "$reps")
  echo "attnviz $a"
  echo "numpy   $p"
  echo "A $a" >>"$results"
  echo "P $p" >>"$results"
done
"$build/attnviz_bench" --benchmark_filter='^gemm_' --benchmark_min_time=0.5 --benchmark_format=json >"$gemm_json" 2>/dev/null
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

"$py" - "$results" "$gemm_json" "$n" "$d" <<'PY'
import json, statistics, sys
lines = open(sys.argv[1]).read().splitlines()
n, d = int(sys.argv[3]), int(sys.argv[4])
ours = [json.loads(l[2:]) for l in lines if l.startswith("A ")]
numpy = [json.loads(l[2:]) for l in lines if l.startswith("P ")]
a = statistics.median(x["median_ms"] for x in ours)
p = statistics.median(x["median_ms"] for x in numpy)
gemm = json.load(open(sys.argv[2]))["benchmarks"]
rate = {b["name"].split("/")[0]: b["FLOPS"] for b in gemm}
gemm_rate = max(rate.values())  # FLOP/s: the faster of the two product shapes, the stricter bound
flops = 3 * 2 * n * d * d + 4 * n * n * d + 6 * n * n
bound_ms = flops / gemm_rate * 1e3
print(f"tokens {n}, dim {d}: attnviz median {a:.3f} ms ({ours[0]['threads']} threads, {ours[0]['kernels']}), "
      f"NumPy median {p:.3f} ms (BLAS: {numpy[0]['blas']})")
print(f"NumPy / attnviz = {p / a:.2f}x")
print(f"GEMM rate: " + ", ".join(f"{k} {v / 1e9:.1f} GFLOP/s" for k, v in rate.items()))
print(f"FLOPs of one recompute: {flops / 1e6:.1f} M (projections {6 * n * d * d / 1e6:.1f} M, "
      f"QK^T {2 * n * n * d / 1e6:.1f} M, AV {2 * n * n * d / 1e6:.1f} M, softmax {6 * n * n / 1e6:.1f} M)")
print(f"arithmetic bound at the GEMM rate: {bound_ms:.3f} ms; attnviz is within {a / bound_ms:.2f}x of it")
PY
