#!/usr/bin/env bash
# Builds the Debian package minimt_VERSION_ARCH.deb: the executable in /usr/bin, the Python
# module in /usr/lib/python3/dist-packages/minimt (for Debian's python3: `import minimt`), the
# shipped model in /usr/share/minimt/models/en-fr, the man page, the bash, zsh and fish completions and
# the documents, as `cmake --install` lays them out for the prefix /usr. Depends is computed from
# the executable by dpkg-shlibdeps, never typed here.
#   tools/package.sh [OUT_DIR]     (default: the current folder; builds in build-deb/)
# Needs tools/setup.sh's packages plus dpkg-dev and make (installed here when missing, as root).
set -euo pipefail
out=$(realpath "${1:-.}")
cd "$(dirname "$0")/.."
root=$PWD
build=${MINIMT_DEB_BUILD_DIR:-build-deb}
maintainer=${MINIMT_DEB_MAINTAINER:-"minimt maintainers <maintainers@minimt.invalid>"}

tools/setup.sh --python --packages "dpkg-dev make" --no-build

# A build of its own: the install prefix (/usr) is compiled in as the last models folder. No
# tests: they need Catch2, which only tools/setup.sh --tests installs.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX=/usr -DBUILD_TESTING=OFF \
  -DMINIMT_PYTHON_MODULE=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target minimt minimt_cli_docs minimt_python \
  >"$build/package-build.log" 2>&1 ||
  { cat "$build/package-build.log" >&2; exit 1; }

stage=$root/$build/deb-root
rm -rf "$stage"
DESTDIR=$stage cmake --install "$build" --strip >/dev/null
docdir=$stage/usr/share/doc/minimt
gzip -9n "$stage/usr/share/man/man1/minimt.1"
cat >"$docdir/copyright" <<'EOF'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: minimt
Comment: The source tree carries no license file yet; until it does, ask the authors before
 redistributing. The shipped model (usr/share/minimt/models/en-fr) was trained by the project
 on a generated corpus (usr/share/minimt/models/en-fr/README.md).
EOF

version=$("$build/minimt" --version)
version=${version#minimt }
arch=$(dpkg --print-architecture)

# dpkg-shlibdeps reads debian/control from the current folder: give it a minimal one.
shlibs=$(mktemp -d)
trap 'rm -rf "$shlibs"' EXIT
mkdir "$shlibs/debian"
printf 'Source: minimt\n\nPackage: minimt\nArchitecture: any\n' >"$shlibs/debian/control"
depends=$(cd "$shlibs" && dpkg-shlibdeps -O "$stage/usr/bin/minimt" \
  "$stage"/usr/lib/python3/dist-packages/minimt/_core.*.so 2>"$shlibs/warnings" |
  sed -n 's/^shlibs:Depends=//p') || { cat "$shlibs/warnings" >&2; exit 1; }
[[ -n $depends ]] || { echo "package: dpkg-shlibdeps found no dependency" >&2; exit 1; }
# OpenBLAS is opened at run time (only MINIMT_KERNELS=openblas and CPUs without AVX2 use it), so
# dpkg-shlibdeps cannot see it: name it.
depends="$depends, libopenblas0"
# The Python module is built for this python3 and reads arrays with numpy; the executable needs
# neither, so they are recommended (apt installs recommended packages by default).
python_version=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')
python_next=$(/usr/bin/python3 -c 'import sys; print("%d.%d" % (sys.version_info[0], sys.version_info[1] + 1))')
python_recommends="python3 (>= $python_version), python3 (<< $python_next), python3-numpy"

mkdir -p "$stage/DEBIAN"
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) >"$stage/DEBIAN/md5sums"
cat >"$stage/DEBIAN/control" <<EOF
Package: minimt
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $depends
Recommends: $python_recommends
Section: utils
Priority: optional
Description: run encoder-decoder Transformer translators and look inside them
 minimt translates with encoder-decoder Transformer models (a config.json, safetensors
 weights and SentencePiece models) from the command line, as a Unix filter, and shows their
 attention: every layer's and head's weights as JSON and as a self-contained HTML page of
 heatmaps, and word alignments. It ships with a small English-to-French model.
EOF

mkdir -p "$out"
deb=$out/minimt_${version}_${arch}.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "package: wrote $deb ($(du -h "$deb" | cut -f1); Depends: $depends)"
