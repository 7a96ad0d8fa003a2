#!/usr/bin/env bash
# tools/test.sh --sanitize [--all] [CTEST ARGUMENTS]: builds minimt and its tests with
# AddressSanitizer, LeakSanitizer and UBSan (MINIMT_SANITIZE=ON) into build-sanitize/, then runs
# the tests labelled `sanitize` there (tests/CMakeLists.txt: the unit tests, the fuzzers' corpora
# and regressions, hostile model directories, hostile text, dumps and pages, the command line,
# minimt serve over loopback),
# or with --all the whole ctest suite (about 17 minutes more on a 2-core machine). Any sanitizer
# report fails the run: the process aborts (a status no test expects), and the report also goes
# to build-sanitize/sanitizer-logs/, which must be empty at the end (so a report in a test that
# only checks for "some failure" still counts).
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/setup.sh --packages "chromium"  # the Debian packages (and build/, quick when up to date)

select=(-L sanitize)
targets=(--target minimt minimt_tests minimt_load_client)
if [[ "${1:-}" == "--all" ]]; then
  shift
  select=()
  targets=()
fi

# Ninja, as the normal build (make built one target after another); -O1 -g1 (line tables: the
# reports still name every function, file and line), not RelWithDebInfo's -O2 -g, which took
# most of CI's time to compile. A tree made by make before is made afresh.
build=build-sanitize
if grep -qs '^CMAKE_GENERATOR:INTERNAL=Unix Makefiles$' "$build/CMakeCache.txt"; then
  rm -rf "$build"
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DMINIMT_SANITIZE=ON >/dev/null
cmake --build "$build" -j"$(nproc)" "${targets[@]}" >"$build/build.log" 2>&1 || {
  cat "$build/build.log" >&2
  exit 1
}

logs=$PWD/$build/sanitizer-logs
rm -rf "$logs" && mkdir -p "$logs"
common="halt_on_error=1:abort_on_error=1:print_stacktrace=1:log_path=$logs/report"
export ASAN_OPTIONS="$common:detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="$common"
export LSAN_OPTIONS="suppressions=$PWD/tests/sanitize/lsan.supp:print_suppressions=0"

status=0
(cd "$build" && ctest --output-on-failure -j2 "${select[@]}" "$@") || status=$?
if compgen -G "$logs/report*" >/dev/null; then
  echo "sanitize: sanitizer reports (from $logs):" >&2
  cat "$logs"/report* >&2
  status=1
fi
exit $status
