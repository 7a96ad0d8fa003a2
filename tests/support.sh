# What the bash tests share (sourced: `source "$(dirname "$0")/../support.sh"`): counting checks
# and a scratch folder. Every test ends with `finish`: the line "N passed, N failed", the CPU time
# of the test and its commands, and exit status 1 when anything failed (or nothing was checked).
#   check WHAT GOT WANT   passes when GOT equals WANT, else prints both
#   pass / fail WHAT...   for checks that are not an equality
#   $scratch              a temporary folder, removed when the test exits
#   $root                 the repository (this file is in its tests/)
passed=0 failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)) && echo "FAIL $*"; }
check() {
  if [[ $2 == "$3" ]]; then
    pass && echo "ok   $1"
  else
    fail "$1: got '$2', want '$3'"
  fi
}
finish() {
  echo "$passed passed, $failed failed"
  local stat  # utime, stime, cutime, cstime: fields 14 to 17 of /proc/PID/stat, in clock ticks
  read -r -a stat </proc/$$/stat
  awk -v ticks=$((stat[13] + stat[14] + stat[15] + stat[16])) -v hz="$(getconf CLK_TCK)" \
    'BEGIN { printf "CPU time: %.1f s\n", ticks / hz }'
  ((failed == 0 && passed > 0))
  exit $?
}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/minimt-test.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
