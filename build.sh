#!/usr/bin/env bash
# The front door. On a fresh Debian 12 machine:
#   ./build.sh run [FILE]   install what is missing, build, open the window
#   ./build.sh test         install what is missing, build, run every test: the normal build,
#                           its numerical tests again at each lower kernel level the CPU runs,
#                           then the whole suite under ASan + UBSan, then a short fuzz run
#                           (ATTNVIZ_QUICK=1 runs the normal build's tests only)
#   ./build.sh package      install what is missing, build, make build/attnviz_<version>_<arch>.deb
#                           with CPack and check it with lintian
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  cmake ninja-build clang pkg-config
  libimgui-dev libglfw3-dev python3-glad libeigen3-dev doctest-dev nlohmann-json3-dev libstb-dev
  fonts-dejavu-core libtomlplusplus-dev libmd4c-dev libzip-dev libpcre2-dev libutf8proc-dev
  libdnnl-dev ocl-icd-opencl-dev
)
test_packages=(xvfb xauth libclang-rt-14-dev python3-numpy desktop-file-utils appstream lintian man-db dpkg-dev)

install_missing() {
  local missing=()
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p"); done
  if ((${#missing[@]})); then
    echo "build.sh: installing ${missing[*]}"
    local sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
  fi
}

# clang: it builds the whole tree in about 60 % of g++'s time, and the programs it makes ran as fast
# (the forward, the recompute and the suite, measured side by side).
build() {
  CC=clang CXX=clang++ cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build build
}

case "${1:-run}" in
  run)
    install_missing "${packages[@]}"
    build
    shift || true
    exec ./build/attnviz "$@"
    ;;
  test)
    install_missing "${packages[@]}" "${test_packages[@]}"
    build
    [ "${ATTNVIZ_QUICK:-0}" = 1 ] && exec ctest --test-dir build --output-on-failure -j2

    # One clang build with ASan + UBSan holds both the whole test suite and the libFuzzer targets:
    # the code is compiled once for both (clang compiles it about twice as fast as g++ with the
    # sanitizers), and the core library the fuzzers link carries libFuzzer's coverage hooks. It builds
    # at a low priority beside the normal build's tests, which leave part of the two cores idle (one
    # doctest process at a time, the NumPy scripts waiting on attnviz), and its log is shown at the end.
    CC=clang CXX=clang++ cmake -S . -B build-sanitize -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DATTNVIZ_SANITIZE=ON \
      -DATTNVIZ_FUZZ=ON -DATTNVIZ_WINDOW=OFF -DCMAKE_DISABLE_FIND_PACKAGE_benchmark=ON >/dev/null
    nice -n 15 ninja -C build-sanitize >build-sanitize/build.log 2>&1 &
    sanitize_build=$!
    trap 'kill "$sanitize_build" 2>/dev/null || true' EXIT
    ctest --test-dir build --output-on-failure -j2

    # The numerical tests again at each lower kernel level this CPU runs (ATTNVIZ_KERNELS; --version
    # lists them best first): on an AVX-512 machine that proves the AVX2 and generic paths too. The
    # doctest cases less the ones that only drive panels, then the NumPy references of every model.
    lower_levels=$(build/attnviz --version | awk -F'[ (;]+' '/^kernels:/ { for (i = 6; i <= NF && $i !~ /^ATTNVIZ/; i++) { gsub(",", "", $i); if (below) print $i; if ($i == $2) below = 1 } }')
    for level in $lower_levels; do
      echo "build.sh: the numerical tests again with ATTNVIZ_KERNELS=$level"
      ATTNVIZ_KERNELS=$level build/tests/attnviz_tests --no-intro=true --minimal=true \
        --test-case-exclude='ui*,lesson panel*,lesson secret*,workspaces*,monkey*'
      ATTNVIZ_KERNELS=$level ctest --test-dir build --output-on-failure -j2 -R '_numpy_reference|numpy_forward|^arch_.*_numpy$'
    done

    echo "build.sh: the test suite again under AddressSanitizer + UndefinedBehaviorSanitizer, and the fuzz targets"
    if ! wait "$sanitize_build"; then tail -n 60 build-sanitize/build.log; exit 1; fi
    tail -n 1 build-sanitize/build.log
    # Less four whole trainings (about 220 s of the run's CPU under the sanitizers): they repeat the
    # trainer's loop that the shorter training tests run here too, and they ran in the normal build.
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 ctest --test-dir build-sanitize --output-on-failure -j2 \
      -E 'ui lesson: heads that learn|train knock-outs: the (table lists|default repeat run)'

    # Every parser gets a short libFuzzer run: target name, its seed corpus, and a number of runs
    # where a time would give too few (GGUF: 10^6, about 30 s on 2 cores under the sanitizers).
    fuzz_targets=(
      "fuzz_gguf tests/corpus_gguf 1000000"
      "fuzz_loader tests/corpus"
      "fuzz_npy tests/corpus_npy"
      "fuzz_npz tests/corpus_npz"
      "fuzz_safetensors tests/corpus_safetensors"
      "fuzz_csv tests/corpus_csv"
      "fuzz_lesson tests/corpus_lesson"
      "fuzz_review tests/corpus_review"
      "fuzz_tokenizer tests/corpus_tokenizer"
      "fuzz_model_config tests/corpus_model_config"
      "fuzz_shard_index tests/corpus_shard_index"
    )
    # Two at a time, one a core (the longest first): each prints its figures when it ends, the whole
    # report's end when it fails, and any failure fails the run. 10 s each by default
    # (ATTNVIZ_FUZZ_SECONDS): a smoke run from the seed corpora that keeps CI within 25 minutes;
    # run a target longer by hand after changing its parser.
    fuzz() { # TARGET SEEDS [RUNS]
      local limit span corpus rc=0
      if [ -n "${3:-}" ]; then
        limit=(-runs="$3") span="$3 runs"
      else
        limit=(-max_total_time="${ATTNVIZ_FUZZ_SECONDS:-10}") span="${ATTNVIZ_FUZZ_SECONDS:-10} s"
      fi
      corpus=$(mktemp -d)
      build-sanitize/"$1" "$corpus" "$2" "${limit[@]}" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 \
        >"$corpus.log" 2>&1 || rc=$?
      printf 'build.sh: fuzzed %s for %s: exit %s\n%s\n' "$1" "$span" "$rc" "$(tail -n $((rc ? 60 : 4)) "$corpus.log")"
      rm -rf "$corpus" "$corpus.log"
      return "$rc"
    }
    pids=()
    for entry in "${fuzz_targets[@]}"; do
      if ((${#pids[@]} == 2)); then wait "${pids[0]}"; pids=("${pids[1]}"); fi
      read -r target seeds runs <<<"$entry"
      fuzz "$target" "$seeds" "$runs" &
      pids+=($!)
    done
    for pid in "${pids[@]}"; do wait "$pid"; done
    ;;
  package)
    install_missing "${packages[@]}" dpkg-dev lintian file
    build
    rm -f build/attnviz_*.deb
    (cd build && cpack -G DEB)
    deb=$(ls build/attnviz_*.deb)
    dpkg-deb --field "$deb" Package Version Architecture Depends
    # Errors fail the build; warnings are printed for a human to weigh.
    lintian --fail-on error "$deb"
    echo "build.sh: $deb"
    ;;
  *)
    echo "usage: ./build.sh run [FILE] | ./build.sh test | ./build.sh package" >&2
    exit 2
    ;;
esac
