#!/usr/bin/env bash
# Proves minimt builds and runs on arm64 (aarch64): cross-builds it into build-arm64/ with
# Debian's aarch64 compiler and :arm64 multiarch packages (tools/aarch64-toolchain.cmake), then
# under qemu-user runs the unit tests, `minimt info` (the generic kernel must be the default)
# and one translation by the shipped model. Slow (emulated), so it is not part of
# tools/test.sh or CI. Installs what is missing (Debian 12; as root or with passwordless sudo).
# Prints how long each step took; exits non-zero on any failure.
#   tools/cross-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

build=build-arm64
host_packages=(cmake make pkg-config g++-aarch64-linux-gnu qemu-user libcli11-dev
  nlohmann-json3-dev catch2)
arm64_packages=(libc6:arm64 libopenblas-dev:arm64)
# Not Multi-Arch: same in Debian 12: installing them would remove the amd64 ones (and
# python3-sentencepiece) that the x86 build and tests need, so they are unpacked into $root.
unpacked_packages=(libsentencepiece0:arm64 libsentencepiece-dev:arm64)
root=$PWD/$build/arm64-root
# No -L /usr/aarch64-linux-gnu: that dynamic loader (libc6-arm64-cross) would load libc6:arm64's
# libc.so.6 of a different build, and the first pthread_create then spins forever. The loader
# of libc6:arm64 (/lib/ld-linux-aarch64.so.1, pulled in by libopenblas-dev:arm64) matches it.
qemu=(qemu-aarch64 -E "LD_LIBRARY_PATH=$root/usr/lib/aarch64-linux-gnu")

timings=()
step_start=0
start_step() {
  echo "== $1" >&2
  step_name=$1
  step_start=$(date +%s%N)
}
end_step() {
  local tenths=$((($(date +%s%N) - step_start) / 100000000))
  timings+=("$(printf '%-28s %6d.%d s' "$step_name" $((tenths / 10)) $((tenths % 10)))")
  step_name=""
}
finished=0
report() {
  local status=$?
  ((finished)) || ((status)) || status=1
  echo "== timings" >&2
  for line in "${timings[@]}"; do echo "  $line" >&2; done
  if ((status != 0)); then
    echo "cross-check: FAILED${step_name:+ in '$step_name'} (status $status)" >&2
  else
    echo "cross-check: arm64 build, unit tests and translation all passed" >&2
  fi
  exit "$status"
}
trap report EXIT
trap 'exit 143' TERM INT
fail() {
  echo "cross-check: $*" >&2
  exit 1
}

install_missing() {
  local missing=() package status
  for package in "${host_packages[@]}" "${arm64_packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
    [[ "$status" == "install ok installed" ]] || missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    sudo -n true 2>/dev/null || fail "missing ${missing[*]}; run this as root (or with sudo)"
    sudo=(sudo)
  fi
  echo "cross-check: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    "${sudo[@]}" dpkg --add-architecture arm64
  fi
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The packages' files go to $root (dpkg does not know of them); .pc prefixes point there.
unpack_conflicting() {
  local pc=$root/usr/lib/aarch64-linux-gnu/pkgconfig/sentencepiece.pc
  [[ -f $pc ]] && return 0
  mkdir -p "$build/debs" "$root"
  (cd "$build/debs" && apt-get download -q "${unpacked_packages[@]}" >download.log 2>&1) ||
    fail "apt-get download ${unpacked_packages[*]} failed (log in $build/debs/download.log)"
  for deb in "$build"/debs/*.deb; do dpkg-deb -x "$deb" "$root"; done
  sed -i "s|^prefix=/usr\$|prefix=$root/usr|" "$pc"
  grep -q "^prefix=$root/usr\$" "$pc" || fail "could not point $pc at $root"
}

build_arm64() {
  unpack_conflicting
  if [[ ! -f $build/CMakeCache.txt ]]; then
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DMINIMT_ARM64_ROOT="$root" \
      -DCMAKE_TOOLCHAIN_FILE="$PWD/tools/aarch64-toolchain.cmake" >/dev/null
  fi
  if ! cmake --build "$build" -j"$(nproc)" --target minimt minimt_tests >"$build/build.log" 2>&1; then
    cat "$build/build.log" >&2
    fail "the arm64 build failed (log above, also in $build/build.log)"
  fi
  aarch64-linux-gnu-readelf -h "$build/minimt" | grep -q "Machine: *AArch64" ||
    fail "$build/minimt is not an aarch64 program"
}

# All unit tests, none skipped; the ten slowest are listed (emulation is some 10-50x slower).
run_unit_tests() {
  local log=$build/unit-tests.log
  if ! (cd "$build/tests" && "${qemu[@]}" ./minimt_tests --durations yes) >"$log" 2>&1; then
    grep -v '^[0-9.]* s: ' "$log" >&2 || true
    fail "unit tests failed under qemu (log in $log)"
  fi
  grep -E '^All tests passed|^test cases' "$log" >&2
  echo "slowest test cases under qemu:" >&2
  grep -E '^[0-9.]+ s: ' "$log" | sort -rn | head -10 | sed 's/^/  /' >&2
}

check_info() {
  local out
  out=$("${qemu[@]}" "$build/minimt" info --model models/en-fr) || fail "minimt info failed"
  echo "$out" | grep -E '^(blas core|linear layers|kernels here)' >&2
  echo "$out" | grep -q "^linear layers  minimt's generic kernel" ||
    fail "minimt info does not name the generic kernel for the linear layers"
  echo "$out" | grep -q "^kernels here   generic (default)" ||
    fail "minimt info does not make generic the default kernel"
}

check_translation() {
  local out expected="Je suis étudiant."
  out=$("${qemu[@]}" "$build/minimt" translate --model models/en-fr "I am a student.") ||
    fail "minimt translate failed"
  echo "translate: $out" >&2
  [[ "$out" == "$expected" ]] || fail "expected '$expected', got '$out'"
}

unset MINIMT_KERNELS OPENBLAS_CORETYPE  # the defaults an arm64 user gets
start_step "install (missing packages)"
install_missing
end_step
start_step "configure + build"
build_arm64
end_step
start_step "unit tests (qemu)"
run_unit_tests
end_step
start_step "minimt info (qemu)"
check_info
end_step
start_step "translate (qemu)"
check_translation
end_step
finished=1
