#!/usr/bin/env bash
# Installs what the tests need and builds every target (tools/setup.sh --tests), then runs every
# test:
#   1. tools/check-floors.sh: no floor includes or calls a higher one;
#   2. the whole ctest suite (extra arguments go to ctest), in a scrubbed environment: only PATH,
#      HOME and LANG reach the tests, so that no variable of this machine (MINIMT_*, OPENBLAS_*,
#      OMP_*, PYTHONPATH, TMPDIR...) can hide a failure or make one. The kernel
#      matrix is part of it (tests/e2e/test_kernel_matrix.py): every output the tests compare
#      and the unit tests again under each kernel choice this CPU has: MINIMT_KERNELS avx512,
#      avx2, generic and openblas, OPENBLAS_CORETYPE unset, Haswell and SkylakeX.
# --sanitize: instead, the sanitized subset on an ASan+UBSan build in build-sanitize/
# (tests/sanitize/run.sh; --sanitize --all for every test).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--sanitize" ]]; then
  shift
  tools/setup.sh --tests --no-build
  exec tests/sanitize/run.sh "$@"
fi
tools/setup.sh --tests
tools/check-floors.sh build

# The user's environment: a PATH, a HOME, a locale; nothing else.
home=${HOME:-$(getent passwd "$(id -u)" | cut -d: -f6)}
cd build
env -i PATH="${PATH:-/usr/local/bin:/usr/bin:/bin}" HOME="$home" LANG="${LANG:-C.UTF-8}" \
  ctest --output-on-failure -j2 "$@"
echo "test.sh: every test passed"
