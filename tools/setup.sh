#!/usr/bin/env bash
# Installs the Debian packages minimt needs (only the missing ones), then configures and builds
# into build/. Safe to run again: with nothing missing and nothing changed it takes a second.
#   tools/setup.sh [--tests] [--python] [--packages "extra debian packages"] [--no-build]
# Alone, it installs what building and running need and builds minimt with its man page and
# completions (the README's first command). --tests adds what the tests need (PyTorch, Chromium,
# man, zsh, fish: tools/test.sh passes it) and builds every target; so does a plain run in a
# build tree whose tests were built before. --no-build installs the packages only.
set -euo pipefail
cd "$(dirname "$0")/.."

# Building and running: the first command installs these only (Ninja builds the floors side by
# side where make would build them one after another).
packages=(g++ cmake ninja-build pkg-config libcli11-dev nlohmann-json3-dev libsentencepiece-dev
  libopenblas-dev libboost-dev)
# The tests: Catch2, make (the sanitizer and fuzzing builds use CMake's default
# generator), PyTorch and the rest.
test_packages=(catch2 make python3 python3-torch python3-sentencepiece chromium man-db zsh fish
  qemu-user)
# The Python module (--python, and with the tests): pybind11, Python's headers and numpy; the
# notebook's run needs nbconvert, a Python kernel and matplotlib.
python_packages=(pybind11-dev python3-dev python3-numpy)
notebook_packages=(jupyter-nbconvert python3-ipykernel python3-matplotlib)
tests=0 build=1 python=0
while (($#)); do
  case $1 in
    --tests)
      tests=1 python=1
      packages+=("${test_packages[@]}" "${python_packages[@]}" "${notebook_packages[@]}")
      ;;
    --python) python=1 && packages+=("${python_packages[@]}") ;;
    --packages)
      read -r -a extra <<<"${2:-}"
      packages+=("${extra[@]}")
      shift
      ;;
    --no-build) build=0 ;;
    *) echo "setup: unknown argument $1 (see the top of tools/setup.sh)" >&2 && exit 2 ;;
  esac
  shift
done

missing=()
for package in "${packages[@]}"; do
  # One status per installed architecture (a cross-build may add an :arm64 copy); held
  # packages say "hold ok installed".
  status=$(dpkg-query -W -f='${Status}\n' "$package" 2>/dev/null || true)
  grep -q " ok installed$" <<<"$status" || missing+=("$package")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  if [[ $(id -u) -eq 0 ]]; then
    sudo=()
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    sudo=(sudo)
  else
    echo "setup: missing Debian packages; run this, then tools/setup.sh again:" >&2
    echo "  sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
((build)) || exit 0

# A new build tree builds the tests only with --tests (they need Catch2); --tests turns them on
# in a tree made without them.
if [[ ! -f build/CMakeCache.txt ]]; then
  testing=OFF
  ((tests)) && testing=ON
  module=OFF
  ((python)) && module=ON
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=$testing \
    -DMINIMT_PYTHON_MODULE=$module >/dev/null
else
  if ((tests)) && grep -q '^BUILD_TESTING:BOOL=OFF$' build/CMakeCache.txt; then
    cmake -S . -B build -DBUILD_TESTING=ON >/dev/null
  fi
  if ((python)) && ! grep -q '^MINIMT_PYTHON_MODULE:BOOL=ON$' build/CMakeCache.txt; then
    cmake -S . -B build -DMINIMT_PYTHON_MODULE=ON >/dev/null
  fi
fi
# The first command builds only what running needs; tests and the benchmark helper come with
# --tests, or once they have been built.
targets=(--target minimt minimt_cli_docs)
if ((python)); then targets+=(minimt_python); fi
if ((tests)) || [[ -x build/tests/minimt_tests ]]; then
  targets=()
fi
if ! cmake --build build -j"$(nproc)" "${targets[@]}" >build/build.log 2>&1; then
  cat build/build.log >&2
  echo "setup: the build failed (log above, also in build/build.log)" >&2
  exit 1
fi
