#!/bin/bash
# The Debian package in a bare Debian 12: builds minimt_VERSION_ARCH.deb (tools/package.sh)
# unless one is given, unpacks a fresh debootstrap root (tests/package/chroot.sh), installs the
# package there with `apt-get install ./minimt_*.deb` (apt fetches the Depends that
# dpkg-shlibdeps computed), then as an ordinary user in their home folder translates with the
# default model and checks the installed files, `minimt models`, `man` and the completions.
# Slow (minutes: a build, a debootstrap the first time, downloads), so not part of tools/test.sh.
#   sudo tests/package/test_deb.sh [minimt_VERSION_ARCH.deb]
# Ends with `N passed, N failed`; exits 1 on any failure. Prints the time of each step.
set -euo pipefail
cd "$(dirname "$0")/../.."
source tests/package/chroot.sh
[[ $(id -u) -eq 0 ]] || { echo "test_deb: run as root (debootstrap, chroot)" >&2; exit 2; }
start=$SECONDS
step() { echo "test_deb: $1 ($((SECONDS - start)) s)"; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
if [[ -n ${1:-} ]]; then
  cp "$1" "$out/"
else
  tools/package.sh "$out"
  step "package built"
fi
deb=$(cd "$out" && ls minimt_*.deb)
# The packaged binary names no library folder (RPATH or RUNPATH; an empty entry would be the
# folder minimt runs in). tests/e2e/test_library_paths.py holds the build and `cmake --install`.
unpacked=$(mktemp -d)
dpkg-deb -x "$out/$deb" "$unpacked"
search_path=$(readelf -d "$unpacked/usr/bin/minimt" | grep -E "\((RPATH|RUNPATH)\)" || true)
rm -rf "$unpacked"
if [[ -z $search_path ]]; then
  search_path="ok   the packaged minimt has no RPATH or RUNPATH"
else
  search_path="FAIL the packaged minimt names library folders: $search_path"
fi
ensure_bookworm_tar
root=$(new_root)
trap 'drop_root "$root"; rm -rf "$out"' EXIT
cp "$out/$deb" "$root/tmp/"
step "fresh Debian 12 root in $root"

# Inside: install, then check as a user. Every check prints "ok" or "FAIL" and a label.
in_root "$root" '
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  cd /tmp && apt-get install -y -qq ./'"$deb"' >/tmp/apt.log 2>&1 || { tail -20 /tmp/apt.log; exit 1; }
  check() { if [ "$2" = "$3" ]; then echo "ok   $1"; else echo "FAIL $1: got \"$2\", want \"$3\""; fi; }
  check "dpkg: minimt installed" "$(dpkg-query -W -f="\${Status}" minimt)" "install ok installed"
  check "dpkg-shlibdeps Depends name OpenBLAS and SentencePiece" \
    "$(dpkg-query -W -f="\${Depends}" minimt | grep -o "libopenblas[^ ,]*\|libsentencepiece[^ ,]*" | sed "s/[0-9].*//" | sort -u | tr "\n" " ")" \
    "libopenblas libsentencepiece "
  for f in /usr/bin/minimt /usr/share/minimt/models/en-fr/config.json /usr/share/man/man1/minimt.1.gz \
      /usr/share/bash-completion/completions/minimt /usr/share/zsh/vendor-completions/_minimt \
      /usr/share/fish/vendor_completions.d/minimt.fish /usr/share/doc/minimt/README.md \
      /usr/share/doc/minimt/copyright; do
    check "installed $f" "$(test -s $f && echo yes)" yes
  done
  useradd -m tester
  as_tester() { su tester -c "cd ~ && $1" 2>&1; }
  check "minimt translate, default model, from the home folder" \
    "$(as_tester "minimt translate \"I am a student.\"")" "Je suis étudiant."
  check "minimt info: /usr/share/minimt/models/en-fr" \
    "$(as_tester "minimt info" | sed -n "s/^model  *//p")" "/usr/share/minimt/models/en-fr"
  check "minimt models: en-fr, installed, the default" \
    "$(as_tester "minimt models" | grep -c "^en-fr  */usr/share/minimt/models/en-fr .*(default)$")" "1"
  check "minimt translate --model en-fr" \
    "$(as_tester "minimt translate --model en-fr \"The black cat sees the small dog.\"")" \
    "Le chat noir voit le petit chien."
  # apt installs the recommended python3 and python3-numpy: the module works from the home folder.
  check "python3: import minimt, the installed model, arrays" \
    "$(as_tester "python3 -c '"'"'import minimt; r = minimt.Model().translate(\"I am a student.\", attention=True); print(r.text, r.cross_attention.shape, minimt.Model().directory)'"'"'")" \
    "Je suis étudiant. (3, 4, 5, 6) /usr/share/minimt/models/en-fr"
  # A bare Debian 12 has no man: install it as a user would, then read the page.
  apt-get install -y -qq man-db >/dev/null 2>&1
  check "man -w minimt" "$(man -w minimt 2>&1)" "/usr/share/man/man1/minimt.1.gz"
  check "man minimt shows minimt translate" \
    "$(MANWIDTH=100 man minimt 2>/dev/null | col -b | grep -c "^   minimt translate \[OPTIONS\]")" "1"
  check "bash completion loads" \
    "$(bash -c "source /usr/share/bash-completion/completions/minimt && complete -p minimt")" \
    "complete -F _minimt minimt"
' | tee "$out/results"
echo "$search_path" | tee -a "$out/results"
step "installed and checked"
passed=$(grep -c '^ok' "$out/results" || true)
failed=$(grep -c '^FAIL' "$out/results" || true)
((passed > 0)) || failed=$((failed + 1))
echo "$passed passed, $failed failed"
((failed == 0))
