#!/usr/bin/env bash
# Builds minimt (tools/setup.sh, which also installs what the tests need), then runs every test.
# --sanitize: the same tests on a sanitizer build (tests/sanitize/run.sh); other arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--sanitize" ]]; then  # every test on an ASan+UBSan build in build-sanitize/
  shift
  exec tests/sanitize/run.sh "$@"
fi
tools/setup.sh --packages "chromium"
cd build
ctest --output-on-failure -j2 "$@"
