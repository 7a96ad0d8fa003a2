#!/usr/bin/env bash
# Installs what the tests need and builds every target (tools/setup.sh --tests), then runs every
# test:
#   1. tools/check-floors.sh: no floor includes or calls a higher one;
#   2. the whole ctest suite, as this machine is set up (extra arguments go to this ctest);
#   3. the unit tests and the PyTorch comparison again under every kernel choice, so that a test
#      that depends on which kernel runs fails on any machine, not only on the one that exposes
#      it: OpenBLAS's own pick (OPENBLAS_CORETYPE unset), Haswell (AVX2), SkylakeX (where the CPU
#      has AVX-512), each with minimt's packed kernel and with MINIMT_KERNELS=openblas; and
#      minimt's avx2 and generic kernels.
# --sanitize: instead, every test on an ASan+UBSan build in build-sanitize/ (tests/sanitize/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--sanitize" ]]; then  # every test on an ASan+UBSan build in build-sanitize/
  shift
  tools/setup.sh --tests --no-build
  exec tests/sanitize/run.sh "$@"
fi
tools/setup.sh --tests
tools/check-floors.sh build

(cd build && ctest --output-on-failure -j2 "$@")

# name | environment: each row runs the unit tests and the PyTorch comparison.
matrix=("coretype unset|-u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE"
  "coretype unset, openblas|-u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE MINIMT_KERNELS=openblas"
  "Haswell|OPENBLAS_CORETYPE=Haswell"
  "Haswell, openblas|OPENBLAS_CORETYPE=Haswell MINIMT_KERNELS=openblas")
if grep -qw avx512f /proc/cpuinfo; then
  matrix+=("SkylakeX|OPENBLAS_CORETYPE=SkylakeX"
    "SkylakeX, openblas|OPENBLAS_CORETYPE=SkylakeX MINIMT_KERNELS=openblas")
fi
grep -qw avx2 /proc/cpuinfo && matrix+=("avx2 kernel|MINIMT_KERNELS=avx2")
matrix+=("generic kernel|MINIMT_KERNELS=generic")

failed=()
for row in "${matrix[@]}"; do
  name=${row%%|*}
  read -r -a settings <<<"${row#*|}"
  echo "== kernels: $name"
  if ! (cd build && env "${settings[@]}" ctest --output-on-failure -j2 -R '^(unit|pytorch_comparison|pytorch_search)$'); then
    failed+=("$name")
  fi
done
if ((${#failed[@]})); then
  echo "test.sh: failed under: ${failed[*]}" >&2
  exit 1
fi
echo "test.sh: every test passed, under every kernel choice"
