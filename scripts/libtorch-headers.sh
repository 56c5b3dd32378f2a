#!/bin/bash
# libtorch-headers.sh: compile GoTorch's C++ against another libtorch's
# headers, syntax only (nothing is linked or run): Debian sid's libtorch-dev
# 2.14.1 by default, whose libraries need a newer glibc than Debian 12's
# and 13's. It runs in the Debian 13 root of scripts/debian13.sh (g++ 14,
# C++20, which 2.14's headers require).
#
#   scripts/libtorch-headers.sh [SUITE]      SUITE: sid (default)
#
# The headers are downloaded once with a private apt configuration (nothing
# is installed) and kept in the root, /opt/libtorch-headers-<version>.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
suite=${1:-sid}
root=$("$here/scripts/debian13.sh" path)
"$here/scripts/debian13.sh" ensure
say() { echo "libtorch-headers: $*" >&2; }

# shellcheck source=scripts/apt-private.sh
. "$here/scripts/apt-private.sh"
apt_private "$suite" main
version=$(apt-cache "${apt_o[@]}" policy libtorch-dev | sed -n 's/ *Candidate: \([0-9.]*\).*/\1/p')
[ -n "$version" ] || { say "no libtorch-dev in $suite"; exit 1; }
dest=/opt/libtorch-headers-$version
if [ ! -f "$root$dest/.done" ]; then
	say "downloading $suite's libtorch-dev $version"
	(cd "$apt_work/debs" && apt-get "${apt_o[@]}" download libtorch-dev >/dev/null)
	rm -rf "$root$dest"
	mkdir -p "$root$dest"
	dpkg -x "$apt_work"/debs/libtorch-dev_*.deb "$root$dest"
	touch "$root$dest/.done"
fi
say "compiling against libtorch $version's headers (syntax only, C++20)"
exec "$here/scripts/debian13.sh" run /bin/bash -c '
	set -euo pipefail
	inc=$1/usr/include
	for f in cgotorch/*.cc cgotorch/*/*.cc cgotorch/ops/shard*/ops_gen.cc; do
		[ -f "$f" ] || continue
		d=$(dirname "$f")
		# The package'"'"'s own #cgo CXXFLAGS (defines, its include folders),
		# less the system libtorch'"'"'s include folders.
		extra=$(sed -n "s/^#cgo CXXFLAGS://p" "$d"/*.go | tr " " "\n" |
			grep -v "^-I/usr/include" | grep -v "^-std=" | sed "s|\${SRCDIR}|$d|g" | tr "\n" " " || true)
		echo "  $f"
		# shellcheck disable=SC2086
		g++ -std=c++20 -fsyntax-only -Wno-deprecated-declarations -DGOTORCH_SYNTAX_ONLY \
			-I"$inc" -I"$inc/torch/csrc/api/include" -Icgotorch $extra "$f"
	done
	echo "libtorch-headers: the C++ compiles against $1"
' bash "$dest"
