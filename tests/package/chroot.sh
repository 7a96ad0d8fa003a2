# A bare Debian 12 to test in: a debootstrap root (Debian's default variant, priority
# "important": what a minimal installation has), made once and kept as a tarball, unpacked
# afresh for each run. Sourced by test_deb.sh and first_command.sh; needs root.
#   MINIMT_CHROOT_CACHE  folder of the tarball (default /var/tmp/minimt-chroot)
#   MINIMT_DEBIAN_MIRROR the mirror debootstrap uses (default http://deb.debian.org/debian)

chroot_cache=${MINIMT_CHROOT_CACHE:-/var/tmp/minimt-chroot}
chroot_tar=$chroot_cache/bookworm-important.tar

# The tarball, made by debootstrap when missing (about 10 minutes on a busy 2-core machine).
ensure_bookworm_tar() {
  [[ -f $chroot_tar ]] && return 0
  if ! command -v debootstrap >/dev/null; then
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  local fresh=$chroot_cache/debootstrap.$$
  mkdir -p "$chroot_cache"
  echo "chroot: debootstrap bookworm into $fresh (once; kept as $chroot_tar)" >&2
  debootstrap bookworm "$fresh" "${MINIMT_DEBIAN_MIRROR:-http://deb.debian.org/debian}" \
    >"$chroot_cache/debootstrap.log" 2>&1 || {
    tail -20 "$chroot_cache/debootstrap.log" >&2
    return 1
  }
  tar -C "$fresh" -cf "$chroot_tar.tmp" . && mv "$chroot_tar.tmp" "$chroot_tar"
  rm -rf "$fresh"
}

# A fresh root from the tarball, in a new folder whose path is printed.
new_root() {
  local root
  root=$(mktemp -d /var/tmp/minimt-root.XXXXXX)
  tar -C "$root" -xf "$chroot_tar"
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  echo "$root"
}

# Runs bash -c SCRIPT inside ROOT, with /proc, /sys and /dev mounted in a mount namespace of its
# own (they vanish with it, so nothing stays mounted on this machine).
in_root() {
  local root=$1 script=$2
  unshare --mount --propagation private --fork bash -c '
    set -e
    mount -t proc proc "$1/proc"
    mount --rbind /sys "$1/sys"
    mount --rbind /dev "$1/dev"
    exec chroot "$1" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
      PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c "$2"
  ' _ "$root" "$script"
}

# Removes ROOT, after checking that nothing is mounted under it.
drop_root() {
  local root=$1
  if grep -qF " $root/" /proc/mounts; then
    echo "chroot: $root still has mounts; not removing it" >&2
    return 1
  fi
  rm -rf --one-file-system "$root"
}
