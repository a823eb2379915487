#!/usr/bin/env bash
# The front door. On a fresh Debian 12 machine:
#   ./build.sh run [FILE]   install what is missing, build, open the window
#   ./build.sh test         install what is missing, build, run every test
set -euo pipefail
cd "$(dirname "$0")"

packages=(
  cmake ninja-build g++ pkg-config
  libimgui-dev libglfw3-dev python3-glad libeigen3-dev doctest-dev nlohmann-json3-dev libstb-dev
  fonts-dejavu-core
)
test_packages=(xvfb xauth)

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

build() {
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
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
    ctest --test-dir build --output-on-failure -j2
    ;;
  *)
    echo "usage: ./build.sh run [FILE] | ./build.sh test" >&2
    exit 2
    ;;
esac
