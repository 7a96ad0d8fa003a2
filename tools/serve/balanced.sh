#!/usr/bin/env bash
# Two minimt serve processes behind nginx (tools/serve/nginx.conf), loaded through the balancer
# by tools/serve/load_test.py: the "Past one machine" trial of docs/serving.md, here on one
# machine over loopback. A benchmark, not a test. Needs Debian's nginx (apt-get install nginx).
#   tools/serve/balanced.sh [--threads N] [load_test.py flags...]   (N: threads per server)
set -euo pipefail
cd "$(dirname "$0")/../.."
threads=1
if [[ ${1:-} == --threads ]]; then threads=$2 && shift 2; fi
command -v nginx >/dev/null || { echo "balanced.sh: install nginx first" >&2 && exit 1; }
work=$(mktemp -d)
mkdir -p "$work/logs" "$work/tmp"
pids=()
stop() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait
  rm -rf "$work"
}
trap stop EXIT
for port in 8081 8082; do
  build/minimt serve --port "$port" --threads "$threads" 2>"$work/logs/serve-$port.log" &
  pids+=($!)
done
nginx -p "$work" -c "$PWD/tools/serve/nginx.conf" &
pids+=($!)
for port in 8081 8082 8080; do  # up when each answers its health check
  for _ in $(seq 100); do
    python3 -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/v1/health')" \
      2>/dev/null && break
    sleep 0.1
  done
done
python3 tools/serve/load_test.py --url http://127.0.0.1:8080 --threads $((2 * threads)) "$@"
# Each server's CPU time: both took a share of the load.
ticks=$(getconf CLK_TCK)
for i in 0 1; do
  awk -v port=$((8081 + i)) -v ticks="$ticks" \
    '{ printf "server on port %d: CPU %.2f s\n", port, ($14 + $15) / ticks }' "/proc/${pids[$i]}/stat"
done
