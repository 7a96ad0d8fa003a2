#!/bin/bash
# Runs the README's test command (tools/test.sh) the way a new user does: in a bare Debian 12
# (a fresh debootstrap root, tests/package/chroot.sh) with nothing set in the environment but
# HOME, TERM, LANG and PATH. The committed source tree (git archive HEAD) is copied to
# /root/minimt; tools/test.sh installs what it needs, builds, and runs every test, including
# its kernel matrix (OPENBLAS_CORETYPE unset, Haswell, SkylakeX where the CPU has AVX-512).
#   sudo tests/package/suite_in_chroot.sh [arguments for tools/test.sh]
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/package/chroot.sh
[[ $(id -u) -eq 0 ]] || { echo "suite_in_chroot: run as root (debootstrap, chroot)" >&2; exit 2; }
ensure_bookworm_tar
root=$(new_root)
trap 'drop_root "$root"' EXIT
mkdir "$root/root/minimt"
git archive HEAD | tar -C "$root/root/minimt" -x
echo "suite_in_chroot: environment inside: $(in_root "$root" 'env | cut -d= -f1 | sort | xargs')"
in_root "$root" "cd /root/minimt && tools/test.sh $*"
