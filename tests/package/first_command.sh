#!/bin/bash
# Times the README's first command on a bare Debian 12 (a fresh debootstrap root,
# tests/package/chroot.sh): the committed source tree (git archive REV, default HEAD) is copied
# to /root/minimt and, as root there (no sudo in a bare system), this runs and is timed:
#   tools/setup.sh && build/minimt translate "The black cat sees the small dog."
# It must print "Le chat noir voit le petit chien.". Package downloads depend on the mirror.
#   sudo tests/package/first_command.sh [REV]
# Then where the time went, from what the command leaves behind: apt's history log (the dpkg
# run starts after the downloads), the build tree's files (CMakeCache.txt is written by the
# configure, build/minimt by the link), and the CPU time of everything it ran; with the load
# average before and after, since other work on the machine slows every step.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/package/chroot.sh
[[ $(id -u) -eq 0 ]] || { echo "first_command: run as root (debootstrap, chroot)" >&2; exit 2; }
rev=${1:-HEAD}
ensure_bookworm_tar
root=$(new_root)
trap 'drop_root "$root"' EXIT
mkdir "$root/root/minimt"
git archive "$rev" | tar -C "$root/root/minimt" -x
echo "first_command: $(git rev-parse --short "$rev"), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
in_root "$root" '
  cd /root/minimt
  ls /var/cache/apt/archives >/tmp/debs-before  # debootstrap leaves its own there
  start=$(date +%s.%N)
  got=$(tools/setup.sh && build/minimt translate "The black cat sees the small dog.")
  end=$(date +%s.%N)
  echo "first_command: output: $got"
  echo "first_command: $(awk "BEGIN { printf \"%.0f\", $end - $start }") s"
  # Seconds from t0 to t1 (epoch seconds, fractions allowed); "?" when a step left no trace.
  span() {
    if [ -n "$1" ] && [ -n "$2" ]; then awk -v a="$1" -v b="$2" "BEGIN { printf \"%.0f\", b - a }"
    else echo "?"; fi
  }
  stamp() { stat -c %Y "$1" 2>/dev/null || true; }
  apt_start=$(date -d "$(sed -n "s/^Start-Date: //p" /var/log/apt/history.log | tail -1)" +%s)
  apt_end=$(date -d "$(sed -n "s/^End-Date: //p" /var/log/apt/history.log | tail -1)" +%s)
  configured=$(stamp build/CMakeCache.txt)
  linked=$(stamp build/minimt)
  built=$(stamp build/build.log)
  echo "first_command: apt-get update and downloads $(span "$start" "$apt_start") s," \
    "installing the packages (dpkg) $(span "$apt_start" "$apt_end") s," \
    "configure $(span "$apt_end" "$configured") s, compile and link $(span "$configured" "$linked") s," \
    "man page and completions $(span "$linked" "$built") s, translation $(span "$built" "$end") s"
  debs=$(ls /var/cache/apt/archives | grep "\.deb$" | grep -vxF -f /tmp/debs-before || true)
  bytes=$(cd /var/cache/apt/archives && cat $debs | wc -c)
  echo "first_command: downloaded $(awk -v b="$bytes" "BEGIN { printf \"%.1f\", b / 1e6 }") MB" \
    "in $(wc -w <<<"$debs") packages"
  # CPU time of everything the command ran (user, system), as the shell keeps it for its children.
  times >/tmp/times
  echo "first_command: CPU time (user, system) $(tail -1 /tmp/times)"
  [ "$got" = "Le chat noir voit le petit chien." ]
'
echo "first_command: load afterwards $(cut -d' ' -f1-3 /proc/loadavg)"
