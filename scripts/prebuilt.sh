#!/bin/bash
# prebuilt.sh builds the C++ of every cgotorch package (the 2,810 generated
# ops in cgotorch/ops/shard0-3, cgotorch itself, jit, distributed, amp,
# aoti, cuda, ptstorage) into one shared library, libgotorch_cgo.so, once
# per content, and prints the folder that holds it.
#
# Why: cgo compiles a package's C++ as part of the package, so the go
# command compiles it again for every build mode (-race, -cover, ...) and
# every checkout path, although it is the same code: about 3.5 CPU-minutes
# each time on a 2-core machine (issue 38). The Makefile's train, test,
# test-long and test-all build with -tags gotorch_prebuilt, which leaves
# the .cc files out of the Go packages and links this library instead
# (cgotorch/prebuilt.go and its twins), so make test after make train
# compiles no C++ at all. A plain go build, without the tag, is unchanged.
#
# The folder is named by a hash of everything the object code depends on:
# the sources and headers under cgotorch, the #cgo lines of its Go files,
# the compiler and its version, CGO_CPPFLAGS, CGO_CXXFLAGS and CGO_LDFLAGS,
# and libtorch's version header. It lies under $GOTORCH_CACHE, or
# ${XDG_CACHE_HOME:-$HOME/.cache}/gotorch, and is written atomically (built
# in a temporary folder, then renamed), so concurrent runs are safe.
#
# Usage: scripts/prebuilt.sh        build if needed, print the folder
#        scripts/prebuilt.sh --dir  print the folder only
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

CXX=${CXX:-g++}
cppflags=${CGO_CPPFLAGS:-}
cxxflags=${CGO_CXXFLAGS:--O2 -g} # cgo's default when unset
ldflags=${CGO_LDFLAGS:-}
cache=${GOTORCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/gotorch}

mapfile -t srcs < <(find cgotorch -name '*.cc' | LC_ALL=C sort)

# pkgflags KIND DIR: the #cgo KIND lines (CPPFLAGS or CXXFLAGS) of the Go
# files in a package folder, with ${SRCDIR} expanded.
pkgflags() {
	local kind=$1 dir=$2
	local f
	for f in "$dir"/*.go; do
		case $f in *_test.go) continue ;; esac
		sed -n "s/^#cgo $kind: *//p" "$f"
	done | sed "s|\${SRCDIR}|$root/$dir|g" | tr '\n' ' '
}

version_h=
for d in $cppflags /usr/include; do
	d=${d#-I}
	if [ -f "$d/torch/csrc/api/include/torch/version.h" ]; then
		version_h=$d/torch/csrc/api/include/torch/version.h
		break
	fi
done

key=$(
	{
		echo "cxx $CXX: $($CXX --version | head -1)"
		echo "cppflags $cppflags"
		echo "cxxflags $cxxflags"
		echo "ldflags $ldflags"
		[ -n "$version_h" ] && cat "$version_h"
		find cgotorch \( -name '*.cc' -o -name '*.h' \) -print0 | LC_ALL=C sort -z | xargs -0 sha256sum
		find cgotorch -name '*.go' ! -name '*_test.go' -print0 | LC_ALL=C sort -z | xargs -0 grep -H '^#cgo' || true
		sha256sum "$0"
	} | sha256sum | cut -c1-20
)
dir=$cache/cgo-$key

# make computed the folder when it started; a source changed since then
# would build a library its CGO_LDFLAGS do not name.
if [ -n "${GOTORCH_PREBUILT_EXPECT:-}" ] && [ "$GOTORCH_PREBUILT_EXPECT" != "$dir" ]; then
	echo "prebuilt.sh: the bindings' sources changed since make started; run make again" >&2
	exit 1
fi
if [ "${1:-}" = --dir ]; then
	echo "$dir"
	exit 0
fi
if [ -f "$dir/libgotorch_cgo.so" ]; then
	echo "$dir"
	exit 0
fi

# Every .cc must be left out of its Go package under the tag, or a binary
# would hold two copies of the bindings (the package's and the library's).
for f in "${srcs[@]}"; do
	if [ "$(head -1 "$f")" != '//go:build !gotorch_prebuilt' ]; then
		echo "prebuilt.sh: $f must start with the line //go:build !gotorch_prebuilt" >&2
		exit 1
	fi
done

ncpu=$(nproc)
# Measured: about 215 CPU-seconds with g++ 12 -O2 against libtorch 1.13.1
# on a 2-core AMD EPYC.
echo "gotorch: compiling the C++ of GoTorch's libtorch bindings (${#srcs[@]} files, 2,810 ops) once for this source;" \
	"about $(((215 + ncpu - 1) / ncpu / 60 + 1)) min on $ncpu cores" >&2
mkdir -p "$cache"
# Folders of runs killed more than a day ago.
find "$cache" -maxdepth 1 -name '.tmp-cgo-*' -mmin +1440 -exec rm -rf {} + 2>/dev/null || true
tmp=$(mktemp -d "$cache/.tmp-cgo-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM HUP

start=$SECONDS
for f in "${srcs[@]}"; do
	# The largest files first, so that the parallel compiles end together.
	printf '%s\t%s\n' "$(stat -c %s "$f")" "$f"
done | sort -rn | cut -f2 | while read -r f; do
	d=$(dirname "$f")
	o=$tmp/$(echo "$f" | tr '/' '_').o
	# cgo's order: CPPFLAGS then CXXFLAGS, each the environment's and
	# then the package's.
	printf '%s\0' "$CXX -c -fPIC -I$root/$d $cppflags $(pkgflags CPPFLAGS "$d") $cxxflags $(pkgflags CXXFLAGS "$d") -o $o $root/$f"
done | xargs -0 -P "$ncpu" -I{} sh -c '{}'

# The libraries the packages' #cgo LDFLAGS name (the same -ltorch_cpu -lc10
# everywhere today), after CGO_LDFLAGS.
pkgldflags=$(find cgotorch -name '*.go' ! -name '*_test.go' ! -name 'prebuilt*.go' -print0 |
	xargs -0 sed -n 's/^#cgo LDFLAGS: *//p' | tr ' ' '\n' | awk 'NF && !seen[$0]++' | tr '\n' ' ')
# shellcheck disable=SC2086
"$CXX" -shared -o "$tmp/libgotorch_cgo.so" -Wl,-soname,libgotorch_cgo.so "$tmp"/*.o $ldflags $pkgldflags
rm -f "$tmp"/*.o
chmod 755 "$tmp"
if ! mv -T "$tmp" "$dir" 2>/dev/null; then
	# Another run built it meanwhile.
	[ -f "$dir/libgotorch_cgo.so" ] || { echo "prebuilt.sh: cannot create $dir" >&2; exit 1; }
fi
trap - EXIT
rm -rf "$tmp"
echo "gotorch: built $dir/libgotorch_cgo.so in $((SECONDS - start)) s" >&2
echo "$dir"
