#!/usr/bin/env bash
# Where the first command's build spends its CPU time: builds what tools/setup.sh builds in a
# fresh tree (Ninja, no tests; targets minimt and minimt_cli_docs) REPEAT times, each
# compilation and link wrapped by this script (CMake's compiler and linker launchers), and prints
# the median CPU time (user + system) of each, the largest first, then the median per target
# and of the configure and the whole build.
#   tools/compile_times.sh [--repeat N] [--top N] [--dir DIR] [-- extra cmake arguments]
# (e.g. `-- -DMINIMT_UNITY_BUILD=OFF`). CPU time, not wall time: other work on a shared
# machine stretches wall times far more than CPU times. Default: 3 builds in build-times/.
set -euo pipefail

if [[ ${1:-} == --launch ]]; then  # as the launcher: --launch LOG COMMAND...
  log=$2
  shift 2
  output=unknown previous=
  for arg in "$@"; do
    [[ $previous == -o ]] && output=$arg
    previous=$arg
  done
  TIMEFORMAT='%U %S'
  exec 3>&1 4>&2
  status=0
  cpu=$({ time "$@" 1>&3 2>&4; } 2>&1) || status=$?
  echo "$cpu ${output#"$PWD/"}" >>"$log"
  exit "$status"
fi

cd "$(dirname "$0")/.."
repeat=3 top=25 dir=build-times extra=()
while (($#)); do
  case $1 in
    --repeat) repeat=$2 && shift ;;
    --top) top=$2 && shift ;;
    --dir) dir=$2 && shift ;;
    --) shift && extra=("$@") && break ;;
    *) echo "compile_times: unknown argument $1 (see the top of tools/compile_times.sh)" >&2 && exit 2 ;;
  esac
  shift
done
mkdir -p "$dir"
dir=$(realpath "$dir")
self=$(realpath "$0")
log=$dir/times.log  # lines: run user system file
: >"$log"
echo "compile_times: $repeat builds, $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
TIMEFORMAT='%U %S %R'
for run in $(seq "$repeat"); do
  tree=$dir/tree
  rm -rf "$tree" "$dir/run.log"
  launch="$self;--launch;$dir/run.log"
  configure=$({ time cmake -S . -B "$tree" -G Ninja -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=OFF \
    "-DCMAKE_CXX_COMPILER_LAUNCHER=$launch" "-DCMAKE_CXX_LINKER_LAUNCHER=$launch" "${extra[@]}" \
    >"$dir/configure.log" 2>&1; } 2>&1)
  build=$({ time cmake --build "$tree" -j"$(nproc)" --target minimt minimt_cli_docs \
    >"$dir/build.log" 2>&1; } 2>&1) || { cat "$dir/build.log" >&2; exit 1; }
  sed "s|^|$run |; s| $tree/| |" "$dir/run.log" >>"$log"
  read -r cu cs cw <<<"$configure"
  read -r bu bs bw <<<"$build"
  echo "$run $cu $cs =configure" >>"$log"
  echo "$run $bu $bs =whole-build" >>"$log"
  echo "compile_times: build $run: configure ${cw}s wall, build ${bw}s wall" \
    "($(cut -d' ' -f1-3 /proc/loadavg) load)" >&2
done

# The median over the runs of each file's user + system seconds.
medians=$(awk '{ print $4, $2 + $3 }' "$log" | sort -k1,1 -k2,2n | awk '
  function flush() { if (n) printf "%.2f %s\n", (v[int((n + 1) / 2)] + v[int(n / 2) + 1]) / 2, key }
  $1 != key { flush(); key = $1; n = 0 }
  { v[++n] = $2 }
  END { flush() }' | sort -k1,1nr)
echo "median CPU seconds (user + system) of $repeat builds"
grep -v ' =' <<<"$medians" | head -n "$top"
echo "-- per target"
grep -v ' =' <<<"$medians" | awk '{
    target = $2; sub(/\.dir\/.*/, "", target); sub(/^CMakeFiles\//, "", target)
    if ($2 !~ /\.dir\//) target = "links"
    sum[target] += $1; count[target]++; total += $1 }
  END { for (t in sum) printf "%7.2f %s (%d)\n", sum[t], t, count[t]
        printf "%7.2f every compilation and link\n", total }' | sort -k1,1nr
grep ' =' <<<"$medians" | sed -E 's/^([0-9.]+) =(.*)/\1 \2 (every process it ran)/'
