#!/usr/bin/env bash
# Builds minimt (tools/setup.sh, which also installs what the tests need), then runs every test.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh --packages "chromium"
cd build
ctest --output-on-failure -j2 "$@"
