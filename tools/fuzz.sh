#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz/ with clang into build-fuzz/ (MINIMT_FUZZ=ON: the
# floors with ASan, UBSan and coverage), runs each for SECONDS (default 60) from its seeds in
# tests/fuzz/corpus/<target>/, and prints executions, corpus size and findings per target.
#   tools/fuzz.sh [SECONDS] [TARGET...]     targets: safetensors config dump model_dir text
#                                           sentencepiece http_request
# Environment: FUZZ_JOBS (targets run side by side, default 1); FUZZ_KEEP_GOING=1 keeps fuzzing
# after a finding (libFuzzer fork mode); FUZZ_SKIP_BUILD=1 runs what is built. Findings land in build-fuzz/findings/<target>/, the
# grown corpus in build-fuzz/corpus/<target>/, each run's log in build-fuzz/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
(($# > 0)) && shift
targets=("$@")
((${#targets[@]})) || targets=(safetensors config dump model_dir text sentencepiece http_request)

if ! command -v clang++ >/dev/null || ! compgen -G "/usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a" >/dev/null; then
  echo "fuzz: needs clang and libFuzzer: apt-get install -y clang libclang-rt-dev" >&2
  exit 1
fi
build=build-fuzz
[[ "${FUZZ_SKIP_BUILD:-0}" == 1 ]] || CC=clang CXX=clang++ cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMINIMT_FUZZ=ON \
  -DBUILD_TESTING=OFF >/dev/null
names=("${targets[@]/#/fuzz_}")
[[ "${FUZZ_SKIP_BUILD:-0}" == 1 ]] ||
  cmake --build "$build" -j"$(nproc)" --target "${names[@]}" >"$build/build.log" 2>&1 || {
  cat "$build/build.log" >&2
  exit 1
}

run() {  # one target: fuzz, then one summary line
  local target=$1 corpus=$build/corpus/$1 findings=$build/findings/$1 log=$build/logs/$1.log
  mkdir -p "$corpus" "$findings" "$build/logs"
  local keep=()
  [[ "${FUZZ_KEEP_GOING:-0}" == 1 ]] && keep=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
  ASAN_OPTIONS=detect_leaks=1:print_stacktrace=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$build/tests/fuzz/fuzz_$target" "${keep[@]}" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
    -artifact_prefix="$findings/" -print_final_stats=1 "$corpus" "tests/fuzz/corpus/$target" \
    >"$log" 2>&1 || true
  local execs
  execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#')
  printf '%-12s %4ss  executions %-10s corpus %-6s findings %s\n' "$target" "$seconds" \
    "${execs:-0}" "$(ls "$corpus" | wc -l)" "$(ls "$findings" | wc -l)"
}

jobs_max=${FUZZ_JOBS:-1}
for target in "${targets[@]}"; do
  while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done
  run "$target" &
done
wait
if compgen -G "$build/findings/*/*" >/dev/null; then
  echo "fuzz: findings in $build/findings/ (reproduce: $build/tests/fuzz/fuzz_<target> FILE)" >&2
  exit 1
fi
