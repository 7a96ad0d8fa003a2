#!/bin/bash
# Times the README's first command on a bare Debian 12 (a fresh debootstrap root,
# tests/package/chroot.sh): the committed source tree (git archive HEAD) is copied to /root/minimt
# and, as root there (no sudo in a bare system), this runs and is timed:
#   tools/setup.sh && build/minimt translate "The black cat sees the small dog."
# It must print "Le chat noir voit le petit chien.". Package downloads depend on the mirror.
#   sudo tests/package/first_command.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/package/chroot.sh
[[ $(id -u) -eq 0 ]] || { echo "first_command: run as root (debootstrap, chroot)" >&2; exit 2; }
ensure_bookworm_tar
root=$(new_root)
trap 'drop_root "$root"' EXIT
mkdir "$root/root/minimt"
git archive HEAD | tar -C "$root/root/minimt" -x
in_root "$root" '
  cd /root/minimt
  start=$(date +%s.%N)
  got=$(tools/setup.sh && build/minimt translate "The black cat sees the small dog.")
  end=$(date +%s.%N)
  echo "first_command: output: $got"
  echo "first_command: $(awk "BEGIN { printf \"%.0f\", $end - $start }") s"
  # Of which apt: from its own log (download and install of the packages).
  awk -F": " "/^Start-Date/ { s = \$2 } /^End-Date/ { e = \$2 } END { print s; print e }" \
    /var/log/apt/history.log | {
    read -r s; read -r e
    echo "first_command: of which apt-get install $(( $(date -d "$e" +%s) - $(date -d "$s" +%s) )) s"
  }
  [ "$got" = "Le chat noir voit le petit chien." ]
'
