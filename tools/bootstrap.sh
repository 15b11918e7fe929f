#!/bin/bash
# Installs what tilec needs from Debian (LLVM/MLIR 22, abseil, nlohmann-json,
# GoogleTest, CMake, Ninja), then configures and builds everything into build/.
# Safe to re-run: apt-get skips what is installed, ninja what is built.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(cmake ninja-build g++ python3 llvm-22-dev llvm-22-tools
          libmlir-22-dev mlir-22-tools libabsl-dev libgtest-dev libgmock-dev
          nlohmann-json3-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
if ((${#missing[@]})); then
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
fi

cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build build
