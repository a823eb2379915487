# bench/llama_cpp_level.sh — sourced by the benchmarks that run llama.cpp beside attnviz. Needs
# $attnviz and $py, and NODE_PATH (node-llama-cpp's node_modules, or unset); gives $level (attnviz's
# kernel level) and field JSON KEY (one value of a JSON line).
#
# Where attnviz runs AVX2's kernels (ATTNVIZ_KERNELS=x86-64-v3, or a CPU without AVX-512), llama.cpp
# runs its own AVX2 build: node-llama-cpp ships one libggml-cpu per CPU level and loads the best this
# CPU runs, so a scratch copy of its package keeps the Haswell one alone. LLAMA_CPP_CPU=alderlake keeps
# its Alder Lake build instead (AVX2 with AVX-VNNI), the counterpart of attnviz's --fast at x86-64-v3
# on a CPU with AVX-VNNI.
field() { $py -c "import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$1" "$2"; }
level=$("$attnviz" --version | sed -n 's/^kernels: \([^ ]*\).*/\1/p')
if [ -n "${NODE_PATH:-}" ] && [ "$level" != x86-64-v4 ]; then
  # A folder named node_modules: the package's own imports of its dependencies (ES modules, which
  # NODE_PATH does not reach) look for them in the node_modules folders above it.
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  modules=$scratch/node_modules
  mkdir -p "$modules/@node-llama-cpp"
  cp -r "$NODE_PATH/node-llama-cpp" "$modules/"
  cp -r "$NODE_PATH/@node-llama-cpp/linux-x64" "$modules/@node-llama-cpp/"
  for lib in "$modules"/@node-llama-cpp/linux-x64/bins/*/libggml-cpu-*.so; do
    [ "$(basename "$lib")" = "libggml-cpu-${LLAMA_CPP_CPU:-haswell}.so" ] || rm "$lib"
  done
  for dep in "$NODE_PATH"/*; do [ -e "$modules/$(basename "$dep")" ] || ln -s "$dep" "$modules/"; done
  NODE_PATH=$modules
  echo "bench: llama.cpp restricted to its ${LLAMA_CPP_CPU:-haswell} build of ggml-cpu"
fi
